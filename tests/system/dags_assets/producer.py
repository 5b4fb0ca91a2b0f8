"""Writes with the operator (``asset_alias=``) and the mapped decorator (an ``AssetAlias`` outlet);
every written dataset becomes an asset event on the alias."""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG, AssetAlias, task

from lineage_operators import LineageAwarePySparkOperator, lineage_pyspark_task

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")
ALIAS = "spark_outputs"


def write_orders(spark, base_dir: str) -> int:
    spark.range(5).write.mode("overwrite").parquet(f"{base_dir}/orders")
    return 5


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

    parts = write_part.partial(base_dir=BASE_DIR).expand(part=[1, 2])
    counted = count_orders(BASE_DIR)
    orders >> counted
    total(parts, counted)
