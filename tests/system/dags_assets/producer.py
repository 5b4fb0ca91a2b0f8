"""Writes with the operator (``asset_alias=``), the mapped decorator (an ``AssetAlias`` outlet) and
two unmodified tasks (a ``PythonOperator`` and an ``@task`` that build their own session, with only
an ``AssetAlias`` outlet added); every written dataset becomes an asset event on the alias (for the
unmodified tasks once the plugin is configured)."""

from __future__ import annotations

import os

import pendulum
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG, AssetAlias, task

from lineage_operators import LineageAwarePySparkOperator, lineage_pyspark_task

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")
ALIAS = "spark_outputs"


def write_orders(spark, base_dir: str) -> int:
    spark.range(5).write.mode("overwrite").parquet(f"{base_dir}/orders")
    return 5


def unmodified_write(base_dir: str, name: str) -> int:
    """An existing task's code: its own session, no code of this package."""
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[1]").getOrCreate()
    spark.range(3).write.mode("overwrite").parquet(f"{base_dir}/unmodified/{name}")
    return 3


with DAG("assets_producer", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as dag:
    orders = LineageAwarePySparkOperator(
        task_id="write_orders",
        python_callable=write_orders,
        op_kwargs={"base_dir": BASE_DIR},
        master="local[1]",
        asset_alias=ALIAS,
    )

    @task.lineage_pyspark(master="local[1]", outlets=[AssetAlias(ALIAS)])
    def write_part(part: int, base_dir: str, spark, lineage) -> int:
        lineage.add_input(f"{base_dir}/reference/part-{part}.csv")  # something Spark did not read
        spark.range(part).write.mode("overwrite").parquet(f"{base_dir}/parts/p{part}")
        return part * 10

    @lineage_pyspark_task(master="local[1]")
    def count_orders(base_dir: str, spark, sc) -> int:
        assert sc is spark.sparkContext
        return spark.read.parquet(f"{base_dir}/orders").count()

    @task
    def total(values: list[int], orders: int) -> int:
        return sum(values) + orders

    python_operator = PythonOperator(
        task_id="unmodified_python",
        python_callable=unmodified_write,
        op_kwargs={"base_dir": BASE_DIR, "name": "python"},
        outlets=[AssetAlias(ALIAS)],
    )

    @task(outlets=[AssetAlias(ALIAS)])
    def unmodified_taskflow(base_dir: str) -> int:
        return unmodified_write(base_dir, "taskflow")

    parts = write_part.partial(base_dir=BASE_DIR).expand(part=[1, 2])
    counted = count_orders(BASE_DIR)
    orders >> counted >> python_operator >> unmodified_taskflow(BASE_DIR)
    total(parts, counted)
