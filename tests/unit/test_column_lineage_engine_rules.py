"""The plan engine's rules on hand-built plans: transformation merging, casts, odd and hostile input.

Plans here are built with the same shape as Spark's ``toJSON()`` (see the recorded samples), small
enough to read: ``rel`` a leaf, ``project`` / ``node`` operators, ``attr`` / ``alias`` / ``fn``
expressions. Every result must come back without an exception, whatever the input.
"""

from __future__ import annotations

import functools
import gc
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lineage_operators.column_lineage import (
    DIRECT,
    INDIRECT,
    PlanColumnLineage,
    SourceColumn,
    Transformation,
    lineage_of_plan,
)
from lineage_operators.column_lineage.engine import INVALID_PLAN
from lineage_operators.column_lineage.expressions import (
    AGGREGATION,
    CONDITIONAL,
    FILTER,
    IDENTITY,
    MASKING,
    SORT,
    TRANSFORMATION,
    WINDOW,
    _keeps_value,
    merge,
)

PLANS = Path(__file__).parent / "column_lineage_plans"
LOGICAL = "org.apache.spark.sql.catalyst.plans.logical."
EXPR = "org.apache.spark.sql.catalyst.expressions."


def attr(ident: int, name: str, data_type: Any = "integer") -> list[dict[str, Any]]:
    return [
        {
            "class": EXPR + "AttributeReference",
            "num-children": 0,
            "name": name,
            "dataType": data_type,
            "exprId": {"id": ident},
        }
    ]


def fn(cls: str, *children: list[dict[str, Any]], **fields: Any) -> list[dict[str, Any]]:
    head = {"class": EXPR + cls, "num-children": len(children), **fields}
    return [head, *(item for child in children for item in child)]


def alias(ident: int, name: str, child: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return fn("Alias", child, name=name, exprId={"id": ident})


def rel(*attrs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "class": "org.apache.spark.sql.execution.datasources.LogicalRelation",
            "num-children": 0,
            "output": list(attrs),
        }
    ]


def node(cls: str, *children: list[dict[str, Any]], **fields: Any) -> list[dict[str, Any]]:
    head = {"class": cls if "." in cls else LOGICAL + cls, "num-children": len(children), **fields}
    return [head, *(item for child in children for item in child)]


