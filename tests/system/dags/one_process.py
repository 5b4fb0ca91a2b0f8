"""Mixed tasks in one process (issue 20): the operator (ordinary, a capture fault, a hang), unmodified
Spark tasks that build their own session (``PythonOperator``, ``@task``), ``@task.lineage_pyspark``
and a task without Spark. Every task writes under its own folder, so a dataset in another task's
event is a leak. With ``LINEAGE_TEST_INJECT_FAULTS=1`` this file injects the faults itself (the
same faults in ``dag.test()`` and in ``airflow dags test``): task ``drain_fault``'s listener-bus
drain raises at stop, task ``hang``'s plan reading hangs (``LINEAGE_TEST_HANG_S``, 20 s).

``spark_log_canary``: the operator launches the process's JVM; a UDF fails with a JDBC URL holding
``LINEAGE_TEST_CANARY`` in its message, and a read of a path holding it (as ``?password=``) is
ignored with a warning.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from typing import Any

import pendulum
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG, task

from lineage_operators import LineageAwarePySparkOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")
CANARY = os.environ.get("LINEAGE_TEST_CANARY", "not-a-canary")
START = pendulum.datetime(2026, 1, 1, tz="UTC")
RELEASE = threading.Event()
_undo: list[Any] = []


def inject_faults() -> None:
    """Wrap two library functions; they misbehave only for this DAG's fault tasks."""
    from lineage_operators._logging import current_task
    from lineage_operators.spark.capture.classic import SparkLineageCapture
    from lineage_operators.spark.plan.reader import PlanReader

    drain, read = SparkLineageCapture._drain, PlanReader.read
    hang_s = float(os.environ.get("LINEAGE_TEST_HANG_S", "20"))

    def raising_drain(self: Any) -> bool:
        if current_task() == "one_process.drain_fault":
            raise RuntimeError("listener bus drain failed")
        return drain(self)

    def hanging_read(self: Any, *args: Any) -> Any:
        if current_task() == "one_process.hang":
            RELEASE.wait(hang_s)
        return read(self, *args)

    SparkLineageCapture._drain = raising_drain  # type: ignore[method-assign]
    PlanReader.read = hanging_read  # type: ignore[method-assign]
    _undo.append(lambda: (setattr(SparkLineageCapture, "_drain", drain), setattr(PlanReader, "read", read)))


def remove_faults() -> None:
    RELEASE.set()
    while _undo:
        _undo.pop()()


if os.environ.get("LINEAGE_TEST_INJECT_FAULTS") == "1" and not _undo:
    inject_faults()


def _write(spark: Any, folder: str) -> None:
    spark.range(3).write.mode("overwrite").parquet(f"{BASE_DIR}/{folder}/out")


def spark_state() -> dict[str, Any]:
    """What the previous task left in the process."""
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    return {
        "active_context": SparkContext._active_spark_context is not None,
        "callback_server": gateway is not None and gateway.__dict__.get("_callback_server") is not None,
        "stop_threads": [t.name for t in threading.enumerate() if "_stop_quietly" in t.name],
    }


def own_session_job(folder: str) -> None:
    """An unmodified task: builds (or gets) its own session, writes a, reads a, writes b."""
    from pyspark.sql import SparkSession

    os.makedirs(f"{BASE_DIR}/{folder}", exist_ok=True)
    with open(f"{BASE_DIR}/{folder}/state.json", "w") as handle:
        json.dump(spark_state(), handle)
    spark = SparkSession.builder.master("local[1]").appName("one-process").getOrCreate()
    spark.range(3).write.mode("overwrite").parquet(f"{BASE_DIR}/{folder}/a")
    spark.read.parquet(f"{BASE_DIR}/{folder}/a").write.mode("overwrite").parquet(f"{BASE_DIR}/{folder}/b")


def no_spark(folder: str) -> None:
    os.makedirs(f"{BASE_DIR}/{folder}", exist_ok=True)
    with open(f"{BASE_DIR}/{folder}/state.json", "w") as handle:
        json.dump({"ran": True}, handle)


with DAG("one_process", schedule=None, start_date=START) as dag:
    ordinary = LineageAwarePySparkOperator(
        task_id="operator", master="local[1]", python_callable=_write, op_kwargs={"folder": "operator"}
    )
    drain_fault = LineageAwarePySparkOperator(
        task_id="drain_fault", master="local[1]", python_callable=_write, op_kwargs={"folder": "drain_fault"}
    )
    hang = LineageAwarePySparkOperator(
        task_id="hang", master="local[1]", python_callable=_write, op_kwargs={"folder": "hang"}
    )
    plain = PythonOperator(task_id="plain", python_callable=own_session_job, op_kwargs={"folder": "plain"})

    @task(task_id="taskflow")
    def taskflow() -> None:
        own_session_job("taskflow")

    @task.lineage_pyspark(task_id="decorated", master="local[1]")
    def decorated(spark: Any = None) -> None:
        spark.read.parquet(f"{BASE_DIR}/plain/a").write.mode("overwrite").parquet(f"{BASE_DIR}/decorated/c")

    without_spark = PythonOperator(
        task_id="no_spark", python_callable=no_spark, op_kwargs={"folder": "no_spark"}
    )
    ordinary >> drain_fault >> hang >> plain >> taskflow() >> decorated() >> without_spark


def _failing_udf(spark: Any) -> None:
    from pyspark.sql.functions import udf

    secret_dir = f"{BASE_DIR}/x?password={CANARY}"  # the query part: no dataset name keeps it
    os.makedirs(secret_dir, exist_ok=True)
    with open(f"{secret_dir}/_ignored.json", "w") as handle:  # "_" files are ignored, with a warning
        handle.write('{"a": 1}\n')
    with contextlib.suppress(Exception):
        spark.read.schema("a INT").json(f"{secret_dir}/_ignored.json").count()

    @udf("long")
    def bad(value: int) -> int:
        raise ValueError(f"cannot reach jdbc:postgresql://db/shop?user=u&password={CANARY}")

    with contextlib.suppress(Exception):  # the task succeeds: only Spark's own log lines matter
        spark.range(1).select(bad("id").alias("v")).write.mode("overwrite").parquet(f"{BASE_DIR}/udf_out")


with DAG("spark_log_canary", schedule=None, start_date=START) as canary_dag:
    LineageAwarePySparkOperator(task_id="udf", master="local[1]", python_callable=_failing_udf)
