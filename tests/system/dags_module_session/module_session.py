"""A SparkSession opened when the DAG file is parsed, as some projects keep one in a module
global: it exists before the first task, so the provider's first forked emitter inherits its py4j
connection. Its own folder: any test that parses a whole DAG folder would start Spark."""

from __future__ import annotations

import os

import pendulum
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG
from pyspark.sql import SparkSession

from lineage_operators import LineageAwarePySparkOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")

spark = SparkSession.builder.master("local[1]").appName("module-session").getOrCreate()


def write(name: str) -> None:
    spark.range(3).write.mode("overwrite").parquet(f"{BASE_DIR}/module/{name}")


def operator_job(spark: SparkSession, base_dir: str) -> None:
    spark.range(2).write.mode("overwrite").parquet(f"{base_dir}/module/operator")


with DAG("module_session", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as dag:
    first = PythonOperator(task_id="first", python_callable=write, op_args=["first"])
    second = PythonOperator(task_id="second", python_callable=write, op_args=["second"])
    operator = LineageAwarePySparkOperator(
        task_id="operator", python_callable=operator_job, op_kwargs={"base_dir": BASE_DIR}
    )
    first >> second >> operator
