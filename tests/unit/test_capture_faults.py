"""Capture faults without a JVM: callbacks never raise into Spark, one bad facet loses only itself
(issue 14 items 6 and 9; the same faults run on real Spark in tests/system/test_fault_matrix.py)."""

from __future__ import annotations

import json
import logging

import pytest

from lineage_operators import facets
from lineage_operators.spark.facts import ExecutionFacts, RelationFacts
from lineage_operators.spark.listen.listener import QueryListener
from lineage_operators.spark.resolve import resolve
from lineage_operators.spark.session_facts import NamingContext

SCHEMA = json.dumps(
    {"type": "struct", "fields": [{"name": "id", "type": "long", "nullable": True, "metadata": {}}]}
)
BOOM = SCHEMA.replace('"id"', '"boom"')


def test_a_raising_sink_is_one_warning_and_never_reaches_spark(caplog):
    calls: list[str] = []

    def sink(func_name: str, qe: object, succeeded: bool) -> None:
        calls.append(func_name)
        raise RuntimeError("sink bug")

    listener = QueryListener(sink)
    listener.onSuccess("save", object(), 1)
    listener.onFailure("collect", object(), object())
    assert calls == ["save", "collect"]
    assert listener.in_flight == 0
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "RuntimeError: sink bug" in warnings[0]


def test_a_disabled_listener_does_not_call_the_sink():
    listener = QueryListener(lambda *args: pytest.fail("called"))
    listener.enabled = False
    listener.onSuccess("save", object(), 1)


def test_one_failing_facet_is_dropped_alone(monkeypatch, caplog):
    schema_facet = facets.schema_facet

    def bad(text: str):
        if "boom" in text:
            raise KeyError("facet builder bug")
        return schema_facet(text)

    monkeypatch.setattr(facets, "schema_facet", bad)
    execution = ExecutionFacts(
        "save",
        True,
        outputs=[
            RelationFacts(location="file:/data/boom", schema_text=BOOM),
            RelationFacts(location="file:/data/fine", schema_text=SCHEMA),
        ],
    )
    _, outputs, _ = resolve([execution], NamingContext())
    by_name = {d.name: d for d in outputs}
    assert set(by_name) == {"/data/boom", "/data/fine"}
    assert "schema" not in by_name["/data/boom"].facets
    assert "dataSource" in by_name["/data/boom"].facets
    assert "schema" in by_name["/data/fine"].facets
    assert any("dropped the schema facet of /data/boom" in r.getMessage() for r in caplog.records)


def test_a_relation_that_cannot_be_read_is_dropped_alone(monkeypatch, caplog):
    from lineage_operators.spark import resolve as resolve_module

    original = resolve_module._symlink

    def broken(rel, ctx):
        if rel.location and "bad" in rel.location:
            raise AttributeError("unexpected plan shape")
        return original(rel, ctx)

    monkeypatch.setattr(resolve_module, "_symlink", broken)
    execution = ExecutionFacts(
        "save",
        True,
        outputs=[RelationFacts(location="file:/data/bad"), RelationFacts(location="file:/data/ok")],
    )
    _, outputs, _ = resolve([execution], NamingContext())
    assert [d.name for d in outputs] == ["/data/ok"]
    assert any("dropped a relation" in r.getMessage() for r in caplog.records)
