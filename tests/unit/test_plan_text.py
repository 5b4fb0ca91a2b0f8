"""lineage_operators.plan_text: Spark's analyzed plan text -> the engine's plan JSON (table-tested on
plan texts as a Spark 4 server prints them)."""

from __future__ import annotations

import pytest

from lineage_operators.column_lineage import lineage_of_plan
from lineage_operators.plan_text import parse_analyzed
from lineage_operators.plan_text.lines import analyzed_section, line_tree

_HEAD = "== Parsed Logical Plan ==\n'Project [*]\n\n== Analyzed Logical Plan ==\n"
_TAIL = "\n\n== Optimized Logical Plan ==\nProject\n"
_ORDERS = (
    "Relation spark_catalog.db.orders[o_orderkey#1L,o_custkey#2L,o_totalprice#3,o_orderdate#4,"
    "o_comment#5] parquet"
)
_CUSTOMER = "Relation spark_catalog.db.customer[c_custkey#10L,c_name#11,c_acctbal#12,c_phone#13] parquet"


def _lineage(body: str, optimized: bool = False) -> dict[str, dict[str, set[str]]]:
    plan = parse_analyzed(_HEAD + body + _TAIL)
    assert plan is not None
    assert not plan.unknown, plan
    lineage = lineage_of_plan(plan.items, None, optimized)
    assert not lineage.unknown_nodes
    out = {
        name: {source.name: {t.subtype for t in kinds} for source, kinds in columns.items()}
        for name, columns in lineage.fields.items()
    }
    out["*"] = {source.name: {t.subtype for t in kinds} for source, kinds in lineage.dataset.items()}
    return out


def test_inner_children_are_told_from_children() -> None:
    text = (
        "Filter (a#1 > scalar-subquery#9 [])\n"
        ":  +- Aggregate [max(b#2) AS max(b)#8]\n"
        ":     +- Relation db.s[b#2] parquet\n"
        "+- Relation db.t[a#1] parquet"
    )
    root = line_tree(analyzed_section(_HEAD + text + _TAIL))
    assert root is not None
    assert [line.text.split()[0] for line in root.inner] == ["Aggregate"]
    assert [line.text.split()[0] for line in root.children] == ["Relation"]
    assert root.inner[0].children[0].text == "Relation db.s[b#2] parquet"


def test_a_query_plan_starts_with_its_schema_line_which_is_no_node() -> None:
    lines = analyzed_section(_HEAD + "a: bigint, b: string\nProject [a#1L]\n+- " + _ORDERS + _TAIL)
    assert lines[0] == "Project [a#1L]"


def test_ctas_with_scalar_subquery_cte_and_order_by() -> None:
    body = (
        "CreateDataSourceTableAsSelectCommand `spark_catalog`.`db`.`out`, ErrorIfExists, [c_name, total]\n"
        "   +- WithCTE\n"
        "      :- CTERelationDef 0, false\n"
        "      :  +- SubqueryAlias spent\n"
        "      :     +- Aggregate [o_custkey#2L], [o_custkey#2L, sum(o_totalprice#3) AS total#20]\n"
        "      :        +- SubqueryAlias spark_catalog.db.orders\n"
        f"      :           +- {_ORDERS}\n"
        "      +- Sort [total#22 DESC NULLS LAST], true\n"
        "         +- Project [c_name#11, total#22]\n"
        "            +- Filter ((c_custkey#10L = o_custkey#21L) AND (total#22 > scalar-subquery#30 []))\n"
        "               :  +- Aggregate [avg(total#32) AS avg(total)#33]\n"
        "               :     +- CTERelationRef 0, true, [o_custkey#31L, total#32], false, false\n"
        "               +- Join Inner\n"
        f"                  :- {_CUSTOMER}\n"
        "                  +- CTERelationRef 0, true, [o_custkey#21L, total#22], false, false"
    )
    assert _lineage(body) == {
        "c_name": {"c_name": {"IDENTITY"}},
        "total": {"o_totalprice": {"AGGREGATION"}},
        "*": {
            "c_custkey": {"FILTER"},
            "o_custkey": {"FILTER", "GROUP_BY"},
            "o_totalprice": {"FILTER", "SORT"},
        },
    }


def test_names_with_spaces_and_parentheses_and_literals_that_look_like_attributes() -> None:
    body = (
        "Project [my total#40 AS `x y`#41, sum(c_acctbal)#42]\n"
        "+- Aggregate [c_name#11], [c_acctbal#12 AS my total#40, sum(c_acctbal#12) AS sum(c_acctbal)#42]\n"
        "   +- Filter ((c_name#11 = Brand#12) AND NOT c_phone#13 LIKE %a, b(%)\n"
        f"      +- {_CUSTOMER}"
    )
    assert _lineage(body) == {
        "`x y`": {"c_acctbal": {"IDENTITY"}},
        "sum(c_acctbal)": {"c_acctbal": {"AGGREGATION"}},
        "*": {"c_name": {"FILTER", "GROUP_BY"}, "c_phone": {"FILTER"}},
    }


