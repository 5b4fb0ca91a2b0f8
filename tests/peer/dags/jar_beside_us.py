"""A task on a cluster that already runs openlineage-spark: the jar's listener in the task's session conf."""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")


def clean_orders(spark) -> None:
    spark.createDataFrame([(1, "a"), (2, "b")], "id int, name string").write.mode("overwrite").parquet(
        f"{BASE_DIR}/raw_orders"
    )
    orders = spark.read.parquet(f"{BASE_DIR}/raw_orders")
    orders.selectExpr("id", "upper(name) AS name").write.mode("overwrite").parquet(f"{BASE_DIR}/clean_orders")


with DAG("jar_beside_us", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as dag:
    LineageAwarePySparkOperator(
        task_id="clean_orders",
        python_callable=clean_orders,
        master="local[1]",
        config_kwargs={
            "spark.jars": os.environ["PEER_JAR"],
            "spark.extraListeners": "io.openlineage.spark.agent.OpenLineageSparkListener",
            "spark.openlineage.transport.type": "file",
            "spark.openlineage.transport.location": os.environ["PEER_EVENTS"],
            "spark.openlineage.namespace": "spark_cluster",
        },
    )
