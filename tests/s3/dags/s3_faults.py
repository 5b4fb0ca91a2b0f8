"""The S3 server stopped mid-write (tests/s3/test_s3_faults.py): our task and the same code without us,
healthy first (the run's measure of our cost), then each meeting the fault.

Each side reads a CSV object from its own bucket (``faults-<side>``) of the test's fault server (an
S3Proxy of its own: the suite's server and S3A's pooled connections to it stay whole) and writes it back
as Parquet through a Python UDF: on the ``stopped`` pair one that, once the write's tasks run, asks the
test to stop the server (S3Proxy killed) and waits until its port refuses connections (the write then
meets a dead S3), on the healthy pair one that passes the rows on. ``warm_up`` starts the session's Python
workers. ``before_plain_stopped`` has the server started again; each bucket has an S3A filesystem of its
own, first used by its side. Both sides use the suite's active session, as tasks on a cluster whose image
carries S3A and its conf (few and short S3A retries: tests/support/s3_server.py's ``s3a_conf``; the
buckets' endpoint: the test's fixture).
"""

from __future__ import annotations

import os
from typing import Any

from tests.support.fault_tasks import accepts, ask, down_waiter, fault_dag, folder

# dag.test() parses this file again; Airflow's safe mode reads only files that name "airflow" and "dag"

SCHEMA = "order_id int, customer string, amount double, order_date string"
SIDES = ("ours_healthy", "plain_healthy", "ours_stopped", "plain_stopped")


def bucket(side: str) -> str:
    return f"faults-{side.replace('_', '-')}"


def _server() -> tuple[str, int]:
    host, port = os.environ["LINEAGE_TEST_FAULT_S3_ENDPOINT"].removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def copy(spark: Any, side: str) -> None:
    """The task's code: read the CSV, write it as Parquet (meeting the fault on the ``stopped`` pair)."""
    from pyspark.sql import functions as F

    frame = spark.read.schema(SCHEMA).option("header", "true").csv(f"s3a://{bucket(side)}/in")
    if side.endswith("_stopped"):
        host, port = _server()
        function = down_waiter(f"{side}.halt_s3", str(folder()), host, port)
    else:

        def function(value: Any) -> Any:  # the same plan, healthy: a Python UDF that passes rows on
            return value

    # a plain Python UDF: Spark 4's default Arrow-optimized one needs pyarrow in the Python workers
    frame = frame.withColumn("order_id", F.udf(function, "int", useArrow=False)("order_id"))
    frame.write.mode("overwrite").parquet(f"s3a://{bucket(side)}/out")


def warm_up(spark: Any) -> None:
    """A write through a Python UDF: the session's Python workers start here, not in the first side."""
    from pyspark.sql import functions as F

    def function(value: Any) -> Any:
        return value

    frame = spark.range(2).withColumn("id", F.udf(function, "long", useArrow=False)("id"))
    frame.write.mode("overwrite").parquet(str(folder() / "warm_up"))


def bring_back() -> None:
    ask("resume_s3", lambda: accepts(*_server()))


dag = fault_dag(
    "s3_faults",
    __file__,
    {"healthy": copy, "stopped": copy},
    between={"stopped": bring_back},
    warm_up=warm_up,
)
