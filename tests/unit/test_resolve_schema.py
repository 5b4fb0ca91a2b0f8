"""A dataset's schema across the records of one task (no JVM needed): a table created over files the task
just wrote (``CREATE TABLE ... USING parquet LOCATION``: its schema is read from the files later, the
command names none) keeps the schema the write gave; a later write's schema replaces an earlier one."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("openlineage.client")

from lineage_operators.spark.facts import ExecutionFacts, RelationFacts, TableRef
from lineage_operators.spark.resolve import resolve
from lineage_operators.spark.session_facts import NamingContext

LOCATION = "file:/data/summary"


def _struct(*names: str) -> str:
    fields = [{"name": n, "type": "string", "nullable": True, "metadata": {}} for n in names]
    return json.dumps({"type": "struct", "fields": fields}, separators=(",", ":"))


def _fields(*schemas: str) -> list[str] | None:
    records = [
        ExecutionFacts("command", True, outputs=[RelationFacts(location=LOCATION, schema_text=text)])
        for text in schemas
    ]
    records.append(  # the table over the same location, its schema left to the files
        ExecutionFacts(
            "command",
            True,
            outputs=[RelationFacts(location=LOCATION, table=TableRef("default", "t"), schema_text=_struct())],
        )
    )
    _, (dataset,), _ = resolve(records, NamingContext(warehouse="/data/wh"))
    schema = dataset.facets.get("schema")
    return None if schema is None else [f.name for f in schema.fields]


@pytest.mark.parametrize(
    ("writes", "expected"),
    [
        ((_struct("segment", "revenue"),), ["segment", "revenue"]),
        ((_struct("a"), _struct("a", "b")), ["a", "b"]),  # the last write's columns
        ((), None),  # a table with no columns known: no schema facet, as before
    ],
    ids=["write_then_table", "two_writes_then_table", "table_alone"],
)
def test_a_table_with_no_columns_keeps_the_schema_the_write_gave(writes: tuple[str, ...], expected) -> None:
    assert _fields(*writes) == expected
