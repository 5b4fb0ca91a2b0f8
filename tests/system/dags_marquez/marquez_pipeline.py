"""The DAG tests/system/test_marquez.py sends to a real Marquez: what a person then looks at there.

- ``write_orders`` writes orders and customers (the orders with data-quality checks, one failing on
  purpose and only reported); a run with ``{"new_column": true}`` in its conf adds a ``channel`` column
  to the orders: a new dataset version with a new field.
- ``summarize`` joins them, aggregates and labels with a CASE: the column lineage Marquez serves.
- ``register_table`` puts a catalog table over the summary and, with ``new_column``, adds a column
  with ``ALTER TABLE ... ADD COLUMNS``: the schema change as its own version.
- ``fail_late`` writes, then fails: a FAILED run with its error.
"""

from __future__ import annotations

import os
from typing import Any

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator
from lineage_operators.quality import between, not_null, row_count

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")
SPARK_CONF = {"spark.sql.warehouse.dir": f"{BASE_DIR}/marquez/warehouse", "spark.ui.enabled": "false"}


def _new_column(context: Any) -> bool:
    conf = getattr(context.get("dag_run"), "conf", None) or {}
    return bool(conf.get("new_column"))


def write_orders(spark: Any, base_dir: str, **context: Any) -> int:
    rows = [(1, 10, 12.5, "paid"), (2, 11, 7.0, "new"), (3, 10, 130.0, "paid")]
    orders = spark.createDataFrame(rows, "order_id INT, customer_id INT, amount DOUBLE, status STRING")
    if _new_column(context):
        orders = orders.selectExpr("*", "'web' AS channel")
    orders.write.mode("overwrite").parquet(f"{base_dir}/marquez/orders")
    customers = spark.createDataFrame([(10, "retail"), (11, "wholesale")], "customer_id INT, segment STRING")
    customers.write.mode("overwrite").parquet(f"{base_dir}/marquez/customers")
    return len(rows)


def summarize(spark: Any, base_dir: str) -> int:
    spark.read.parquet(f"{base_dir}/marquez/orders").createOrReplaceTempView("orders")
    spark.read.parquet(f"{base_dir}/marquez/customers").createOrReplaceTempView("customers")
    summary = spark.sql(
        "SELECT c.segment, SUM(o.amount) AS revenue, "
        "CASE WHEN SUM(o.amount) > 100 THEN 'high' ELSE 'low' END AS tier "
        "FROM orders o JOIN customers c ON o.customer_id = c.customer_id GROUP BY c.segment"
    )
    summary.write.mode("overwrite").parquet(f"{base_dir}/marquez/summary")
    return summary.count()


def register_table(spark: Any, base_dir: str, **context: Any) -> None:
    location = f"{base_dir}/marquez/summary_table"
    spark.read.parquet(f"{base_dir}/marquez/summary").write.mode("overwrite").parquet(location)
    spark.sql(f"CREATE TABLE IF NOT EXISTS summary_table USING parquet LOCATION '{location}'")
    if _new_column(context):
        spark.sql("ALTER TABLE summary_table ADD COLUMNS (note STRING)")


def fail_late(spark: Any, base_dir: str) -> None:
    orders = spark.read.parquet(f"{base_dir}/marquez/orders")
    orders.write.mode("overwrite").parquet(f"{base_dir}/marquez/late")
    raise ValueError("the partner feed was rejected after the write")


with DAG(
    dag_id="marquez_pipeline",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    is_paused_upon_creation=False,  # the scheduler runs it as soon as the test triggers it
    params={"base_dir": BASE_DIR},
) as dag:
    spark = {"op_kwargs": {"base_dir": BASE_DIR}, "config_kwargs": SPARK_CONF, "master": "local[1]"}
    orders = LineageAwarePySparkOperator(
        task_id="write_orders",
        python_callable=write_orders,
        data_quality={
            "{{ params.base_dir }}/marquez/orders": [
                not_null("order_id"),
                between("amount", 0, 100),
                row_count(min=1),
            ]
        },
        **spark,
    )
    summary = LineageAwarePySparkOperator(task_id="summarize", python_callable=summarize, **spark)
    table = LineageAwarePySparkOperator(task_id="register_table", python_callable=register_table, **spark)
    late = LineageAwarePySparkOperator(task_id="fail_late", python_callable=fail_late, **spark)
    orders >> summary >> table
    orders >> late