def project(child: list[dict[str, Any]], *exprs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return node("Project", child, projectList=list(exprs))


def kinds(*names: str) -> frozenset[Transformation]:
    """``"FILTER"``, ``"TRANSFORMATION*"`` (masking) -> Transformation objects."""
    direct = {"IDENTITY", "TRANSFORMATION", "AGGREGATION"}
    return frozenset(
        Transformation(DIRECT if n.rstrip("*") in direct else INDIRECT, n.rstrip("*"), n.endswith("*"))
        for n in names
    )


A, B = SourceColumn(1, "a"), SourceColumn(2, "b")
T1 = rel(attr(1, "a"), attr(2, "b"))


# -- the merge of two transformations along a path, as openlineage-spark's TransformationInfo.merge


@pytest.mark.parametrize(
    ("outer", "inner", "result"),
    [
        pytest.param(IDENTITY, TRANSFORMATION, TRANSFORMATION, id="identity-is-neutral"),
        pytest.param(TRANSFORMATION, IDENTITY, TRANSFORMATION, id="identity-is-neutral-inside"),
        pytest.param(TRANSFORMATION, AGGREGATION, AGGREGATION, id="aggregation-beats-transformation"),
        pytest.param(AGGREGATION, TRANSFORMATION, AGGREGATION, id="aggregation-outside"),
        pytest.param(TRANSFORMATION, CONDITIONAL, CONDITIONAL, id="indirect-inner-wins-over-direct"),
        pytest.param(FILTER, AGGREGATION, FILTER, id="indirect-outer-wins"),
        pytest.param(SORT, WINDOW, SORT, id="outer-indirect-wins-over-inner-indirect"),
        pytest.param(IDENTITY, TRANSFORMATION + MASKING, TRANSFORMATION + MASKING, id="masking-kept-inside"),
        pytest.param(FILTER + MASKING, IDENTITY, FILTER + MASKING, id="masking-kept-outside"),
        pytest.param(AGGREGATION + MASKING, TRANSFORMATION, AGGREGATION + MASKING, id="count-of-expression"),
    ],
)
def test_merge(outer: int, inner: int, result: int) -> None:
    assert merge(outer, inner) == result


@pytest.mark.parametrize(
    ("source", "target", "keeps"),
    [
        ("integer", "integer", True),
        ("integer", "long", True),
        ("short", "integer", True),
        ("float", "double", True),
        ("integer", "double", True),
        ("long", "double", False),
        ("long", "integer", False),
        ("integer", "string", False),
        ("string", "integer", False),
        ("integer", "decimal(10,0)", True),
        ("integer", "decimal(9,0)", False),
        ("decimal(5,2)", "decimal(7,3)", True),
        ("decimal(5,2)", "decimal(7,1)", False),
        ({"type": "struct", "fields": []}, {"type": "struct", "fields": []}, True),
        (None, "integer", False),
    ],
)
def test_cast_keeps_value(source: Any, target: Any, keeps: bool) -> None:
    assert _keeps_value(source, target) is keeps


# -- expressions -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        pytest.param(attr(1, "a"), {A: kinds("IDENTITY")}, id="attribute"),
        pytest.param(fn("Cast", attr(1, "a"), dataType="long"), {A: kinds("IDENTITY")}, id="widening-cast"),
        pytest.param(fn("Cast", attr(1, "a"), dataType="string"), {A: kinds("TRANSFORMATION")}, id="cast"),
        pytest.param(
            fn("UpCast", fn("Add", attr(1, "a"), attr(2, "b")), dataType="long"),
            {A: kinds("TRANSFORMATION"), B: kinds("TRANSFORMATION")},
            id="upcast-of-sum",
        ),
        pytest.param(
            fn("Md5", fn("Cast", attr(1, "a"), dataType="binary")),
            {A: kinds("TRANSFORMATION*")},
            id="masking",
        ),
        pytest.param(
            fn("Nvl", fn("Coalesce", attr(1, "a"), attr(2, "b")), replacement=0),
            {A: kinds("CONDITIONAL", "TRANSFORMATION"), B: kinds("CONDITIONAL", "TRANSFORMATION")},
            id="runtime-replaceable-is-its-replacement",
        ),
        pytest.param(
            fn("CaseWhen", fn("IsNull", attr(1, "a")), attr(2, "b"), attr(1, "a")),
            {A: kinds("CONDITIONAL", "TRANSFORMATION"), B: kinds("TRANSFORMATION")},
            id="case-when-else",
        ),
        pytest.param(
            fn("CaseWhen", fn("IsNull", attr(1, "a")), attr(2, "b")),
            {A: kinds("CONDITIONAL"), B: kinds("TRANSFORMATION")},
            id="case-when-no-else",
        ),
        pytest.param(
            fn(
                "With",
                fn("If", fn("EqualTo", fn("CommonExpressionRef"), attr(2, "b")), fn("CommonExpressionRef")),
                fn("CommonExpressionDef", attr(1, "a")),
            ),
            {A: kinds("CONDITIONAL", "TRANSFORMATION"), B: kinds("CONDITIONAL")},
            id="common-expressions",
        ),
        pytest.param(
            fn(
                "AggregateExpression",
                fn("Count", attr(1, "a")),
                fn("GreaterThan", attr(2, "b"), fn("Literal", value="0")),
            ),
            {A: kinds("AGGREGATION*"), B: kinds("FILTER")},
            id="count-with-filter",
        ),
        pytest.param(
            fn(
                "WindowExpression",
                fn("DenseRank", attr(1, "a")),
                fn("WindowSpecDefinition", attr(2, "b"), fn("SortOrder", attr(1, "a"))),
            ),
            {A: kinds("WINDOW"), B: kinds("WINDOW")},
            id="ranking-reads-only-the-window",
        ),
        pytest.param(fn("Literal", value="1"), {}, id="literal"),
        pytest.param(attr(99, "unknown"), {}, id="attribute-of-no-known-node"),
    ],
)
def test_expression_rules(expr: list[dict[str, Any]], expected: dict[SourceColumn, Any]) -> None:
    lineage = lineage_of_plan(project(T1, alias(10, "out", expr)))
    assert lineage.fields == {"out": expected}
    assert lineage.unknown_nodes == ()


