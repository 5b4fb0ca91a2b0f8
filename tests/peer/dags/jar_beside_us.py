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


def jar_transport() -> dict[str, str]:
    """The jar's events to a file and, with ``PEER_MARQUEZ_URL``, also to Marquez (the jar's composite
    transport, sending in the listener's own thread so nothing is left unsent when the task ends)."""
    file = {"type": "file", "location": os.environ["PEER_EVENTS"]}
    marquez = os.environ.get("PEER_MARQUEZ_URL")
    if not marquez:
        return {f"spark.openlineage.transport.{key}": value for key, value in file.items()}
    http = {"type": "http", "url": marquez, "endpoint": "/api/v1/lineage"}
    conf = {"spark.openlineage.transport.type": "composite"}
    conf["spark.openlineage.transport.withThreadPool"] = "false"
    for name, settings in (("file", file), ("marquez", http)):
        conf |= {f"spark.openlineage.transport.transports.{name}.{k}": v for k, v in settings.items()}
    return conf


with DAG("jar_beside_us", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as dag:
    LineageAwarePySparkOperator(
        task_id="clean_orders",
        python_callable=clean_orders,
        master="local[1]",
        config_kwargs={
            "spark.jars": os.environ["PEER_JAR"],
            "spark.extraListeners": "io.openlineage.spark.agent.OpenLineageSparkListener",
            "spark.openlineage.namespace": "spark_cluster",
            **jar_transport(),
        },
    )
