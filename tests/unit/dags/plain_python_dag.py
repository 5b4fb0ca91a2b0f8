"""Baseline for parse-cost checks: the same shape of DAG with a plain PythonOperator."""

import pendulum
from airflow.sdk import DAG
from airflow.providers.standard.operators.python import PythonOperator

with DAG("plain", schedule=None, start_date=pendulum.datetime(2026, 1, 1)) as dag:
    PythonOperator(task_id="t", python_callable=print)
