"""Two operator tasks over Delta tables (pyspark + the Delta jars of its line): ``load`` writes
``orders`` by path; ``summarize`` reads it and writes ``totals``, a table of the session catalog
(``saveAsTable``) in the lake's warehouse. Jars and lake come from the environment the test sets."""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator

LAKE = os.environ.get("LINEAGE_DELTA_LAKE", "/tmp/lineage-operators-delta")
CONF = {
    "spark.jars": os.environ.get("LINEAGE_DELTA_JARS", ""),
    "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
    "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.warehouse.dir": f"{LAKE}/warehouse",
}


def load(spark) -> None:
    orders = spark.createDataFrame(
        [(1, "ann", 10.0), (2, "bob", 5.0), (3, "ann", 2.5)], "id long, customer string, amount double"
    )
    orders.write.format("delta").save(f"{LAKE}/orders")


def summarize(spark) -> None:
    orders = spark.read.format("delta").load(f"{LAKE}/orders")
    totals = orders.groupBy("customer").agg({"amount": "sum"}).withColumnRenamed("sum(amount)", "total")
    totals.write.format("delta").mode("overwrite").saveAsTable("totals")


with DAG(
    dag_id="delta_tables",
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