# -- plan shapes -------------------------------------------------------------------------------


def test_hive_table_relation_outputs_data_and_partition_columns() -> None:
    hive = node(
        "org.apache.spark.sql.catalyst.catalog.HiveTableRelation",
        dataCols=[attr(1, "a")],
        partitionCols=[attr(2, "b")],
    )
    lineage = lineage_of_plan(hive)
    assert lineage.fields == {"a": {A: kinds("IDENTITY")}, "b": {B: kinds("IDENTITY")}}


def test_union_column_reads_the_same_position_of_every_branch() -> None:
    other = rel(attr(3, "x"), attr(4, "y"))
    lineage = lineage_of_plan(node("Union", T1, other, project(T1, attr(2, "b"), attr(1, "a"))))
    assert lineage.fields == {
        "a": {A: kinds("IDENTITY"), SourceColumn(3, "x"): kinds("IDENTITY"), B: kinds("IDENTITY")},
        "b": {B: kinds("IDENTITY"), SourceColumn(4, "y"): kinds("IDENTITY"), A: kinds("IDENTITY")},
    }


def test_cte_reference_without_its_definition_is_reported() -> None:
    ref = node("CTERelationRef", cteId=7, output=[attr(5, "a")])
    lineage = lineage_of_plan(project(ref, attr(5, "a")))
    assert lineage.fields == {"a": {}}
    assert lineage.unknown_nodes == ("CTERelationRef",)


def test_unknown_unary_node_passes_its_child_through() -> None:
    plan = node("com.example.Mystery", project(T1, alias(10, "up", fn("Upper", attr(1, "a")))))
    lineage = lineage_of_plan(plan)
    assert lineage.fields == {"up": {A: kinds("TRANSFORMATION")}}
    assert lineage.unknown_nodes == ("Mystery",)


def test_unknown_node_with_declared_output_gives_no_lineage_for_new_columns() -> None:
    plan = node("MapInPandas", T1, output=[attr(20, "n"), attr(1, "a")])
    lineage = lineage_of_plan(plan)
    assert lineage.fields == {"n": {}, "a": {A: kinds("IDENTITY")}}
    assert lineage.unknown_nodes == ("MapInPandas",)


def test_unknown_nodes_listed_once_each_and_lineage_kept_around_them() -> None:
    other = rel(attr(3, "c"))
    mystery = node("com.example.Zip", T1, other)  # two children: their outputs side by side
    plan = node("com.example.Mystery", node("com.example.Mystery", mystery))
    filtered = node("Filter", plan, condition=fn("IsNotNull", attr(3, "c")))
    leaf = node("com.example.StrangeLeaf")
    lineage = lineage_of_plan(node("Union", filtered, project(leaf)))
    assert list(lineage.fields) == ["a", "b", "c"]
    assert lineage.dataset == {SourceColumn(3, "c"): kinds("FILTER")}
    assert lineage.unknown_nodes == ("Zip", "Mystery", "StrangeLeaf")


def test_output_names_beyond_the_output_and_duplicates() -> None:
    plan = project(T1, attr(1, "a"), attr(2, "b"))
    assert list(lineage_of_plan(plan, ["x", "y", "z"]).fields) == ["x", "y"]
    assert lineage_of_plan(plan, ["x", "x"]).fields == {"x": {A: kinds("IDENTITY"), B: kinds("IDENTITY")}}
    assert list(lineage_of_plan(plan, ["only"]).fields) == ["only"]


