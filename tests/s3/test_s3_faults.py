"""Issue 52, item 4: the S3 server stopped while a task writes to ``s3a://`` (tests/s3/dags/s3_faults.py).

Our task and the same code without us run in one DAG run (``dag.test()``, the provider's file transport)
on this directory's session, healthy first, then each meeting the fault: both fail with the same error,
ours no longer than the plain one beyond what the healthy pair cost us plus tests/support/faults.py's
bound, and ours reports in its FAIL event what it read and the S3 output it was writing. None of our log
lines warns or speaks of a retry, and S3A counted the same requests and retries on both sides' own
filesystems: nothing of ours asked the dead server anything (a capture that asks whether its output
exists, once, on the task's thread, breaks that; the time bound alone does not see it: S3A's short
retries here give up within the noise of a shared machine).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.fault_tasks import FOLDER_ENV
from tests.support.faults import bus_settled, our_warnings, run_outage
from tests.support.processes import started_or_failed
from tests.support.s3_server import S3Server, S3Unavailable
from tests.support.table_format_session import load_dag_module

from lineage_operators.testing import DagRunResult, load_dag

DAG_FILE = Path(__file__).parent / "dags" / "s3_faults.py"
CSV = "order_id,customer,amount,order_date\n" + "".join(
    f"{i},c{i % 4},{i * 2.5},2026-01-0{1 + i % 3}\n" for i in range(24)
)


@pytest.fixture
def fault_server(s3_session: Any) -> Iterator[S3Server]:
    """An S3Proxy of the faults' own with a bucket per side holding ``in/orders.csv`` (put through the S3
    API: no S3A connection to it before a side's task), the buckets' endpoint in the session's conf."""
    hadoop = s3_session[0].sparkContext._jsc.hadoopConfiguration()
    dag = load_dag_module(DAG_FILE, "s3_faults_dag")
    with started_or_failed(S3Server(), S3Unavailable) as server:
        for side_name in dag.SIDES:
            bucket = dag.bucket(side_name)
            server.create_bucket(bucket)
            server.put_object(bucket, "in/orders.csv", CSV.encode())
            hadoop.set(f"fs.s3a.bucket.{bucket}.endpoint", server.endpoint)
        yield server


def test_s3_stopped_mid_write_fails_our_task_as_it_fails_without_us(
    *,
    run_dag: Callable[..., DagRunResult],
    s3_session: Any,
    fault_server: S3Server,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    faults = tmp_path / "faults"
    faults.mkdir()
    monkeypatch.setenv(FOLDER_ENV, str(faults))
    monkeypatch.setenv("LINEAGE_TEST_FAULT_S3_ENDPOINT", fault_server.endpoint)
    caplog.set_level(logging.INFO)
    outage = run_outage(
        run_dag,
        load_dag(DAG_FILE),
        s3_session[0],
        faults,
        service="s3",
        server=fault_server,
        java_error="java.net.ConnectException",
    )
    ours, healthy = outage.ours, outage.healthy
    assert ours.event["eventType"] == "FAIL"
    assert ours.datasets("inputs") == [("s3://faults-ours-stopped", "in")]
    assert ours.datasets("outputs") == [("s3://faults-ours-stopped", "out")]
    assert healthy[0].datasets("outputs") == [("s3://faults-ours-healthy", "out")]
    assert our_warnings(caplog.records) == []
    # what each side asked S3, request by request and retry by retry, as S3A counted it on the side's own
    # filesystem: the same, whatever the machine's load, and one request of ours would show. The jar's
    # listener asks S3 for both sides alike, later, from the bus: counted once it has caught up.
    bus_settled(s3_session[0])
    plain_calls = s3a_counters(s3_session[0], "faults-plain-stopped")
    assert plain_calls["store_io_retry"] > 0, plain_calls  # the plain task met the dead server
    assert s3a_counters(s3_session[0], "faults-ours-stopped") == plain_calls


def s3a_counters(spark: Any, bucket: str) -> dict[str, int]:
    """The counters of S3A's statistics for ``bucket``'s filesystem (the instance its side's task used)."""
    jvm = spark.sparkContext._jvm
    path = jvm.org.apache.hadoop.fs.Path(f"s3a://{bucket}/")
    fs = path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    return {str(key): int(value) for key, value in fs.getIOStatistics().counters().items()}
