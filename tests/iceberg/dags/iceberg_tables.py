"""Two operator tasks over Iceberg tables of a Hadoop catalog (pyspark + the Iceberg runtime of its line):
``load`` creates and fills ``ice.shop.orders``; ``summarize`` reads it and writes
``ice.shop.totals`` with CTAS. Jars and warehouse come from the environment the test sets."""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator

WAREHOUSE = os.environ.get("LINEAGE_ICEBERG_WAREHOUSE", "/tmp/lineage-operators-iceberg")
CONF = {
    "spark.jars": os.environ.get("LINEAGE_ICEBERG_JARS", ""),
    "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
    "spark.sql.catalog.ice": "org.apache.iceberg.spark.SparkCatalog",
    "spark.sql.catalog.ice.type": "hadoop",
    "spark.sql.catalog.ice.warehouse": WAREHOUSE,
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "2",
}


def load(spark) -> None:
    spark.sql("CREATE TABLE ice.shop.orders (id BIGINT, customer STRING, amount DOUBLE) USING iceberg")
    spark.sql("INSERT INTO ice.shop.orders VALUES (1, 'ann', 10.0), (2, 'bob', 5.0), (3, 'ann', 2.5)")


def summarize(spark) -> None:
    spark.sql(
        "CREATE TABLE ice.shop.totals USING iceberg AS "
        "SELECT customer, sum(amount) AS total FROM ice.shop.orders GROUP BY customer"
    )


with DAG(
    dag_id="iceberg_tables",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
) as dag:
    loaded = LineageAwarePySparkOperator(
        task_id="load", python_callable=load, master="local[2]", config_kwargs=CONF
    )
    summed = LineageAwarePySparkOperator(
        task_id="summarize", python_callable=summarize, master="local[2]", config_kwargs=CONF
    )
    loaded >> summed