def test_write_command_child_is_unwrapped() -> None:
    command = node(
        "org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand",
        project(T1, attr(2, "b")),
        query=0,
    )
    assert lineage_of_plan(command).fields == {"b": {B: kinds("IDENTITY")}}


def test_deep_plan_and_deep_expression_do_not_recurse() -> None:
    depth = 5000
    deep_expr = attr(2, "b")
    for _ in range(depth):
        deep_expr = [*fn("Abs"), *deep_expr]  # pre-order: each Abs head before its child
        deep_expr[0]["num-children"] = 1
    top = project([], attr(99 + depth, "a"), alias(50, "deep", deep_expr))
    chain = []  # Project(a_n = a_n-1 + 0) ... Project(a_1 = a + 0) over T1, heads top-down
    for level in reversed(range(depth)):
        source = attr(1 if level == 0 else 99 + level, "a")
        chain.extend(project([], alias(100 + level, "a", fn("Add", source, fn("Literal", value="0")))))
    plan = [*top, *chain, *T1]
    for head in [plan[0], *chain]:
        head["num-children"] = 1
    lineage = lineage_of_plan(json.dumps(plan))
    assert lineage.fields == {"a": {A: kinds("TRANSFORMATION")}, "deep": {B: kinds("TRANSFORMATION")}}


def test_nested_recursive_loops_do_bounded_work() -> None:
    """Each loop re-walks its recursion until it settles; nested loops share one budget."""
    depth = 14  # 5 rounds each without the budget: 5**14 walks
    plan: list[dict[str, Any]] = []
    for level in range(depth):
        plan.extend(node("UnionLoop", id=level, outputAttrIds=[{"id": 200 + level}]))
        plan[-1]["num-children"] = 2
        plan.extend(rel(attr(300 + level, f"c{level}")))
    plan.extend(node("UnionLoopRef", loopId=depth - 1, output=[attr(400, "r")]))
    lineage = lineage_of_plan(plan)
    assert lineage.fields == {
        "c0": {SourceColumn(300 + level, f"c{level}"): kinds("IDENTITY") for level in range(depth)}
    }


@pytest.mark.parametrize("enabled", [True, False])
def test_garbage_collector_state_is_restored(enabled: bool) -> None:
    """The engine pauses the cyclic GC while it runs, and leaves it as it found it."""
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        lineage_of_plan(project(T1, attr(1, "a")))
        lineage_of_plan("not json")
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


# -- hostile input: never an exception ---------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "",
        "not json",
        "{}",
        "[]",
        "[1, 2]",
        "null",
        '[{"class": 3}]',
        '[{"class": "x.Project", "num-children": "one"}]',
        '[{"class": "x.Project", "num-children": -1}]',
        [None],
        [[]],
        "[" * 5000 + "]" * 5000,
    ],
)
def test_invalid_json_is_reported_not_raised(value: Any) -> None:
    assert lineage_of_plan(value) == PlanColumnLineage(unknown_nodes=(INVALID_PLAN,))


def test_wrong_field_shapes_do_not_raise() -> None:
    odd = [
        {"class": LOGICAL + "Project", "num-children": 1, "projectList": "x"},
        {"class": LOGICAL + "Join", "num-children": 2, "condition": 5, "joinType": [1]},
        {"class": LOGICAL + "Window", "num-children": 0, "windowExpressions": [[{"class": 1}]]},
        {"class": LOGICAL + "Generate", "num-children": 0, "generator": {}, "unrequiredChildIndex": "x"},
        {"class": LOGICAL + "Expand", "num-children": 0, "projections": [[None]], "output": [[{}]]},
        {"class": LOGICAL + "WithCTE", "num-children": 0, "plan": 9},
    ]
    for plan in [odd, *([item] for item in odd)]:
        result = lineage_of_plan(plan)
        assert not [n for n in result.unknown_nodes if n.startswith(INVALID_PLAN + " (")]


