"""Parsing the one-call read's reply (``plan_batch.parse``) into the intermediate both readings make:
parts, absent fields, the execution's key, malformed replies."""

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
        "o" + SEP + '{"rowCount":3}' + SEP + "12",
        "file:/w/t" + SEP + "2",
    )
    got = parse(text, has_query_id=True)
    assert got is not None
    assert got.analyzed
    assert (got.qe_id, got.query_id, got.root_text) == (7, "q-1", "root")
    assert got.leaf_records == [[*leaf.split(SEP)]] * 2
    assert (got.schema_text, got.stats_text, got.has_logical_rdd) == ("17" + SEP + "{}", "s", False)
    assert (got.query_facts, got.metrics_text) == ("3" + SEP + "a", "Map()")
    assert [(o.name, o.values, o.read_expr_id) for o in got.observations] == [("o", {"rowCount": 3}, 12)]
    assert [(s.location, s.files) for s in got.scans] == [("file:/w/t", 2)]


def test_absent_ids_and_metrics_are_none():
    got = parse(_reply(NONE, NONE, "root", "", "", "", "1", NONE, NONE, NONE, NONE))
    assert got is not None
    assert (got.qe_id, got.query_id, got.metrics_text, got.has_logical_rdd) == (None, None, None, True)
    assert (got.observations, got.scans, got.schema_text, got.stats_text) == ([], [], None, None)
    assert got.leaf_records == []


def test_the_key_is_the_query_id_on_4_2_else_made_of_the_execution_id():
    parts = ("root", "", "", "", "0", NONE, NONE, NONE, NONE)
    assert parse(_reply("5", NONE, *parts)).query_id == "qe:5"  # type: ignore[union-attr]
    assert parse(_reply("5", "uuid-1", *parts), has_query_id=True).query_id == "uuid-1"  # type: ignore[union-attr]
    assert parse(_reply("5", NONE, *parts), has_query_id=True).query_id is None  # type: ignore[union-attr]


def test_failed_analysis():
    got = parse(_reply("3", NONE, "!"))
    assert got is not None
    assert (got.analyzed, got.qe_id, got.query_id) == (False, 3, "qe:3")


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
