"""Connect descriptions without Spark: a translated plan's top expressions carry the text Spark's
``Expression.sql()`` prints (column_lineage_descriptions on), and nothing when off.

The texts against a real classic session's are tests/spark/test_connect_column_lineage.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("pyspark.sql.connect.proto")

from pyspark.sql.connect.proto import expressions_pb2 as E
from pyspark.sql.connect.proto import relations_pb2 as R

from lineage_operators.spark.connect.columns.expr_sql import literals_kept, number_literal, sql_of
from lineage_operators.spark.connect.columns.expr_text import parse_expression
from lineage_operators.spark.connect.columns.plan_exprs import term_of
from lineage_operators.spark.connect.columns.plan_translate import translate

FIELDS = [("order_id", "long"), ("amount", "double"), ("status", "string"), ("ts", "string")]


def _schema(item: Any) -> str:
    fields = [{"name": n, "type": t, "nullable": True, "metadata": {}} for n, t in FIELDS]
    return json.dumps({"type": "struct", "fields": fields})


def _read() -> Any:
    rel = R.Relation()
    rel.read.data_source.format = "parquet"
    rel.read.data_source.paths.append("orders")
    return rel


def _col(name: str) -> Any:
    expr = E.Expression()
    expr.unresolved_attribute.unparsed_identifier = name
    return expr


def _lit(**value: Any) -> Any:
    expr = E.Expression()
    for kind, item in value.items():
        if kind == "null":
            expr.literal.null.null.SetInParent()
        else:
            setattr(expr.literal, kind, item)
    return expr


def _fn(name: str, *args: Any) -> Any:
    expr = E.Expression()
    expr.unresolved_function.function_name = name
    expr.unresolved_function.arguments.extend(args)
    return expr


def _alias(expr: Any, name: str) -> Any:
    out = E.Expression()
    out.alias.expr.CopyFrom(expr)
    out.alias.name.append(name)
    return out


def _text(sql: str) -> Any:
    expr = E.Expression()
    expr.expression_string.expression = sql
    return expr


def _plan() -> Any:
    """read -> filter(text) -> project(...) -> sort(desc nulls last)."""
    filtered = R.Relation()
    filtered.filter.input.CopyFrom(_read())
    filtered.filter.condition.CopyFrom(_text("status = 'paid' AND amount >= 1.5 OR ts IS NULL"))
    cast = E.Expression()
    cast.cast.expr.CopyFrom(_col("amount"))
    cast.cast.type_str = "int"
    case = _fn("when", _fn(">", _col("amount"), _lit(integer=100)), _lit(string="it's big"), _lit(null=True))
    star = E.Expression()
    star.unresolved_star.SetInParent()
    projected = R.Relation()
    projected.project.input.CopyFrom(filtered)
    projected.project.expressions.extend(
        [
            _col("order_id"),
            _alias(_fn("*", _col("amount"), _lit(long=2)), "doubled"),
            _alias(cast, "amount_i"),
            _alias(case, "size"),
            _fn("upper", _col("status")),
            _text('concat(status, "x") AS tagged'),
        ]
    )
    order = E.Expression.SortOrder()
    order.child.CopyFrom(_col("order_id"))
    order.direction = E.Expression.SortOrder.SORT_DIRECTION_DESCENDING
    order.null_ordering = E.Expression.SortOrder.SORT_NULLS_LAST
    sorted_rel = R.Relation()
    sorted_rel.sort.input.CopyFrom(projected)
    sorted_rel.sort.order.append(order)
    return sorted_rel


def _texts(node: Any) -> list[str]:
    """Every ``"sql"`` of a plan JSON, in order."""
    if isinstance(node, dict):
        found = [node["sql"]] if "sql" in node else []
        return found + [t for value in node.values() for t in _texts(value)]
    if isinstance(node, list):
        return [t for item in node for t in _texts(item)]
    return []


def test_translated_top_expressions_carry_spark_sql_texts() -> None:
    plan = translate(_plan(), _schema, describe=True).plan
    assert _texts(plan) == [
        "order_id DESC NULLS LAST",
        "order_id",
        "(amount * 2L) AS doubled",
        "CAST(amount AS INT) AS amount_i",
        "CASE WHEN (amount > 100) THEN 'it\\'s big' ELSE NULL END AS size",
        "upper(status) AS `upper(status)`",
        "concat(status, 'x') AS tagged",
        "(((status = 'paid') AND (amount >= 1.5BD)) OR (ts IS NULL))",
    ]


def test_no_texts_and_no_literal_values_when_descriptions_are_off() -> None:
    plan = translate(_plan(), _schema).plan
    assert _texts(plan) == []
    assert term_of(_lit(string="secret")) == ("lit",)
    assert parse_expression("a = 'secret'") == ("fn", "==", (("col", ("a",), None), ("lit",)))
    with literals_kept(True):
        assert term_of(_lit(string="secret")) == ("lit", "'secret'")
    assert term_of(_lit(string="secret")) == ("lit",)  # only inside


def test_join_condition_count_star_and_unknown_parts() -> None:
    with literals_kept(True):
        count = term_of(_text("count(*)"))
        udf = parse_expression("a + 1")
    assert sql_of(count, lambda parts, plan: None) == "count(1)"
    assert sql_of(udf, lambda parts, plan: "a") == "(a + 1)"
    assert sql_of(udf, lambda parts, plan: None) is None  # a part without text: no text at all
    assert sql_of(("fn", "udf:f", ()), lambda parts, plan: "a") is None
    assert [number_literal(n) for n in ("10", "3000000000", "10L", "1.5", "2D", "1e3")] == [
        "10",
        "3000000000L",
        "10L",
        "1.5BD",
        "2D",
        "1000.0D",
    ]
