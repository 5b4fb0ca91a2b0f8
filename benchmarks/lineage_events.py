"""Synthetic FileTransport output for the lineage view: N Airflow tasks over M datasets, with
schemas, column lineage (field-level and dataset-level), statistics, lifecycle and some failed
runs. Deterministic for a seed; every event follows the OpenLineage spec (a unit test checks)."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

PRODUCER = "https://github.com/apache/airflow/tree/providers-openlineage/2.0.0"
SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
_FACET_URL = "https://openlineage.io/spec/facets/{version}/{name}.json#/$defs/{name}"
_VERSIONS = {
    "SchemaDatasetFacet": "1-1-1",
    "ColumnLineageDatasetFacet": "1-2-0",
    "LifecycleStateChangeDatasetFacet": "1-0-1",
    "OutputStatisticsOutputDatasetFacet": "1-0-2",
    "ErrorMessageRunFacet": "1-0-1",
    "JobTypeJobFacet": "2-0-3",
    "SymlinksDatasetFacet": "1-0-1",
    "DataQualityMetricsDatasetFacet": "1-0-3",
    "TestRunFacet": "1-0-1",
}


def facet(name: str, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "_producer": PRODUCER,
        "_schemaURL": _FACET_URL.format(version=_VERSIONS[name], name=name),
        **body,
    }


def task_event(
    dag_id: str,
    task_id: str,
    event_type: str,
    run_id: str,
    time: datetime,
    *,
    inputs: Sequence[dict[str, Any]] = (),
    outputs: Sequence[dict[str, Any]] = (),
    error: str | None = None,
) -> dict[str, Any]:
    """One Airflow task event as the provider writes it (the parts the view reads)."""
    run_facets: dict[str, Any] = {
        "airflow": {
            "_producer": PRODUCER,
            "_schemaURL": SCHEMA_URL,
            "dag": {"dag_id": dag_id},
            "task": {"task_id": task_id},
        }
    }
    if error is not None:
        run_facets["errorMessage"] = facet(
            "ErrorMessageRunFacet", {"message": error, "programmingLanguage": "python"}
        )
    return {
        "eventTime": time.isoformat(),
        "eventType": event_type,
        "producer": PRODUCER,
        "schemaURL": SCHEMA_URL,
        "run": {"runId": run_id, "facets": run_facets},
        "job": {
            "namespace": "default",
            "name": f"{dag_id}.{task_id}",
            "facets": {
                "jobType": facet(
                    "JobTypeJobFacet",
                    {"processingType": "BATCH", "integration": "AIRFLOW", "jobType": "TASK"},
                )
            },
        },
        "inputs": list(inputs),
        "outputs": list(outputs),
    }


def dataset(
    namespace: str,
    name: str,
    fields: list[tuple[str, str]],
    *,
    lineage: dict[str, list[tuple[str, str, str, str, str]]] | None = None,
    dataset_lineage: Sequence[tuple[str, str, str, str, str]] = (),
    lifecycle: str | None = None,
    rows: int | None = None,
) -> dict[str, Any]:
    """A dataset; ``lineage`` maps an output field to (namespace, name, field, type, subtype) inputs."""
    facets: dict[str, Any] = {
        "schema": facet("SchemaDatasetFacet", {"fields": [{"name": n, "type": t} for n, t in fields]})
    }

    def inputs(items: Any) -> list[dict[str, Any]]:
        return [
            {"namespace": ns, "name": nm, "field": f, "transformations": [{"type": kind, "subtype": sub}]}
            for ns, nm, f, kind, sub in items
        ]

    if lineage is not None:
        body: dict[str, Any] = {
            "fields": {out: {"inputFields": inputs(items)} for out, items in lineage.items()}
        }
        if dataset_lineage:
            body["dataset"] = inputs(dataset_lineage)
        facets["columnLineage"] = facet("ColumnLineageDatasetFacet", body)
    if lifecycle is not None:
        facets["lifecycleStateChange"] = facet(
            "LifecycleStateChangeDatasetFacet", {"lifecycleStateChange": lifecycle}
        )
    item: dict[str, Any] = {"namespace": namespace, "name": name, "facets": facets}
    if rows is not None:
        item["outputFacets"] = {
            "outputStatistics": facet("OutputStatisticsOutputDatasetFacet", {"rowCount": rows})
        }
    return item


def synthetic_events(
    jobs: int = 500, datasets: int = 2000, columns: int = 8, seed: int = 0
) -> Iterator[dict[str, Any]]:
    """START and COMPLETE (every 50th task: FAIL) per task, 25 tasks per DAG; each task reads one
    source and 1-2 recent outputs of its DAG, and writes its share of the rest, every output
    column fed by an input column."""
    rng = random.Random(seed)
    outputs_per_job = max(1, (datasets - jobs) // jobs)
    sources = max(1, datasets - outputs_per_job * jobs)
    names = [f"/warehouse/source/s{i:05d}" for i in range(sources)]
    fields = [(f"c{i}", rng.choice(["string", "long", "double", "date"])) for i in range(columns)]
    unread = list(names)
    dag_outputs: dict[str, list[str]] = {}
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for index in range(jobs):
        dag_id, task_id = f"dag_{index // 25:03d}", f"task_{index:04d}"
        recent = dag_outputs.setdefault(dag_id, [])[-6:]
        reads = unread[:1] + rng.sample(recent, k=min(len(recent), rng.randint(1, 2)))
        del unread[:1]
        writes = [f"/warehouse/d{index:04d}/out{k}" for k in range(outputs_per_job)]
        run_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        time = start + timedelta(minutes=index)
        inputs = [dataset("file", r, fields) for r in reads]
        outs = []
        for name in writes:
            lineage = {
                f: [
                    (
                        "file",
                        rng.choice(reads),
                        rng.choice(fields)[0],
                        "DIRECT",
                        rng.choice(["IDENTITY", "TRANSFORMATION", "AGGREGATION"]),
                    )
                ]
                for f, _ in fields
            }
            filters = [("file", reads[0], fields[0][0], "INDIRECT", "FILTER")]
            outs.append(
                dataset(
                    "file",
                    name,
                    fields,
                    lineage=lineage,
                    dataset_lineage=filters,
                    lifecycle="OVERWRITE",
                    rows=rng.randint(1, 10**6),
                )
            )
        failed = index % 50 == 49
        yield task_event(dag_id, task_id, "START", run_id, time, inputs=inputs)
        yield task_event(
            dag_id,
            task_id,
            "FAIL" if failed else "COMPLETE",
            run_id,
            time + timedelta(seconds=30 + index % 17),
            inputs=inputs,
            outputs=outs,
            error=f"task {task_id} failed: synthetic error" if failed else None,
        )
        dag_outputs[dag_id].extend(writes)


def write_events(path: Path, events: Iterator[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for event in events:
            out.write(json.dumps(event, separators=(",", ":")) + "\n")
    return path
