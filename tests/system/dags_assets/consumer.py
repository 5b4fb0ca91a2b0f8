"""Scheduled on the Asset of a dataset the producer's Spark job wrote."""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG, Asset, task

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")

with DAG(
    "assets_consumer",
    schedule=[Asset(f"file://{BASE_DIR}/orders")],
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    is_paused_upon_creation=False,  # as a deployed DAG someone switched on
) as dag:

    @task
    def report() -> str:
        return "orders refreshed"

    report()
