"""The DAG of the transport-down benchmark: one small task with capture on."""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator


def _write(spark) -> None:
    spark.range(100).write.mode("overwrite").parquet(os.environ["LINEAGE_BENCH_OUTPUT"])


with DAG("bench_transport_down", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as dag:
    LineageAwarePySparkOperator(task_id="task", master="local[1]", python_callable=_write)