def test_windows_case_casts_filters_and_masking() -> None:
    body = (
        "Project [r#50, h#51, c#52L, f#53L, k#54]\n"
        "+- Project [r#50, h#51, c#52L, f#53L, k#54]\n"
        "   +- Window [rank(o_totalprice#3) windowspecdefinition(o_custkey#2L, "
        "o_totalprice#3 DESC NULLS LAST, specifiedwindowframe(RowFrame, unboundedpreceding$(), "
        "currentrow$())) AS r#50], [o_custkey#2L], "
        "[o_totalprice#3 DESC NULLS LAST]\n"
        "      +- Project [o_custkey#2L, o_totalprice#3, sha2(cast(o_comment#5 as binary), 256) AS h#51, "
        "cast(o_custkey#2L as bigint) AS c#52L, CASE WHEN (o_totalprice#3 > cast(1 as decimal(1,0))) "
        "THEN o_orderkey#1L ELSE 0 END AS f#53L, nvl2(o_comment#5, o_orderdate#4, null) AS k#54]\n"
        f"         +- {_ORDERS}"
    )
    assert _lineage(body) == {
        "r": {"o_custkey": {"WINDOW"}, "o_totalprice": {"WINDOW"}},
        "h": {"o_comment": {"TRANSFORMATION"}},
        "c": {"o_custkey": {"IDENTITY"}},
        "f": {"o_totalprice": {"CONDITIONAL"}, "o_orderkey": {"TRANSFORMATION"}},
        "k": {"o_comment": {"CONDITIONAL"}, "o_orderdate": {"TRANSFORMATION"}},
        "*": {},
    }


def test_aggregate_filter_clause_and_count_distinct() -> None:
    body = (
        "Aggregate [o_custkey#2L], [o_custkey#2L, count(1) FILTER (WHERE (o_comment#5 = R)) AS n#60L, "
        "count(distinct o_orderkey#1L) AS d#61L]\n"
        f"+- {_ORDERS}"
    )
    result = _lineage(body)
    assert result["n"] == {"o_comment": {"FILTER"}}
    assert result["d"] == {"o_orderkey": {"AGGREGATION"}}


def test_pivot_names_hold_as_and_its_columns_index_them() -> None:
    """A PIVOT's aggregate is named ``__pivot_sum(x) AS `sum(x)``` and each output column indexes it:
    the alias is the leftmost `` AS `` whose name references no attribute."""
    text = (
        "Project [customer_id#1L, __pivot_sum(q.amount) AS `sum(q.amount)`#11[0] AS paid#12, "
        "__pivot_sum(q.amount) AS `sum(q.amount)`#11[1] AS new#13]\n"
        "+- Aggregate [customer_id#1L], [customer_id#1L, "
        "pivotfirst(status#3, sum(q.amount)#5, paid, new, 0, 0) "
        "AS __pivot_sum(q.amount) AS `sum(q.amount)`#11]\n"
        "   +- Aggregate [customer_id#1L, status#3], "
        "[customer_id#1L, status#3, sum(amount#2) AS sum(q.amount)#5]\n"
        "      +- Relation db.orders[customer_id#1L,amount#2,status#3] parquet"
    )
    lineage = _lineage(text)
    assert lineage["paid"] == {"amount": {"AGGREGATION"}, "status": {"CONDITIONAL"}}
    assert lineage["new"] == lineage["paid"]


def test_a_view_column_list_cast_to_its_own_type_is_identity() -> None:
    """A persistent view's column list casts every column to its type (twice when views nest): the
    outer cast reads an alias of the inner one, whose type is known before any node is rendered."""
    text = (
        "Project [seg#30, total#31]\n"
        "+- View (`spark_catalog`.`db`.`top`, [seg#30, total#31])\n"
        "   +- Project [cast(segment#34 as string) AS seg#30, cast(doubled#29 as double) AS total#31]\n"
        "      +- Project [segment#34, (revenue#35 * cast(2 as double)) AS doubled#29]\n"
        "         +- View (`spark_catalog`.`db`.`revenue`, [segment#34, revenue#35])\n"
        "            +- Project [cast(segment#13 as string) AS segment#34, "
        "cast(amount#10 as double) AS revenue#35]\n"
        "               +- Relation db.orders[amount#10,segment#13] parquet"
    )
    plan = parse_analyzed(_HEAD + text + _TAIL, {10: "double", 13: "string"})
    assert plan is not None
    lineage = lineage_of_plan(plan.items, None, False)
    subtypes = {
        name: {t.subtype for kinds in cols.values() for t in kinds} for name, cols in lineage.fields.items()
    }
    assert subtypes == {"seg": {"IDENTITY"}, "total": {"TRANSFORMATION"}}


def test_truncated_lists_and_unknown_nodes_are_reported() -> None:
    truncated = parse_analyzed(_HEAD + "Project [a#1, b#2, ... 30 more fields]\n+- " + _ORDERS + _TAIL)
    assert truncated is not None
    assert truncated.truncated
    unknown = parse_analyzed(_HEAD + "MapInPandas f(a#1), [b#2]\n+- " + _ORDERS + _TAIL)
    assert unknown is not None
    assert unknown.unknown == ["MapInPandas"]


def test_leaves_name_their_tables_views_and_columns() -> None:
    body = (
        "Join Inner, (a#1L = k#3)\n"
        ":- SubqueryAlias v\n"
        ":  +- View (`v`, [a#1L, b#2])\n"
        ":     +- Relation [a#1L,b#2] parquet\n"
        "+- LocalRelation [k#3, label#4]"
    )
    plan = parse_analyzed(_HEAD + body + _TAIL)
    assert plan is not None
    assert [(leaf.kind, leaf.table, leaf.view, leaf.columns) for leaf in plan.leaves] == [
        ("Relation", None, "v", [(1, "a"), (2, "b")]),
        ("LocalRelation", None, None, [(3, "k"), (4, "label")]),
    ]


@pytest.mark.parametrize("text", ["", "no plan here", _HEAD + "   +- oops\nProject [" + _TAIL])
def test_odd_text_gives_no_plan_and_never_raises(text: str) -> None:
    plan = parse_analyzed(text)
    assert plan is None or not plan.items or plan.unknown
