"""A DAG whose only task fails after declaring its lineage: FAIL events, run state failed."""

from __future__ import annotations

import pendulum
from airflow.providers.openlineage.extractors import OperatorLineage
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG
from openlineage.client.event_v2 import Dataset


class _FailingOp(PythonOperator):
    def get_openlineage_facets_on_start(self) -> OperatorLineage:
        return OperatorLineage(inputs=[Dataset(namespace="file", name="/data/in.csv")])

    def get_openlineage_facets_on_failure(self, task_instance: object) -> OperatorLineage:
        return OperatorLineage(inputs=[Dataset(namespace="file", name="/data/in.csv")])


def _boom() -> None:
    raise ValueError("boom")


with DAG("harness.failing", schedule=None, start_date=pendulum.datetime(2024, 1, 1)) as dag:
    _FailingOp(task_id="explode", python_callable=_boom)
