"""What the engine emulates of Spark's optimizer, and when: the entries openlineage-spark reports.

openlineage-spark walks the optimized plan of most writes, where the optimizer has added filters
the user never wrote; the engine adds them where the optimizer does (``optimized=True``) and
nowhere else, and reads a V1 CTAS's query as analyzed (``optimized=False``), as the jar does.
Each expectation is the live jar's answer (tests/peer: corpus jobs ``inferred_*``):

* a filter under ``explode`` / ``posexplode`` / ``inline`` of a *column* (``InferFiltersFromGenerate``),
  none under a generator of an expression (``split(a, ' ')``: openlineage-spark's own
  ``simpleQueryExplode``), of a column holding ``array(...)``, nor under ``explode_outer``;
* with ``optimized=False``: no ``IS NOT NULL`` on join keys, no GROUP BY for DISTINCT,
  dropDuplicates, INTERSECT or EXCEPT, no generator filter, ``If(c, x, x)`` read as written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_column_lineage_engine_rules import alias, attr, fn, kinds, node, project, rel

from lineage_operators.column_lineage import SourceColumn, lineage_of_plan
from lineage_operators.column_lineage.mapping import DatasetColumnLineage, InputColumn
from lineage_operators.column_lineage.merge import Write, merge_outputs, without_nested_writes
from lineage_operators.model import DatasetName

PLANS = Path(__file__).parent / "column_lineage_plans"
ARR = attr(1, "arr", {"type": "array", "elementType": "string", "containsNull": True})
A, S = SourceColumn(1, "arr"), SourceColumn(2, "s")
T = rel(ARR, attr(2, "s", "string"))


def generate(child: list[dict[str, Any]], generator: list[dict[str, Any]], outer: bool = False) -> Any:
    """``SELECT <generator> AS v FROM child``, as the analyzer makes it."""
    plan = node(
        "Generate",
        child,
        generator=generator,
        unrequiredChildIndex=[],
        outer=outer,
        generatorOutput=[attr(50, "v", "string")],
    )
    return project(plan, attr(50, "v", "string"))


SPLIT = fn("StringSplit", attr(2, "s", "string"), fn("Literal", value=" "))


@pytest.mark.parametrize(
    ("plan", "dataset"),
    [
        pytest.param(generate(T, fn("Explode", ARR)), {A: kinds("FILTER")}, id="explode-of-a-column"),
        pytest.param(generate(T, fn("PosExplode", ARR)), {A: kinds("FILTER")}, id="posexplode-of-a-column"),
        pytest.param(generate(T, fn("Inline", ARR)), {A: kinds("FILTER")}, id="inline-of-a-column"),
        pytest.param(generate(T, fn("Explode", ARR), outer=True), {}, id="explode-outer"),
        pytest.param(generate(T, fn("Explode", SPLIT)), {}, id="explode-of-an-expression"),
        pytest.param(
            generate(project(T, alias(20, "x", SPLIT)), fn("Explode", attr(20, "x"))),
            {S: kinds("FILTER")},
            id="explode-of-a-column-aliasing-an-expression",
        ),
        pytest.param(
            generate(
                project(T, alias(20, "x", fn("CreateArray", attr(2, "s"), attr(2, "s")))),
                fn("Explode", attr(20, "x")),
            ),
            {},
            id="explode-of-a-column-holding-array()",
        ),
        pytest.param(
            generate(
                project(
                    project(T, alias(20, "x", fn("CreateMap", attr(2, "s"), attr(2, "s")))),
                    alias(21, "y", fn("Cast", attr(20, "x"), dataType="map")),
                ),
                fn("Explode", attr(21, "y")),
            ),
            {},
            id="explode-of-a-renamed-map()",
        ),
        pytest.param(generate(T, fn("JsonTuple", attr(2, "s"))), {}, id="a-generator-that-keeps-rows"),
    ],
)
def test_generator_filter_only_where_spark_infers_it(plan: Any, dataset: dict[SourceColumn, Any]) -> None:
    lineage = lineage_of_plan(plan)
    assert lineage.dataset == dataset
    assert lineage.unknown_nodes == ()
    assert lineage_of_plan(plan, optimized=False).dataset == {}


def _labels(columns: Any, names: dict[int, str]) -> dict[str, set[str]]:
    return {names.get(c.expr_id, c.name): {k.subtype for k in kinds_} for c, kinds_ in columns.items()}


def _leaf_names(items: Any) -> dict[int, str]:
    """exprId -> "table.column" of the recorded plan's leaves (see test_column_lineage_engine)."""
    from test_column_lineage_engine import table_columns

    return table_columns(items)


