"""One Spark job three ways: a plain PythonOperator and a plain ``@task`` that build their own
SparkSession (no code of this package), and the same job through LineageAwarePySparkOperator.
With the plugin and extractor configured, all three must report the same lineage."""

from __future__ import annotations

import os

import pendulum
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG, task

from lineage_operators import LineageAwarePySparkOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")


def orders_job(spark, base_dir: str) -> int:
    rows = [(1, "alice", 12.5), (2, "bob", 7.0), (3, "alice", 3.25)]
    frame = spark.createDataFrame(rows, "order_id INT, customer STRING, amount DOUBLE")
    frame.write.mode("overwrite").option("header", True).csv(f"{base_dir}/raw/orders")
    raw = spark.read.option("header", True).schema(frame.schema).csv(f"{base_dir}/raw/orders")
    totals = raw.groupBy("customer").sum("amount")
    totals.write.mode("overwrite").parquet(f"{base_dir}/marts/customer_totals")
    return totals.count()


def own_session_job(base_dir: str) -> int:
    """What an existing task does: build (or get) its own session, run, return."""
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[1]").appName("unmodified").getOrCreate()
    return orders_job(spark, base_dir)


with DAG("unmodified_tasks", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as dag:
    plain = PythonOperator(
        task_id="python_operator", python_callable=own_session_job, op_kwargs={"base_dir": BASE_DIR}
    )

    @task(task_id="taskflow")
    def taskflow(base_dir: str) -> int:
        return own_session_job(base_dir)

    ours = LineageAwarePySparkOperator(
        task_id="lineage_operator",
        python_callable=orders_job,
        master="local[1]",
        op_kwargs={"base_dir": BASE_DIR},
    )
    plain >> taskflow(BASE_DIR) >> ours
