"""The operator with every argument at its default, as most DAG files use it (parse-cost checks)."""

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator


def job(spark):
    return spark


with DAG("operator_parse", schedule=None, start_date=pendulum.datetime(2026, 1, 1)) as dag:
    LineageAwarePySparkOperator(task_id="t", python_callable=job, op_kwargs={"day": "{{ ds }}"})