# Recorded analyzed plans (column_lineage_plans/): (optimized, analyzed) dataset-wide entries and,
# where they differ, fields. The optimized column is what test_column_lineage_engine checks too.
ANALYZED = [
    pytest.param(
        "join_inner",
        {"t1.a": {"JOIN", "FILTER"}, "t2.a": {"JOIN", "FILTER"}},
        {"t1.a": {"JOIN"}, "t2.a": {"JOIN"}},
        None,
        id="inner-join-keys",
    ),
    pytest.param("distinct", {"t1.a": {"GROUP_BY"}}, {}, None, id="distinct"),
    pytest.param(
        "intersect",
        {"t1.a": {"GROUP_BY", "JOIN"}, "t1.c": {"GROUP_BY", "JOIN"}, "t2.a": {"JOIN"}, "t2.c": {"JOIN"}},
        {},
        None,
        id="intersect",
    ),
    pytest.param(
        "df_drop_duplicates",
        {"t1.a": {"GROUP_BY"}},
        {},
        {"a": {"t1.a": {"IDENTITY"}}, "b": {"t1.b": {"IDENTITY"}}, "c": {"t1.c": {"IDENTITY"}}},
        id="drop-duplicates",
    ),
    pytest.param("posexplode", {"nested.arr": {"FILTER"}}, {}, None, id="posexplode-of-a-column"),
    pytest.param("filter", {"t1.b": {"FILTER"}}, {"t1.b": {"FILTER"}}, None, id="a-written-filter-stays"),
    pytest.param(
        "having",
        {"t1.a": {"GROUP_BY"}, "t1.b": {"FILTER"}},
        {"t1.a": {"GROUP_BY"}, "t1.b": {"FILTER"}},
        None,
        id="a-written-group-by-stays",
    ),
]


@pytest.mark.parametrize(("name", "optimized", "analyzed", "fields"), ANALYZED)
def test_analyzed_view_has_no_optimizer_entries(
    name: str, optimized: dict[str, set[str]], analyzed: dict[str, set[str]], fields: Any
) -> None:
    items = json.loads((PLANS / f"{name}.json").read_text())
    names = _leaf_names(items)
    assert _labels(lineage_of_plan(items).dataset, names) == optimized
    lineage = lineage_of_plan(items, optimized=False)
    assert lineage.optimized is False
    assert _labels(lineage.dataset, names) == analyzed
    if fields is not None:
        assert {out: _labels(cols, names) for out, cols in lineage.fields.items()} == fields


def test_if_with_equal_branches_is_folded_in_the_optimized_view_only() -> None:
    plan = project(
        rel(attr(1, "a"), attr(2, "b")), alias(10, "x", fn("If", attr(2, "b"), attr(1, "a"), attr(1, "a")))
    )
    assert lineage_of_plan(plan).fields == {"x": {SourceColumn(1, "a"): kinds("IDENTITY")}}
    assert lineage_of_plan(plan, optimized=False).fields == {
        "x": {SourceColumn(1, "a"): kinds("TRANSFORMATION"), SourceColumn(2, "b"): kinds("CONDITIONAL")}
    }


# -- a V1 CTAS's own view supersedes the write it ran nested (merge.py) ------------------------

OUT = DatasetName("file", "/w/out")
FILTERED = DatasetColumnLineage(dataset={InputColumn("file", "/w/t1", "a"): kinds("JOIN", "FILTER")})
ANALYZED_JOIN = DatasetColumnLineage(dataset={InputColumn("file", "/w/t1", "a"): kinds("JOIN")})
OTHER = DatasetColumnLineage(dataset={InputColumn("file", "/w/t2", "d"): kinds("SORT")})
OTHER_FILTERED = DatasetColumnLineage(dataset={InputColumn("file", "/w/t2", "d"): kinds("SORT", "FILTER")})


def _merged(*writes: Write) -> Any:
    return {
        name: lineage.dataset
        for name, lineage in merge_outputs((w.name, w.lineage) for w in without_nested_writes(writes)).items()
    }


@pytest.mark.parametrize(
    ("writes", "expected"),
    [
        pytest.param(
            [Write(OUT, FILTERED, frozenset({1, 2})), Write(OUT, ANALYZED_JOIN, frozenset({1, 2}), True)],
            ANALYZED_JOIN.dataset,
            id="ctas-replaces-its-nested-insert",
        ),
        pytest.param(
            [Write(OUT, OTHER, frozenset({7})), Write(OUT, ANALYZED_JOIN, frozenset({1, 2}), True)],
            {**OTHER.dataset, **ANALYZED_JOIN.dataset},
            id="an-earlier-write-of-another-query-stays",
        ),
        pytest.param(
            [
                Write(OUT, FILTERED, frozenset({1, 2})),
                Write(OUT, ANALYZED_JOIN, frozenset({1, 2}), True),
                Write(OUT, OTHER_FILTERED, frozenset({7})),
                Write(OUT, OTHER, frozenset({7}), True),
            ],
            {**ANALYZED_JOIN.dataset, **OTHER.dataset},
            id="two-saveAsTable-appends-each-replace-their-own",
        ),
        pytest.param(
            [Write(OUT, FILTERED, frozenset({1, 2})), Write(OUT, FILTERED, frozenset({1, 2}))],
            FILTERED.dataset,
            id="two-optimized-writes-unite",
        ),
    ],
)
def test_ctas_supersedes_its_nested_write(writes: list[Write], expected: Any) -> None:
    assert _merged(*writes) == {OUT: expected}
