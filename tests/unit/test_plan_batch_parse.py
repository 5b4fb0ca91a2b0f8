"""Parsing the one-call read's reply (``plan_batch.parse``): parts, absent fields, malformed replies."""

from __future__ import annotations

from lineage_operators.spark.jvm.text import NONE, PART, RSEP, SEP
from lineage_operators.spark.plan.batch import parse


def _reply(*parts: str) -> str:
    return PART.join(parts)


def test_parts_of_a_write():
    leaf = SEP.join(["LogicalRelation", "HadoopFsRelation", "parquet", "/d", "", "17"])
    text = _reply(
        "7",
        "q-1",
        "root",
        leaf + RSEP + leaf,
        "17" + SEP + "{}",
        "s",
        "0",
        "3" + SEP + "a",
        "Map()",
        "o" + SEP + "{}",
        "file:/w/t" + SEP + "2",
    )
    got = parse(text)
    assert got is not None
    assert got.analyzed
    assert (got.qe_id, got.query_id, got.root_text) == (7, "q-1", "root")
    assert got.leaf_records == [[*leaf.split(SEP)]] * 2
    assert (got.schema_text, got.stats_text, got.has_logical_rdd) == ("17" + SEP + "{}", "s", False)
    assert (got.query_facts, got.metrics_text, got.observed_text) == (
        "3" + SEP + "a",
        "Map()",
        "o" + SEP + "{}",
    )
    assert got.scans_text == "file:/w/t" + SEP + "2"


def test_absent_ids_and_metrics_are_none():
    got = parse(_reply(NONE, NONE, "root", "", "", "", "1", NONE, NONE, NONE, NONE))
    assert got is not None
    assert (got.qe_id, got.query_id, got.metrics_text, got.has_logical_rdd) == (None, None, None, True)
    assert (got.observed_text, got.scans_text) == (None, None)
    assert got.leaf_records == []


def test_failed_analysis():
    got = parse(_reply("3", "qe:3", "!"))
    assert got is not None
    assert (got.analyzed, got.qe_id) == (False, 3)


def test_a_stray_separator_falls_back_to_the_step_by_step_read():
    assert (
        parse(_reply("1", "k", "root with " + PART + " inside", "", "", "", "0", NONE, NONE, NONE, NONE))
        is None
    )
    assert parse(None) is None
    assert parse(_reply("1", "k")) is None


def test_the_written_plan_part_only_when_asked_for():
    parts = ("7", "q", "root", "", "", "", "0", "2" + SEP + "a", NONE, NONE, NONE)
    got = parse(_reply(*parts, '=[{"class":"Project"}]'), with_plan=True)
    assert got is not None
    assert got.plan_json == '=[{"class":"Project"}]'
    assert parse(_reply(*parts, NONE), with_plan=True).plan_json is None  # type: ignore[union-attr]
    # without the request, a twelfth part is a stray separator: read step by step
    assert parse(_reply(*parts, "=[]")) is None
    assert parse(_reply(*parts), with_plan=True) is None
    assert parse(_reply(*parts)).plan_json is None  # type: ignore[union-attr]
