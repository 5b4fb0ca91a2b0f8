"""Scheduled on Assets of datasets the producer's Spark jobs wrote: one from the operator, one from
an unmodified ``PythonOperator``. Its task reads what the triggering asset events point at and
writes a marker the test checks."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pendulum
from airflow.sdk import DAG, Asset, task

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")
ORDERS = Asset(f"file://{BASE_DIR}/orders")
UNMODIFIED = Asset(f"file://{BASE_DIR}/unmodified/python")
PARQUET_MAGIC = b"PAR1"

with DAG(
    "assets_consumer",
    schedule=ORDERS & UNMODIFIED,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    is_paused_upon_creation=False,  # as a deployed DAG someone switched on
) as dag:

    @task
    def report(triggering_asset_events=None) -> int:
        """Count the Parquet files behind each triggering asset (checking they are Parquet)."""
        files: dict[str, int] = {}
        for events in triggering_asset_events.values():
            for event in events:
                path = Path(event.asset.uri.removeprefix("file://"))
                parts = sorted(path.glob("part-*.parquet"))
                assert all(part.read_bytes()[:4] == PARQUET_MAGIC for part in parts), path
                files[event.asset.uri] = len(parts)
        marker = Path(BASE_DIR) / "consumer-marker.json"
        marker.write_text(json.dumps({"parquet_files": files}, sort_keys=True))
        return sum(files.values())

    report()
