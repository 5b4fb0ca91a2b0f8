"""One Spark job on a Spark Connect server three ways: a plain PythonOperator and a plain ``@task``
that open their own session with ``SparkSession.builder.remote("sc://...")`` (no code of this
package), and the same job through LineageAwarePySparkOperator. With the plugin and extractor
configured, all three must report the same lineage, column lineage included.

``LINEAGE_CONNECT_URL`` is the server (``sc://127.0.0.1:<port>``).
"""

from __future__ import annotations

import os

import pendulum
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG, task

from lineage_operators import LineageAwarePySparkOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")
CONNECT_URL = os.environ.get("LINEAGE_CONNECT_URL", "sc://127.0.0.1:15002")


def orders_job(spark, base_dir: str) -> int:
    rows = [(1, "alice", 12.5), (2, "bob", 7.0), (3, "alice", 3.25)]
    frame = spark.createDataFrame(rows, "order_id INT, customer STRING, amount DOUBLE")
    frame.write.mode("overwrite").parquet(f"{base_dir}/raw/orders")
    raw = spark.read.parquet(f"{base_dir}/raw/orders")
    totals = raw.where("amount > 1").groupBy("customer").sum("amount")
    totals.write.mode("overwrite").parquet(f"{base_dir}/marts/customer_totals")
    return totals.count()


def own_session_job(base_dir: str) -> int:
    """What an existing task does: open its own Spark Connect session, run, return."""
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(CONNECT_URL).getOrCreate()
    return orders_job(spark, base_dir)


with DAG("unmodified_connect", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as dag:
    plain = PythonOperator(
        task_id="python_operator", python_callable=own_session_job, op_kwargs={"base_dir": BASE_DIR}
    )

    @task(task_id="taskflow")
    def taskflow(base_dir: str) -> int:
        return own_session_job(base_dir)

    ours = LineageAwarePySparkOperator(
        task_id="lineage_operator",
        python_callable=orders_job,
        master=CONNECT_URL,
        op_kwargs={"base_dir": BASE_DIR},
    )
    plain >> taskflow(BASE_DIR) >> ours
