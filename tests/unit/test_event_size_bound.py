"""A read of 100,000 partition locations makes a small event: the ``subset`` facet's list is bounded.

The issue's rule: no event grows by more than the subset facet's bounded list. The event is built
as the benchmarks build it (``benchmarks.event.complete_event_json``: the provider's dataset
objects, the client's ``Serde``) from what ``resolve`` makes of the capture's plain facts.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

pytest.importorskip("openlineage.client")
pytest.importorskip("airflow.providers.openlineage")

from benchmarks.event import complete_event_json

from lineage_operators.mixin import _to_openlineage
from lineage_operators.spark.facts import ExecutionFacts, RelationFacts
from lineage_operators.spark.resolve import resolve
from lineage_operators.spark.session_facts import DEFAULT_SUBSET_LIMIT, NamingContext

SCHEMA = json.dumps(
    {
        "type": "struct",
        "fields": [
            {"name": "id", "type": "long", "nullable": True, "metadata": {}},
            {"name": "dt", "type": "string", "nullable": True, "metadata": {}},
        ],
    }
)


TABLE = "/data/warehouse/events"


def _partitions(count: int) -> list[str]:
    return [f"file:{TABLE}/hour={index:06d}" for index in range(count)]


def _event_bytes(locations: list[str]) -> int:
    """The COMPLETE event of a task that read ``locations`` (each a folder of one table)."""
    reads = [
        RelationFacts(location=location, schema_text=SCHEMA, file_format="parquet", size=100, files=1)
        for location in locations
    ]
    inputs, outputs, _ = resolve([ExecutionFacts("collect", True, inputs=reads)], NamingContext())
    assert [d.name for d in inputs] == [TABLE]
    lineage = SimpleNamespace(
        inputs=_to_openlineage(inputs, "input", "t"),
        outputs=_to_openlineage(outputs, "output", "t"),
        run_facets={},
        job_facets={},
    )
    return len(complete_event_json(lineage, "dag.task").encode())


def test_event_grows_by_the_bounded_subset_list_only() -> None:
    whole = _event_bytes([f"file:{TABLE}"])  # the table itself: no subset facet
    thousand, hundred_thousand = _event_bytes(_partitions(1_000)), _event_bytes(_partitions(100_000))
    kept = [p.removeprefix("file:") for p in _partitions(DEFAULT_SUBSET_LIMIT)]
    bounded_list = len(json.dumps(kept))
    facet_envelope = 512  # _producer, _schemaURL, type, omittedLocations
    assert bounded_list < hundred_thousand - whole <= bounded_list + facet_envelope
    # 1,000 or 100,000 locations: the same event but for the digits of the counts (omitted, size, files)
    assert 0 <= hundred_thousand - thousand <= 8
    assert hundred_thousand < 12 * 1024
