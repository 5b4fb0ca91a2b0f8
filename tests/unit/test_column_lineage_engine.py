"""The plan engine on real analyzed plans recorded from Spark 4 (column_lineage_plans/*.json).

One row per rule: the plan sample, then each output column's sources and the dataset-wide sources,
written as ``{"table.column": "SUBTYPE ..."}`` (``*`` marks masking). The cases ported from
openlineage-spark's ColumnLineageWithTransformationTypesTest say so. ``record_plans.py`` holds the
query of each sample and regenerates them.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from lineage_operators.column_lineage import DIRECT, INDIRECT, SourceColumn, Transformation, lineage_of_plan

PLANS = Path(__file__).parent / "column_lineage_plans"
DIRECT_SUBTYPES = {"IDENTITY", "TRANSFORMATION", "AGGREGATION"}

Expected = dict[str, str]


def load(name: str) -> list[Any]:
    return json.loads((PLANS / f"{name}.json").read_text())


def table_columns(items: Any) -> dict[int, str]:
    """exprId -> "table.column" for leaves right under a SubqueryAlias (tables, views' tables)."""
    found: dict[int, str] = {}
    pending: list[Any] = [items]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            pending.extend(value.values())
            continue
        if not isinstance(value, list):
            continue
        pending.extend(value)
        for alias, leaf in itertools.pairwise(value):
            if (
                isinstance(alias, dict)
                and str(alias.get("class", "")).endswith(".SubqueryAlias")
                and isinstance(leaf, dict)
                and leaf.get("num-children") == 0
            ):
                for field in ("output", "dataCols", "partitionCols"):
                    for attr in leaf.get(field) or []:
                        ident = attr[0]["exprId"]["id"]
                        found.setdefault(ident, f"{alias['identifier']['name']}.{attr[0]['name']}")
    return found


def readable(columns: dict[SourceColumn, frozenset[Transformation]], names: dict[int, str]) -> Expected:
    merged: dict[str, set[str]] = {}
    for column, kinds in columns.items():
        label = names.get(column.expr_id, column.name)
        merged.setdefault(label, set()).update(k.subtype + ("*" if k.masking else "") for k in kinds)
    return {label: " ".join(sorted(kinds)) for label, kinds in merged.items()}


def row(name: str, fields: dict[str, Expected], dataset: Expected) -> Any:
    return pytest.param(name, fields, dataset, id=name)


ROWS = [
    # sum(...) FILTER (WHERE ...)
    row("aggregate_filter", {"s": {"t1.a": "AGGREGATION", "t1.b": "FILTER"}}, {}),
    # OL simpleQueryOnlyAggregation: count masks
    row("aggregation_count", {"n": {"t1.a": "AGGREGATION*"}}, {}),
    # OL simpleQueryWithCaseWhenConditional
    row("case_when", {"cond": {"t1.a": "TRANSFORMATION", "t1.b": "CONDITIONAL TRANSFORMATION"}}, {}),
    # OL simpleQueryWithCoalesceConditional
    row(
        "coalesce", {"cond": {"t1.a": "CONDITIONAL TRANSFORMATION", "t1.b": "CONDITIONAL TRANSFORMATION"}}, {}
    ),
    row("count_star", {"n": {}, "nd": {"t1.c": "AGGREGATION*"}}, {}),
    # a whole CTAS command: its nested query is walked
    row("ctas", {"a": {"t1.a": "IDENTITY"}, "c2": {"t1.c": "TRANSFORMATION"}}, {"t1.b": "FILTER"}),
    # CTE refs map positionally to the definition's output
    row(
        "cte",
        {"a": {"t1.a": "IDENTITY"}, "s": {"t1.b": "AGGREGATION"}, "b2": {"t1.b": "TRANSFORMATION"}},
        {"t1.a": "FILTER GROUP_BY JOIN", "t1.c": "FILTER"},
    ),
    row(
        "cube",
        {"k": {"t3.k": "IDENTITY"}, "ts": {"t3.ts": "IDENTITY"}, "n": {}},
        {"t3.k": "GROUP_BY", "t3.ts": "GROUP_BY"},
    ),
    # a cached DataFrame's analyzed plan is the plain one
    row("df_cached", {"uc": {"t1.c": "TRANSFORMATION"}, "a": {"t1.a": "IDENTITY"}}, {"t1.a": "FILTER"}),
    # dropDuplicates: GROUP BY keys, first() of the other columns
    row(
        "df_drop_duplicates",
        {"a": {"t1.a": "IDENTITY"}, "b": {"t1.b": "AGGREGATION"}, "c": {"t1.c": "AGGREGATION"}},
        {"t1.a": "GROUP_BY"},
    ),
    row(
        "df_join_using",
        {"a": {"t1.a": "IDENTITY"}, "c": {"t1.c": "IDENTITY"}, "d": {"t2.d": "IDENTITY"}},
        {"t1.a": "JOIN", "t2.a": "FILTER JOIN"},
    ),
    row("df_local_relation", {"n1": {"n": "TRANSFORMATION"}}, {}),
    row("df_logical_rdd", {"s": {"s": "IDENTITY"}}, {}),
    # pivot: the pivot column decides the bucket (CONDITIONAL)
    row(
        "df_pivot",
        {
            "k": {"t3.k": "IDENTITY"},
            "1": {"t3.amount": "AGGREGATION", "t3.ts": "CONDITIONAL"},
            "2": {"t3.amount": "AGGREGATION", "t3.ts": "CONDITIONAL"},
        },
        {"t3.k": "GROUP_BY", "t3.ts": "GROUP_BY"},
    ),
    row("df_repartition_sample_limit", {"c": {"t1.c": "IDENTITY"}}, {}),
    row(
        "df_union_by_name",
        {"a": {"t1.a": "IDENTITY", "t2.a": "IDENTITY"}, "c": {"t1.c": "IDENTITY", "t2.c": "IDENTITY"}},
        {},
    ),
    # DataSource V2 leaf
    row("df_v2_relation", {"a2": {"a": "TRANSFORMATION"}, "c": {"c": "IDENTITY"}}, {"b": "FILTER"}),
    row(
        "df_window",
        {
            "k": {"t3.k": "IDENTITY"},
            "prev": {"t3.amount": "TRANSFORMATION", "t3.k": "WINDOW", "t3.ts": "WINDOW"},
            "run": {"t3.amount": "AGGREGATION", "t3.k": "WINDOW", "t3.ts": "WINDOW"},
        },
        {},
    ),
    row(
        "df_with_column_chain",
        {
            "a": {"t1.a": "IDENTITY"},
            "label": {"t1.c": "IDENTITY"},
            "a2": {"t1.a": "TRANSFORMATION"},
            "a3": {"t1.a": "TRANSFORMATION", "t1.b": "TRANSFORMATION"},
        },
        {},
    ),
    # OL simpleDistinctQuery
    row("distinct", {"a": {"t1.a": "IDENTITY"}}, {"t1.a": "GROUP_BY"}),
    # EXCEPT ALL: no DISTINCT
    row("except_all", {"a": {"t1.a": "IDENTITY"}}, {"t1.a": "JOIN", "t2.d": "JOIN"}),
    # OL simpleQueryExplode: no dataset entry. Spark's optimizer infers a filter under a generator
    # of a column only (InferFiltersFromGenerate), not of an expression such as split(c, ' ')
    row("explode", {"a": {"t1.c": "TRANSFORMATION"}}, {}),
    # a generator of a column: the rows of a null or empty collection are filtered out (FILTER)
    row(
        "explode_map",
        {
            "id": {"nested.id": "IDENTITY"},
            "key": {"nested.m": "TRANSFORMATION"},
            "value": {"nested.m": "TRANSFORMATION"},
        },
        {"nested.m": "FILTER"},
    ),
    # OL simpleQueryIndirect
    row("filter", {"a": {"t1.a": "IDENTITY"}}, {"t1.b": "FILTER"}),
    # ROLLUP through Expand
    row(
        "grouping_sets_rollup",
        {"k": {"t3.k": "IDENTITY"}, "ts": {"t3.ts": "IDENTITY"}, "total": {"t3.amount": "AGGREGATION"}},
        {"t3.k": "GROUP_BY", "t3.ts": "GROUP_BY"},
    ),
    row(
        "having",
        {"a": {"t1.a": "IDENTITY"}, "s": {"t1.b": "AGGREGATION"}},
        {"t1.a": "GROUP_BY", "t1.b": "FILTER"},
    ),
    # OL simpleQueryOnlyIdentity
    row("identity", {"a": {"t1.a": "IDENTITY"}}, {}),
    # OL simpleQueryWithIfConditional
    row("if", {"cond": {"t1.a": "TRANSFORMATION", "t1.b": "CONDITIONAL TRANSFORMATION"}}, {}),
    row(
        "inline",
        {
            "p": {"t1.a": "TRANSFORMATION", "t1.b": "TRANSFORMATION", "t1.c": "TRANSFORMATION"},
            "q": {"t1.a": "TRANSFORMATION", "t1.b": "TRANSFORMATION", "t1.c": "TRANSFORMATION"},
        },
        {},
    ),
    # INSERT INTO command: its child is walked
    row(
        "insert_into",
        {"a": {"t1.b": "IDENTITY"}, "c": {"t1.c": "IDENTITY"}, "d": {"t1.a": "TRANSFORMATION"}},
        {},
    ),
    row(
        "insert_overwrite",
        {"a": {"t1.a": "IDENTITY"}, "c": {"t1.c": "IDENTITY"}, "d": {"t1.b": "IDENTITY"}},
        {"t1.b": "FILTER"},
    ),
    # INTERSECT: semi join on every column under a DISTINCT
    row(
        "intersect",
        {"a": {"t1.a": "IDENTITY"}, "c": {"t1.c": "IDENTITY"}},
        {"t1.a": "GROUP_BY JOIN", "t1.c": "GROUP_BY JOIN", "t2.a": "JOIN", "t2.c": "JOIN"},
    ),
    # anti join outputs only the left side
    row(
        "join_anti",
        {"a": {"t1.a": "IDENTITY"}, "b": {"t1.b": "IDENTITY"}, "c": {"t1.c": "IDENTITY"}},
        {"t1.a": "JOIN", "t2.a": "FILTER JOIN"},
    ),
    row("join_cross", {"b": {"t1.b": "IDENTITY"}, "d": {"t2.d": "IDENTITY"}}, {}),
    # full outer: nothing inferred
    row(
        "join_full", {"b": {"t1.b": "IDENTITY"}, "d": {"t2.d": "IDENTITY"}}, {"t1.a": "JOIN", "t2.a": "JOIN"}
    ),
    # join keys: JOIN, and FILTER from the IS NOT NULL the optimizer infers on both sides
    row(
        "join_inner",
        {"a": {"t1.a": "IDENTITY"}, "c": {"t1.c": "IDENTITY"}, "d": {"t2.d": "IDENTITY"}},
        {"t1.a": "FILTER JOIN", "t2.a": "FILTER JOIN"},
    ),
    # left outer: inferred IS NOT NULL only on the right side
    row(
        "join_left",
        {"a": {"t1.a": "IDENTITY"}, "d": {"t2.d": "IDENTITY"}},
        {"t1.a": "JOIN", "t1.b": "JOIN", "t2.a": "FILTER JOIN", "t2.d": "FILTER JOIN"},
    ),
    # <=> is null-safe: nothing inferred
    row(
        "join_null_safe",
        {"b": {"t1.b": "IDENTITY"}, "d": {"t2.d": "IDENTITY"}},
        {"t1.a": "JOIN", "t2.a": "JOIN"},
    ),
    # right outer: inferred IS NOT NULL only on the left side
    row(
        "join_right",
        {"b": {"t1.b": "IDENTITY"}, "d": {"t2.d": "IDENTITY"}},
        {"t1.a": "FILTER JOIN", "t2.a": "JOIN"},
    ),
    # semi join outputs only the left side
    row(
        "join_semi",
        {"a": {"t1.a": "IDENTITY"}, "b": {"t1.b": "IDENTITY"}, "c": {"t1.c": "IDENTITY"}},
        {"t1.a": "FILTER JOIN", "t2.a": "FILTER JOIN"},
    ),
    # OL simpleQueryWindowedTransformation
    # LATERAL subquery: its columns join the left side's; its WHERE filters the rows
    row("lateral_join", {"a": {"t1.a": "IDENTITY"}, "x": {"t1.b": "TRANSFORMATION"}}, {"t1.c": "FILTER"}),
    row("lag", {"l": {"t1.a": "TRANSFORMATION", "t1.b": "WINDOW", "t1.c": "WINDOW"}}, {}),
    row("lambda", {"up": {"nested.arr": "TRANSFORMATION"}}, {}),
    # OL simpleQueryMasking, plus every hashing function
    row(
        "masking",
        {
            "i": {"t1.a": "IDENTITY"},
            "mt": {"t1.a": "TRANSFORMATION*"},
            "s": {"t1.b": "AGGREGATION"},
            "ma": {"t1.b": "AGGREGATION*"},
            "m5": {"t1.c": "TRANSFORMATION*"},
            "s2": {"t1.c": "TRANSFORMATION*"},
            "h": {"t1.a": "TRANSFORMATION*", "t1.c": "TRANSFORMATION*"},
            "xx": {"t1.c": "TRANSFORMATION*"},
            "crc": {"t1.c": "TRANSFORMATION*"},
        },
        {"t1.a": "GROUP_BY", "t1.c": "GROUP_BY"},
    ),
    # OL simpleQueryMultipleIndirect
    row(
        "multiple_indirect",
        {"a": {"t1.a": "IDENTITY"}, "c": {"t1.c": "IDENTITY"}},
        {"t1.a": "GROUP_BY", "t1.b": "FILTER", "t1.c": "GROUP_BY SORT"},
    ),
    # OL simpleQueryMultipleJoinsToSameTable
    row(
        "multiple_joins_same_table",
        {
            "oder_id": {"t1.a": "IDENTITY"},
            "order_date": {"t2.a": "IDENTITY"},
            "shipped_date": {"t2.a": "IDENTITY"},
        },
        {"t1.a": "FILTER JOIN", "t1.b": "FILTER JOIN", "t2.a": "FILTER JOIN", "t2.d": "FILTER JOIN"},
    ),
    # join + filter + window + aggregation + sort
    row(
        "nested_combo",
        {
            "seg": {"t1.c": "TRANSFORMATION"},
            "revenue": {"t1.b": "AGGREGATION", "t2.d": "AGGREGATION"},
            "best": {"t1.c": "WINDOW", "t2.d": "WINDOW"},
        },
        {
            "t1.a": "FILTER JOIN",
            "t1.b": "SORT",
            "t1.c": "GROUP_BY",
            "t2.a": "FILTER JOIN",
            "t2.c": "FILTER",
            "t2.d": "SORT",
        },
    ),
    # WITH RECURSIVE: the anchor's and the recursion's columns, the loop read back through the loop
    row(
        "recursive_cte",
        {"n": {"t3.ts": "IDENTITY TRANSFORMATION"}, "k": {"t3.k": "IDENTITY"}},
        {"t3.ts": "FILTER"},
    ),
    # UNPIVOT (an Expand); the IS NOT NULL Spark adds filters on the unpivoted columns
    row(
        "unpivot",
        {"k": {"t3.k": "IDENTITY"}, "kind": {}, "val": {"t3.amount": "IDENTITY", "t3.ts": "IDENTITY"}},
        {"t3.amount": "FILTER", "t3.ts": "FILTER"},
    ),
    # a Hive text table: HiveTableRelation (data and partition columns)
    row(
        "hive_table",
        {
            "a": {"hive_text.a": "IDENTITY"},
            "ub": {"hive_text.b": "TRANSFORMATION"},
            "p": {"hive_text.p": "IDENTITY"},
        },
        {"hive_text.p": "FILTER"},
    ),
    # nested fields are reported on the top-level column
    row(
        "nested_struct",
        {
            "id": {"nested.id": "IDENTITY"},
            "sx": {"nested.s": "TRANSFORMATION"},
            "whole": {"nested.s": "IDENTITY"},
            "uy": {"nested.s": "TRANSFORMATION"},
        },
        {},
    ),
    # OL simpleQueryWithNullIfConditional (Spark 4: With/NullIfResult)
    row("nullif", {"cond": {"t1.a": "CONDITIONAL TRANSFORMATION", "t1.b": "CONDITIONAL"}}, {}),
    # OL simpleQueryWithNvlConditional
    row("nvl", {"cond": {"t1.a": "CONDITIONAL TRANSFORMATION", "t1.b": "CONDITIONAL TRANSFORMATION"}}, {}),
    # OL simpleQueryWithNvl2Conditional
    row(
        "nvl2",
        {"cond": {"t1.a": "CONDITIONAL", "t1.b": "TRANSFORMATION", "t2.d": "TRANSFORMATION"}},
        {"t1.a": "FILTER JOIN", "t2.a": "FILTER JOIN"},
    ),
    row("one_row", {"one": {}, "d": {}}, {}),
    # trace through a persistent view (its up-casts are identity)
    row("persistent_view", {"out": {"t1.b": "IDENTITY"}}, {"t1.a": "FILTER"}),
    row(
        "pivot",
        {
            "k": {"t3.k": "IDENTITY"},
            "one": {"t3.amount": "AGGREGATION", "t3.ts": "CONDITIONAL"},
            "two": {"t3.amount": "AGGREGATION", "t3.ts": "CONDITIONAL"},
        },
        {"t3.k": "GROUP_BY", "t3.ts": "GROUP_BY"},
    ),
    row(
        "posexplode",
        {
            "id": {"nested.id": "IDENTITY"},
            "pos": {"nested.arr": "TRANSFORMATION"},
            "v": {"nested.arr": "TRANSFORMATION"},
        },
        {"nested.arr": "FILTER"},
    ),
    # OL simpleQueryPriorityDirect
    row(
        "priority_direct",
        {
            "i": {"t1.a": "IDENTITY"},
            "t": {"t1.a": "TRANSFORMATION"},
            "a": {"t1.b": "AGGREGATION"},
            "ta": {"t1.b": "AGGREGATION"},
            "tat": {"t1.b": "AGGREGATION"},
        },
        {"t1.a": "GROUP_BY"},
    ),
    row("range", {"dbl": {"id": "TRANSFORMATION"}}, {}),
    # OL simpleQueryRank: ranking reads only the window
    row("rank", {"a": {"t1.a": "IDENTITY"}, "rank": {"t1.b": "WINDOW", "t1.c": "WINDOW"}}, {}),
    # casts that keep the value are IDENTITY
    row(
        "rename_cast",
        {
            "x": {"t1.a": "IDENTITY"},
            "wide": {"t1.a": "IDENTITY"},
            "same": {"t1.a": "IDENTITY"},
            "narrow": {"t1.c": "TRANSFORMATION"},
        },
        {},
    ),
    row("repartition_hint", {"a": {"t1.a": "IDENTITY"}, "b": {"t1.b": "IDENTITY"}}, {}),
    row("row_number", {"a": {"t1.a": "IDENTITY"}, "rn": {"t1.b": "WINDOW", "t1.c": "WINDOW"}}, {}),
    row("sort_limit", {"a": {"t1.a": "IDENTITY"}}, {"t1.b": "SORT"}),
    row("struct_build", {"st": {"t1.a": "TRANSFORMATION", "t1.c": "TRANSFORMATION"}}, {}),
    # IN / EXISTS in WHERE: everything they read filters the rows
    row(
        "subquery_in_exists",
        {"a": {"t1.a": "IDENTITY"}},
        {"t1.a": "FILTER", "t1.b": "FILTER", "t2.a": "FILTER", "t2.c": "FILTER", "t2.d": "FILTER"},
    ),
    row("subquery_not_in", {"a": {"t1.a": "IDENTITY"}}, {"t1.b": "FILTER", "t2.d": "FILTER"}),
    # correlated scalar subquery: its value and its conditions stay on the column
    row(
        "subquery_scalar",
        {"a": {"t1.a": "IDENTITY"}, "m": {"t1.c": "FILTER", "t2.c": "FILTER", "t2.d": "AGGREGATION"}},
        {},
    ),
    row("tablesample", {"a": {"t1.a": "IDENTITY"}}, {}),
    # trace through a temporary view
    row("temp_view", {"b2": {"t1.b": "TRANSFORMATION"}}, {}),
    # OL simpleQueryOnlyTransform
    row(
        "transform",
        {
            "c2": {"t1.c": "TRANSFORMATION"},
            "s": {"t1.a": "TRANSFORMATION", "t1.b": "TRANSFORMATION"},
            "u": {"t1.c": "TRANSFORMATION"},
        },
        {},
    ),
    # OL union (+ a widening and a narrowing cast)
    row(
        "union_all",
        {
            "a": {"t1.a": "IDENTITY", "t2.a": "IDENTITY"},
            "b": {"t1.b": "IDENTITY", "t2.c": "TRANSFORMATION"},
            "source": {},  # a literal: an output column with no source
        },
        {},
    ),
    # UNION DISTINCT: no GROUP BY (as OL's Aggregate-over-Union rule)
    row("union_distinct", {"a": {"t1.a": "IDENTITY", "t2.d": "IDENTITY"}}, {}),
    row("values", {"v": {"col1": "IDENTITY"}}, {}),
    # OL simpleQueryWindowedAggregate
    row("windowed_aggregate", {"s": {"t1.a": "AGGREGATION", "t1.b": "WINDOW", "t1.c": "WINDOW"}}, {}),
]


@pytest.mark.parametrize(("name", "fields", "dataset"), ROWS)
def test_recorded_plan(name: str, fields: dict[str, Expected], dataset: Expected) -> None:
    items = load(name)
    names = table_columns(items)
    lineage = lineage_of_plan(json.dumps(items))
    assert lineage.unknown_nodes == ()
    assert {out: readable(columns, names) for out, columns in lineage.fields.items()} == fields
    assert readable(lineage.dataset, names) == dataset


def test_every_sample_has_a_row() -> None:
    assert {p.stem for p in PLANS.glob("*.json")} == {r.values[0] for r in ROWS}


@pytest.mark.parametrize("name", [r.values[0] for r in ROWS])
def test_types_match_subtypes_and_sources_are_leaf_columns(name: str) -> None:
    """DIRECT for the value subtypes, INDIRECT for the others; sources carry their leaf's name."""
    items = load(name)
    lineage = lineage_of_plan(items)
    leaf_names = {ident: label.split(".")[-1] for ident, label in table_columns(items).items()}
    for columns in [*lineage.fields.values(), lineage.dataset]:
        for column, kinds in columns.items():
            assert column.name
            assert leaf_names.get(column.expr_id, column.name) == column.name
            assert kinds
            for kind in kinds:
                assert kind.type == (DIRECT if kind.subtype in DIRECT_SUBTYPES else INDIRECT)


def test_output_names_rename_positionally() -> None:
    """The written names replace the query's, by position (INSERT INTO by position)."""
    lineage = lineage_of_plan(load("insert_into"), ["x", "y"])
    assert list(lineage.fields) == ["x", "y"]
    assert {c.name for c in lineage.fields["x"]} == {"b"}
    assert {c.name for c in lineage.fields["y"]} == {"c"}


def test_query_and_whole_command_agree() -> None:
    """The CTAS sample is a whole command; its nested query alone gives the same lineage."""
    command = load("ctas")
    assert lineage_of_plan(command[0]["query"]) == lineage_of_plan(command)


def test_same_source_through_two_paths_is_one_entry_with_both_types() -> None:
    columns = lineage_of_plan(load("case_when")).fields["cond"]
    by_name = {c.name: kinds for c, kinds in columns.items()}
    assert by_name["b"] == {
        Transformation(DIRECT, "TRANSFORMATION"),
        Transformation(INDIRECT, "CONDITIONAL"),
    }
