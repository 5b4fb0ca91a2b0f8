"""Two tasks run in one process by dag.test(): only the first reports hook-level lineage."""

from __future__ import annotations

import pendulum
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG

_CONTEXT = object()


def _report_input() -> None:
    from airflow.sdk.lineage import get_hook_lineage_collector

    get_hook_lineage_collector().add_input_asset(context=_CONTEXT, uri="file:///hook/in.csv")


with DAG("harness.hooks", schedule=None, start_date=pendulum.datetime(2024, 1, 1)) as dag:
    producer = PythonOperator(task_id="producer", python_callable=_report_input)
    consumer = PythonOperator(task_id="consumer", python_callable=lambda: None)
    producer >> consumer
