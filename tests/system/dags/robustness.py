"""Lineage code that fails must never fail the task: a subclass whose own recording raises."""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")


class CarelessOperator(LineageAwarePySparkOperator):
    def run_spark(self, spark, context) -> int:
        self.lineage.add_input(object())  # not a dataset: a warning, not an error
        self.lineage.add_output("relative/path/is/not/a/dataset")
        spark.range(4).write.mode("overwrite").parquet(f"{BASE_DIR}/careless")
        return 4

    def record_lineage(self, spark, context) -> None:
        raise RuntimeError("bug in a platform team's lineage hook")


with DAG("robustness", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as dag:
    CarelessOperator(task_id="careless", master="local[1]")


def dump_parent_job_conf(spark) -> None:
    """What a cluster-side OpenLineage Spark listener would read to nest its runs under this task."""
    import json

    keys = [k for k, _ in spark.sparkContext.getConf().getAll() if k.startswith("spark.openlineage.")]
    values = {k: spark.conf.get(k) for k in keys}
    with open(f"{BASE_DIR}/parent_job_conf.json", "w") as handle:
        json.dump(values, handle)


with DAG("parent_job_conf", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as parent_dag:
    LineageAwarePySparkOperator(task_id="dump_conf", python_callable=dump_parent_job_conf, master="local[1]")
