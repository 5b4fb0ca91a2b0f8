"""Baseline for parse-cost checks: the same shape of DAG with a plain PythonOperator."""

import pendulum
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG

with DAG("plain", schedule=None, start_date=pendulum.datetime(2026, 1, 1)) as dag:
    PythonOperator(task_id="t", python_callable=print)
