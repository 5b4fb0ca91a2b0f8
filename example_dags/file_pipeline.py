"""Three PySpark tasks over local files: raw CSV -> cleaned Parquet by date -> daily aggregate.

No task declares a dataset: the operator finds them in Spark's plans, and each task's output is
the next task's input in the lineage graph.
"""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")


def ingest_orders(spark, base_dir: str) -> int:
    rows = [
        (1, "2026-01-01", "alice", "12.50"),
        (2, "2026-01-01", "bob", "7.00"),
        (3, "2026-01-02", "alice", "3.25"),
        (4, "2026-01-02", None, "1.00"),
        (5, "2026-01-03", "carol", "not-a-number"),
    ]
    frame = spark.createDataFrame(rows, "order_id INT, order_date STRING, customer STRING, amount STRING")
    frame.coalesce(1).write.mode("overwrite").option("header", True).csv(f"{base_dir}/raw/orders")
    return len(rows)


def clean_orders(spark, base_dir: str) -> int:
    from pyspark.sql import functions as F

    raw = spark.read.option("header", True).csv(f"{base_dir}/raw/orders")
    clean = (
        raw.where(F.col("customer").isNotNull())
        .withColumn("amount", F.expr("try_cast(amount AS double)"))
        .where(F.col("amount").isNotNull())
        .withColumn("order_id", F.expr("try_cast(order_id AS int)"))
    )
    clean.write.mode("overwrite").partitionBy("order_date").parquet(f"{base_dir}/clean/orders")
    return clean.count()


def aggregate_daily(spark, base_dir: str) -> int:
    from pyspark.sql import functions as F

    orders = spark.read.parquet(f"{base_dir}/clean/orders")
    daily = orders.groupBy("order_date").agg(F.sum("amount").alias("revenue"), F.count("*").alias("orders"))
    daily.write.mode("overwrite").parquet(f"{base_dir}/marts/daily_revenue")
    return daily.count()


with DAG(
    dag_id="example_file_pipeline",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["example", "lineage"],
) as dag:
    ingest = LineageAwarePySparkOperator(
        task_id="ingest_orders", python_callable=ingest_orders, op_kwargs={"base_dir": BASE_DIR}
    )
    clean = LineageAwarePySparkOperator(
        task_id="clean_orders", python_callable=clean_orders, op_kwargs={"base_dir": BASE_DIR}
    )
    aggregate = LineageAwarePySparkOperator(
        task_id="aggregate_daily", python_callable=aggregate_daily, op_kwargs={"base_dir": BASE_DIR}
    )
    ingest >> clean >> aggregate
