"""Data quality in the same Spark job: checks declared on the operator, evaluated as the data is written.

``clean_orders`` writes cleaned orders with five checks; one of them (``amount`` below 100) fails on
purpose: with the default ``on_failure="report"`` the task succeeds and its lineage says which check
failed (the run's ``test`` facet, severity ``warn``) beside the written dataset's
``dataQualityMetrics``. ``publish_orders`` fails its task if a check fails (``on_failure="fail"``,
severity ``error``); its checks pass. The dataset names are templates, rendered at run time.
"""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator
from lineage_operators.quality import DataQuality, between, in_set, not_null, row_count, unique

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")


def clean_orders(spark, base_dir: str) -> int:
    rows = [
        (1, "alice", 12.5, "paid"),
        (2, "bob", 7.0, "new"),
        (3, "alice", 130.0, "paid"),
        (4, None, 1.0, "shipped"),
    ]
    orders = spark.createDataFrame(rows, "order_id INT, customer STRING, amount DOUBLE, status STRING")
    orders.write.mode("overwrite").parquet(f"{base_dir}/dq/clean_orders")
    return len(rows)


def publish_orders(spark, base_dir: str) -> int:
    orders = spark.read.parquet(f"{base_dir}/dq/clean_orders").where("customer IS NOT NULL")
    orders.write.mode("overwrite").parquet(f"{base_dir}/dq/published_orders")
    return orders.count()


with DAG(
    dag_id="example_data_quality",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["example", "lineage", "data-quality"],
    params={"base_dir": BASE_DIR},
) as dag:
    clean = LineageAwarePySparkOperator(
        task_id="clean_orders",
        python_callable=clean_orders,
        op_kwargs={"base_dir": BASE_DIR},
        data_quality={
            "{{ params.base_dir }}/dq/clean_orders": [
                not_null("order_id"),
                unique("order_id"),
                between("amount", 0, 100),
                in_set("status", ["new", "paid", "shipped"]),
                row_count(min=1),
            ]
        },
    )
    publish = LineageAwarePySparkOperator(
        task_id="publish_orders",
        python_callable=publish_orders,
        op_kwargs={"base_dir": BASE_DIR},
        data_quality=DataQuality(
            {"{{ params.base_dir }}/dq/published_orders": [not_null("customer"), row_count(min=1)]},
            on_failure="fail",
        ),
    )
    clean >> publish
