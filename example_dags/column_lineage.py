"""Revenue per customer segment: orders x customers, joined, aggregated and ranked with a window.

The second task's output gets a ``columnLineage`` facet saying, per column, which input columns it
comes from and how: ``revenue`` is an AGGREGATION of ``orders.amount``, ``segment`` the IDENTITY
of ``customers.segment``, ``rank_in_month`` depends on ``orders.amount`` and ``orders.order_ts``
through the WINDOW; the join keys, the status filter and the grouping columns go to the facet's
``dataset`` list. Nothing is declared by hand.
"""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")


def seed(spark, base_dir: str) -> None:
    from pyspark.sql import functions as F

    orders = spark.createDataFrame(
        [
            (1, 100, "2026-01-03 10:00:00", 120.0, "paid"),
            (2, 101, "2026-01-04 11:00:00", 80.0, "paid"),
            (3, 100, "2026-01-20 09:30:00", 40.0, "cancelled"),
            (4, 102, "2026-02-02 14:00:00", 300.0, "paid"),
            (5, 101, "2026-02-10 16:45:00", 15.5, "paid"),
        ],
        "order_id INT, customer_id INT, order_ts STRING, amount DOUBLE, status STRING",
    ).withColumn("order_ts", F.to_timestamp("order_ts"))
    customers = spark.createDataFrame(
        [(100, "Acme", "enterprise"), (101, "Bob's Bikes", "smb"), (102, "Cora Corp", "enterprise")],
        "customer_id INT, name STRING, segment STRING",
    )
    orders.write.mode("overwrite").parquet(f"{base_dir}/raw/orders")
    customers.write.mode("overwrite").parquet(f"{base_dir}/raw/customers")


def revenue_per_segment(spark, base_dir: str) -> int:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    orders = spark.read.parquet(f"{base_dir}/raw/orders").where(F.col("status") == "paid")
    customers = spark.read.parquet(f"{base_dir}/raw/customers")
    monthly = (
        orders.join(customers, "customer_id")
        .groupBy("segment", F.date_trunc("month", "order_ts").alias("month"))
        .agg(F.sum("amount").alias("revenue"), F.count("order_id").alias("orders"))
    )
    in_month = Window.partitionBy("month")
    ranked = monthly.withColumn(
        "rank_in_month", F.rank().over(in_month.orderBy(F.desc("revenue")))
    ).withColumn("share_of_month", F.round(F.col("revenue") / F.sum("revenue").over(in_month), 4))
    ranked.write.mode("overwrite").parquet(f"{base_dir}/marts/segment_revenue")
    return ranked.count()


with DAG(
    dag_id="example_column_lineage",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["example", "lineage", "column-lineage"],
) as dag:
    seed_data = LineageAwarePySparkOperator(
        task_id="seed", python_callable=seed, op_kwargs={"base_dir": BASE_DIR}
    )
    revenue = LineageAwarePySparkOperator(
        task_id="revenue_per_segment",
        python_callable=revenue_per_segment,
        op_kwargs={"base_dir": BASE_DIR},
        # the default; "fields" copies join keys, filters and grouping columns into every column
        column_lineage_dataset_dependencies="dataset",
    )
    seed_data >> revenue
