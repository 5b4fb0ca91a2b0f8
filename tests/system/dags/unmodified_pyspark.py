"""The job of unmodified_tasks.py in Airflow's own ``@task.pyspark`` (Spark provider), unchanged but
for an ``AssetAlias`` outlet, and through LineageAwarePySparkOperator. Runs only where the Spark
provider is installed."""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG, AssetAlias, task
from unmodified_tasks import orders_job  # the dags folder is on sys.path

from lineage_operators import LineageAwarePySparkOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")

with DAG("unmodified_pyspark", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as dag:

    @task.pyspark(config_kwargs={"spark.master": "local[1]"}, outlets=[AssetAlias("spark_outputs")])
    def provider_pyspark(base_dir: str, spark) -> int:  # the provider injects `spark`, stops it after
        return orders_job(spark, base_dir)

    ours = LineageAwarePySparkOperator(
        task_id="lineage_operator",
        python_callable=orders_job,
        master="local[1]",
        op_kwargs={"base_dir": BASE_DIR},
    )
    provider_pyspark(BASE_DIR) >> ours
