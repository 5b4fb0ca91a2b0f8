"""A DAG that must run where no OpenLineage package is installed."""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator

OUT = os.environ["SPARK_ONLY_OUTPUT"]


class RecordingSparkOperator(LineageAwarePySparkOperator):
    def run_spark(self, spark, context):
        self.lineage.add_input("/data/declared-by-hand")
        spark.range(3).write.mode("overwrite").parquet(f"{OUT}/by_subclass")
        return 3


def write_numbers(spark):
    spark.range(5).write.mode("overwrite").parquet(f"{OUT}/by_callable")
    return 5


with DAG("spark_only", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as dag:
    RecordingSparkOperator(task_id="subclass", master="local[1]", inputs=["/data/declared"])
    LineageAwarePySparkOperator(task_id="callable", python_callable=write_numbers, master="local[1]")
