"""A handwritten orders pipeline with column lineage, following the OpenLineage spec, for the
CLI's tests: ingest -> raw, clean: raw -> clean, aggregate: clean -> daily, publish (FAILS):
daily -> published.  ``variant`` builds the changed versions the diff tests compare with."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

from benchmarks.lineage_events import dataset, facet, task_event

DAG = "orders"
RAW, CLEAN, DAILY, PUBLISHED = (
    "/data/raw/orders",
    "/data/clean/orders",
    "/data/marts/daily_revenue",
    "/data/pub/revenue",
)
RAW_FIELDS = [("order_id", "string"), ("order_date", "string"), ("customer", "string"), ("amount", "string")]
CLEAN_FIELDS = [("order_id", "integer"), ("customer", "string"), ("amount", "double"), ("order_date", "date")]
DAILY_FIELDS = [("order_date", "date"), ("revenue", "double"), ("orders", "long")]
START = datetime(2026, 1, 1, tzinfo=timezone.utc)
#: The clean task's data-quality checks on its output (the ``test`` run facet, as the operator writes it).
CLEAN_CHECKS = [
    {
        "name": "not_null_order_id",
        "status": "fail",
        "severity": "warn",
        "type": "not_null",
        "expected": "0",
        "actual": "1",
        "params": {"datasetNamespace": "file", "datasetName": CLEAN, "column": "order_id"},
    },
    {
        "name": "row_count",
        "status": "pass",
        "severity": "warn",
        "type": "row_count",
        "expected": ">= 1",
        "actual": "4",
        "params": {"datasetNamespace": "file", "datasetName": CLEAN},
    },
]

UPSTREAM_OF_REVENUE = {(CLEAN, "amount"), (RAW, "amount")}
"""What clicking daily_revenue.revenue must highlight upstream (through clean, across tasks)."""


def _run(
    task: str,
    index: int,
    inputs: list[dict[str, Any]],
    outputs: list[dict[str, Any]],
    *,
    error: str | None = None,
) -> list[dict[str, Any]]:
    run_id = str(uuid.UUID(int=index + 1, version=4))
    time = START + timedelta(minutes=index)
    end = "FAIL" if error else "COMPLETE"
    return [
        task_event(DAG, task, "START", run_id, time, inputs=inputs),
        task_event(
            DAG, task, end, run_id, time + timedelta(seconds=42), inputs=inputs, outputs=outputs, error=error
        ),
    ]


def orders_events(
    *,
    daily_path: str = DAILY,
    drop_daily_column: str | None = None,
    clean_amount_type: str = "double",
    daily_lifecycle: str = "OVERWRITE",
) -> list[dict[str, Any]]:
    clean_fields = [(n, clean_amount_type if n == "amount" else t) for n, t in CLEAN_FIELDS]
    daily_fields = [(n, t) for n, t in DAILY_FIELDS if n != drop_daily_column]
    raw = dataset("file", RAW, RAW_FIELDS)
    clean_in = dataset("file", CLEAN, clean_fields)
    clean_out = dataset(
        "file",
        CLEAN,
        clean_fields,
        lineage={
            "order_id": [("file", RAW, "order_id", "DIRECT", "TRANSFORMATION")],
            "customer": [("file", RAW, "customer", "DIRECT", "IDENTITY")],
            "amount": [("file", RAW, "amount", "DIRECT", "TRANSFORMATION")],
            "order_date": [("file", RAW, "order_date", "DIRECT", "IDENTITY")],
        },
        dataset_lineage=[("file", RAW, "customer", "INDIRECT", "FILTER")],
        lifecycle="OVERWRITE",
        rows=4,
    )
    clean_out["facets"]["symlinks"] = facet(
        "SymlinksDatasetFacet",
        {"identifiers": [{"namespace": "hive://metastore", "name": "shop.clean_orders", "type": "TABLE"}]},
    )
    clean_out["facets"]["dataQualityMetrics"] = facet(
        "DataQualityMetricsDatasetFacet",
        {"rowCount": 4, "columnMetrics": {"order_id": {"count": 3, "nullCount": 1}}},
    )
    lineage = {
        "order_date": [("file", CLEAN, "order_date", "DIRECT", "IDENTITY")],
        "revenue": [("file", CLEAN, "amount", "DIRECT", "AGGREGATION")],
        "orders": [("file", CLEAN, "order_id", "DIRECT", "AGGREGATION")],
    }
    daily_out = dataset(
        "file",
        daily_path,
        daily_fields,
        lineage={k: v for k, v in lineage.items() if k != drop_daily_column},
        dataset_lineage=[("file", CLEAN, "order_date", "INDIRECT", "GROUP_BY")],
        lifecycle=daily_lifecycle,
        rows=3,
    )
    daily_in = dataset("file", daily_path, daily_fields)
    published = dataset("file", PUBLISHED, daily_fields)
    clean_run = _run("clean_orders", 1, [raw], [clean_out])
    clean_run[-1]["run"]["facets"]["test"] = facet("TestRunFacet", {"tests": CLEAN_CHECKS})
    return [
        *_run("ingest_orders", 0, [], [dataset("file", RAW, RAW_FIELDS, lifecycle="OVERWRITE", rows=5)]),
        *clean_run,
        *_run("aggregate_daily", 2, [clean_in], [daily_out]),
        *_run("publish_revenue", 3, [daily_in], [published], error="publish failed: target is read-only"),
    ]
