"""Tasks on a Spark Connect server: lineage is captured with no JVM in the task's process.

``LINEAGE_CONNECT_URL`` is the server (``sc://127.0.0.1:<port>``); the connection
``lineage_connect`` (``spark_connect`` type) points at the same server.
"""

from __future__ import annotations

import contextlib
import os

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")
CONNECT_URL = os.environ.get("LINEAGE_CONNECT_URL", "sc://127.0.0.1:15002")
SECRET_JDBC_URL = "jdbc:postgresql://127.0.0.1:9/sales?user=alice&password=hunter2"


def daily_summary(spark) -> int:
    source = f"{BASE_DIR}/orders"
    spark.range(6).selectExpr("id", "id % 2 AS even", "id * 10 AS amount").write.mode("overwrite").parquet(
        source
    )
    orders = spark.read.parquet(source)
    orders.groupBy("even").sum("amount").write.mode("overwrite").parquet(f"{BASE_DIR}/summary")
    with contextlib.suppress(Exception):  # no database there: the write fails; its options hold secrets
        orders.write.jdbc(SECRET_JDBC_URL, "public.orders", mode="append", properties={"password": "s3cret"})
    return orders.count()


def tables(spark) -> None:
    spark.sql("DROP TABLE IF EXISTS connect_daily")
    spark.sql(
        f"CREATE TABLE connect_daily USING parquet AS SELECT id, amount FROM parquet.`{BASE_DIR}/orders`"
    )
    spark.sql("INSERT INTO connect_daily SELECT id, amount FROM connect_daily WHERE id > 3")


def broken(spark) -> None:
    spark.read.parquet(f"{BASE_DIR}/orders").write.mode("overwrite").parquet(f"{BASE_DIR}/partial")
    raise RuntimeError("the job failed after writing partial output")


with DAG("connect_lineage", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as dag:
    summary = LineageAwarePySparkOperator(
        task_id="summary", python_callable=daily_summary, master=CONNECT_URL
    )
    table_task = LineageAwarePySparkOperator(
        task_id="tables", python_callable=tables, conn_id="lineage_connect"
    )
    failing = LineageAwarePySparkOperator(task_id="broken", python_callable=broken, master=CONNECT_URL)
    summary >> table_task >> failing
