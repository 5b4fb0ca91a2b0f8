"""The COMPLETE event the provider would emit for a task, serialized, and what is inside it.

The provider wraps the operator's ``OperatorLineage`` into a ``RunEvent``; the part this library
controls is the datasets and facets. So the event is built from exactly those, with the client's
own ``Serde.to_json``, and then checked for what would make events unusably large: one dataset
per file, or a dump of a Spark plan in a facet.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

MAX_NAMES = 20
PRODUCER = "https://github.com/lineage-operators/benchmarks"
# Facets known to carry whole plans in the OpenLineage Spark integration, and plan-dump text.
PLAN_FACETS = ("spark.logicalPlan", "spark_unknown", "logicalPlan")
PLAN_TEXT = re.compile(r"(\+- |:- |== (Parsed|Analyzed|Optimized|Physical) (Logical )?Plan ==|Relation\[)")


@dataclass
class EventInspection:
    bytes: int
    input_datasets: int
    output_datasets: int
    per_file_datasets: int
    plan_dumps: int
    longest_string: int
    #: Output columns with a ``columnLineage`` entry, and their input fields, over all outputs.
    column_lineage_fields: int = 0
    column_lineage_input_fields: int = 0
    #: ``namespace/name`` of the first datasets, to see at a glance what was reported.
    dataset_names: list[str] = field(default_factory=list)
    #: Serialized bytes of each dataset facet kind, summed over the datasets (``subset``,
    #: ``columnLineage``...): what each contributes to ``bytes``.
    facet_bytes: dict[str, int] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return dict(vars(self))


def complete_event_json(lineage: Any, job_name: str) -> str:
    """Serialize ``lineage`` (an ``OperatorLineage``) as the COMPLETE ``RunEvent`` of one task run."""
    from openlineage.client.event_v2 import Job, Run, RunEvent, RunState
    from openlineage.client.serde import Serde

    event = RunEvent(
        eventType=RunState.COMPLETE,
        eventTime=datetime.now(timezone.utc).isoformat(),
        run=Run(runId=str(uuid.uuid4()), facets=dict(lineage.run_facets or {})),
        job=Job(namespace="benchmarks", name=job_name, facets=dict(lineage.job_facets or {})),
        producer=PRODUCER,
        inputs=list(lineage.inputs or []),
        outputs=list(lineage.outputs or []),
    )
    return str(Serde.to_json(event))


def inspect_event(text: str, file_names: set[str]) -> EventInspection:
    """``file_names``: base names of the job's input files; a dataset named after one is per-file."""
    event = json.loads(text)
    datasets = [*event.get("inputs", []), *event.get("outputs", [])]
    per_file = sum(1 for d in datasets if d.get("name", "").rstrip("/").rsplit("/", 1)[-1] in file_names)
    strings = list(_strings(event))
    plan_dumps = sum(1 for s in strings if PLAN_TEXT.search(s)) + sum(
        1 for key in _keys(event) if key in PLAN_FACETS
    )
    facets = [d.get("facets", {}).get("columnLineage") for d in event.get("outputs", [])]
    column_fields = [f for facet in facets if facet for f in facet.get("fields", {}).values()]
    return EventInspection(
        bytes=len(text.encode()),
        input_datasets=len(event.get("inputs", [])),
        output_datasets=len(event.get("outputs", [])),
        per_file_datasets=per_file,
        plan_dumps=plan_dumps,
        longest_string=max((len(s) for s in strings), default=0),
        column_lineage_fields=len(column_fields),
        column_lineage_input_fields=sum(len(f.get("inputFields", [])) for f in column_fields),
        dataset_names=[f"{d.get('namespace')}/{d.get('name')}" for d in datasets[:MAX_NAMES]],
        facet_bytes=facet_bytes(datasets),
    )


def facet_bytes(datasets: list[dict[str, Any]]) -> dict[str, int]:
    """Bytes of each dataset facet as ``Serde.to_json`` writes it (with its key), summed by facet name."""
    sizes: dict[str, int] = {}
    for dataset in datasets:
        for group in ("facets", "inputFacets", "outputFacets"):
            for name, body in (dataset.get(group) or {}).items():
                size = len(json.dumps({name: body}, sort_keys=True).encode()) - 2  # without the braces
                sizes[name] = sizes.get(name, 0) + size
    return dict(sorted(sizes.items(), key=lambda item: -item[1]))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item)
