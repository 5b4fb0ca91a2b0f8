"""Issue 52, item 4: the Hive metastore unreachable at session start (tests/system/dags/hive_faults.py).

Our task and the same code without us each build their session with Hive support on a port nobody
listens on, in one DAG run (``dag.test()``, the provider's file transport), after a healthy pair without
Hive support (the run's measure of our cost). Code that touches no table succeeds on both sides, code that
reads a table fails on both with the same error; ours is no longer than the plain one beyond what the
healthy pair cost us plus tests/support/faults.py's bound (one more connect cycle of the metastore's
client would break it), and its final event reports what the task touched. None of our log lines warns
or speaks of a retry.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.support.fault_tasks import FOLDER_ENV
from tests.support.faults import assert_as_without_us, our_warnings, side
from tests.support.ports import free_port

from lineage_operators.testing import DagRunResult, load_dag

DAG_FILE = Path(__file__).parent / "dags" / "hive_faults.py"


@pytest.fixture
def jvm_of_its_own() -> None:
    """The process's JVM launched by a session without Hive support, when no test launched it before: the
    conf of the session that launches it stays as the JVM's system properties, read by every later one."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    if SparkContext._gateway is None:
        SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate().stop()


def test_hive_metastore_unreachable_at_session_start_ends_our_tasks_as_without_us(
    *,
    jvm_of_its_own: None,
    run_dag: Callable[..., DagRunResult],
    base_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    faults = base_dir / "faults"
    faults.mkdir()
    monkeypatch.setenv(FOLDER_ENV, str(faults))
    monkeypatch.setenv("LINEAGE_TEST_DEAD_PORT", str(free_port()))  # free: nobody listens there
    (base_dir / "orders.csv").write_text(
        "order_id,customer,amount\n" + "".join(f"{i},c{i % 4},{i * 2.5}\n" for i in range(12))
    )
    caplog.set_level(logging.INFO)
    result = run_dag(load_dag(DAG_FILE))
    healthy = (side(result, faults, "ours_healthy"), side(result, faults, "plain_healthy"))
    untouched = (side(result, faults, "ours_untouched"), side(result, faults, "plain_untouched"))
    table = (side(result, faults, "ours_table"), side(result, faults, "plain_table"))
    assert untouched[1].state == "success", result.failures
    assert table[1].state == "failed", result.failures
    assert table[1].error is not None
    assert table[1].error["python"].endswith("AnalysisException"), table[1].error
    # one connect cycle of the metastore's client, as this run measured it: what one more by us would cost
    print(f"metastore connect cycle: {table[1].own_seconds - untouched[1].own_seconds:.1f} s")
    for ours, plain in (untouched, table):
        assert_as_without_us(ours, plain, healthy)
    source = ("file", str(base_dir / "orders.csv"))
    assert untouched[0].event["eventType"] == "COMPLETE"
    assert untouched[0].datasets("inputs") == [source]
    assert untouched[0].datasets("outputs") == [("file", str(base_dir / "out" / "ours_untouched"))]
    assert table[0].event["eventType"] == "FAIL"
    assert table[0].datasets("inputs") == [source]
    assert table[0].datasets("outputs") == [("file", str(base_dir / "out" / "ours_table"))]
    assert our_warnings(caplog.records) == []