@functools.cache
def _sample_text() -> tuple[str, ...]:
    return tuple(p.read_text() for p in sorted(PLANS.glob("*.json")))


def _sample_items() -> list[list[Any]]:
    return [json.loads(text) for text in _sample_text()]


def _leaf_columns(value: Any) -> set[SourceColumn]:
    """Every column a leaf of the JSON (at any depth) outputs."""
    found: set[SourceColumn] = set()
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            for key in ("output", "dataCols", "partitionCols"):
                if item.get("num-children") == 0 and isinstance(item.get(key), list):
                    found.update(SourceColumn(a[0]["exprId"]["id"], a[0]["name"]) for a in item[key])
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return found


def test_every_truncation_of_a_real_plan_is_partial_never_invented() -> None:
    for items in _sample_items():
        for cut in range(len(items)):
            partial = lineage_of_plan(items[:cut])
            found = {c for columns in partial.fields.values() for c in columns} | set(partial.dataset)
            assert found <= _leaf_columns(items[:cut])


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "x", "org.x.Project"]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["a", "id"]), inner, max_size=3)
    ),
    max_leaves=20,
)
NODE_CLASSES = [
    "Project",
    "Filter",
    "Join",
    "Aggregate",
    "Window",
    "Union",
    "Generate",
    "Expand",
    "WithCTE",
    "CTERelationDef",
    "CTERelationRef",
    "Intersect",
    "Deduplicate",
    "LateralJoin",
    "Sort",
    "Distinct",
    "UnionLoop",
    "UnionLoopRef",
    "Mystery",
]
FIELD_NAMES = [
    "projectList",
    "condition",
    "aggregateExpressions",
    "groupingExpressions",
    "windowExpressions",
    "generator",
    "generatorOutput",
    "output",
    "projections",
    "order",
    "keys",
    "plan",
    "cteId",
    "id",
    "joinType",
    "right",
    "isAll",
    "query",
    "outputAttrIds",
    "loopId",
]


@st.composite
def plan_like(draw: st.DrawFn) -> list[Any]:
    """Arrays of plan-shaped nodes with random fields, some holding real-looking expressions."""
    exprs = st.sampled_from(
        [
            attr(1, "a"),
            alias(9, "x", fn("Add", attr(1, "a"), attr(2, "b"))),
            fn("ScalarSubquery", plan=T1),
            fn("Exists", plan=[{"class": "x"}]),
            fn("OuterReference", e=attr(2, "b")),
            fn("CaseWhen", attr(1, "a")),
        ]
    )
    size = draw(st.integers(1, 8))
    items = []
    for _ in range(size):
        fields = draw(
            st.dictionaries(
                st.sampled_from(FIELD_NAMES), JSON_VALUES | exprs | st.lists(exprs, max_size=3), max_size=4
            )
        )
        items.append(
            {
                **fields,
                "class": LOGICAL + draw(st.sampled_from(NODE_CLASSES)),
                "num-children": draw(st.integers(0, 3)),
            }
        )
    return items


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(JSON_VALUES, plan_like()))
def test_random_input_never_raises(value: Any) -> None:
    """Not even inside: no rule may fail on odd fields (the engine's last-resort catch)."""
    for given_as in (value, json.dumps(value)):
        result = lineage_of_plan(given_as)
        assert not [n for n in result.unknown_nodes if n.startswith(INVALID_PLAN + " (")]


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_mutated_real_plans_never_raise(data: st.DataObject) -> None:
    items = json.loads(data.draw(st.sampled_from(_sample_text())))
    for _ in range(data.draw(st.integers(1, 4))):
        index = data.draw(st.integers(0, len(items) - 1))
        key = data.draw(st.sampled_from([*items[index].keys()]))
        items[index][key] = data.draw(JSON_VALUES)
    result = lineage_of_plan(items)
    assert not [n for n in result.unknown_nodes if n.startswith(INVALID_PLAN + " (")]
