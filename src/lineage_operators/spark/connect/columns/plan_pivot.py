"""A Connect pivot (``groupBy(...).pivot(col, values).agg(...)``, SQL ``PIVOT``) -> the plan the
classic analyzer makes of it, so the classic rules give its column lineage.

Pure. Spark's ``ResolvePivot`` (for aggregates whose values ``PivotFirst`` can hold: the numeric
and boolean ones) rewrites a pivot into two aggregates and a projection:

1. ``Aggregate`` by the grouping columns *and* the pivot column, computing each aggregate;
2. ``Aggregate`` by the grouping columns of ``PivotFirst(pivot column, aggregate value)`` per
   aggregate (an array holding one value per pivot value);
3. ``Project`` of the grouping columns and one ``GetArrayItem`` per (pivot value, aggregate),
   named ``value`` (one aggregate) or ``value_aggregate``.

The same three nodes are rendered here, so both ``GROUP BY`` dependencies, the pivot column's
``CONDITIONAL`` and the aggregates' ``AGGREGATION`` come from the classic rules. Aggregates whose
result type is not known to be numeric (``min`` / ``max`` / ``first`` of any column...) would take
the analyzer's other rewrite (``If`` inside each aggregate): not translated (:class:`Untranslatable`).

A star in the grouping expressions stands for SQL ``PIVOT``'s implicit grouping (every input column
the pivot column and the aggregates do not read); no DataFrame pivot sends one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lineage_operators.spark.connect.columns.expr_sql import quoted
from lineage_operators.spark.connect.columns.expr_text import Term
from lineage_operators.spark.connect.columns.plan_exprs import (
    LITERAL,
    Attr,
    Json,
    Scope,
    Untranslatable,
    attr_json,
    auto_name,
    node,
    term_of,
    with_text,
)

#: Aggregates whose result ``PivotFirst`` holds whatever their input (counts, sums, averages).
_NUMERIC_AGGREGATES = frozenset(
    {"count", "count_distinct", "approx_count_distinct", "count_if", "sum", "avg", "mean", "sum_distinct"}
)

Items = Callable[[list[tuple[Attr, "Json | None"]]], list[Json]]


def _columns(term: Any) -> list[Term]:
    """Every column term a term reads."""
    if not isinstance(term, tuple) or not term:
        return []
    if term[0] == "col":
        return [term]
    found: list[Term] = []
    for part in term[1:]:
        if isinstance(part, tuple) and part and isinstance(part[0], str):
            found += _columns(part)
        elif isinstance(part, tuple):
            for item in part:
                found += _columns(item)
    return found


def _aggregate_name(term: Term) -> str:
    inner = term
    while inner[0] == "alias":
        inner = inner[1]
    if inner[0] != "fn" or inner[1] not in _NUMERIC_AGGREGATES:
        raise Untranslatable("a pivot of an aggregate PivotFirst may not hold")
    return auto_name(term)


def value_name(literal: Any) -> str:
    """A pivot value as the output name Spark makes of it (its string cast)."""
    kind = literal.WhichOneof("literal_type")
    if kind == "string":
        return str(literal.string)
    if kind in ("integer", "long", "short", "byte"):
        return str(getattr(literal, kind))
    if kind == "boolean":
        return "true" if literal.boolean else "false"
    raise Untranslatable(f"a pivot value of type {kind}")


def pivot(
    rel: Any,
    child: Json,
    attrs: list[Attr],
    *,
    scope: Callable[[list[Attr]], Scope],
    items: Items,
    ids: Any,
) -> tuple[Json, list[Attr]]:
    """The classic plan of a Connect ``Aggregate`` of group type PIVOT over ``child``."""
    if not rel.HasField("pivot") or not rel.pivot.values:
        raise Untranslatable("a pivot without its values")
    names = [value_name(v) for v in rel.pivot.values]
    over = scope(attrs)
    pivot_term = term_of(rel.pivot.col)
    aggregates = [term_of(e) for e in rel.aggregate_expressions]
    suffixes = [_aggregate_name(t) for t in aggregates]
    grouping = [term_of(e) for e in rel.grouping_expressions]
    if any(t[0] == "star" for t in grouping):  # SQL PIVOT: the columns nothing else reads
        terms = [pivot_term, *aggregates]
        read = {over.lookup(c[1], c[2])[0].ident for term in terms for c in _columns(term)}
        grouping = [("col", (a.name,), None) for a in attrs if a.ident not in read]
    group_named = [pair for term in grouping for pair in over.named(term)]
    if pivot_term[0] != "col":
        pivot_term = ("alias", pivot_term, ("__pivot_col",))
    pivot_named = over.named(pivot_term)
    agg_named = [pair for term in aggregates for pair in over.named(term, aggregating=True)]
    first = node(
        "Aggregate",
        [child],
        groupingExpressions=[over.top(t) for t in grouping] + [over.top(pivot_term)],
        aggregateExpressions=items(group_named + pivot_named + agg_named),
    )
    groups = [attr for attr, _ in group_named]
    pivot_attr = pivot_named[0][0]
    arrays: list[tuple[Attr, Json | None]] = []
    for term, (value_attr, _) in zip(aggregates, agg_named, strict=True):
        # the analyzer names it after the aggregate aliased by its own text: ``sum(x) AS `sum(x)```
        array = Attr(next(ids), f"__pivot_{over.text(term) or value_attr.name} AS {quoted(value_attr.name)}")
        first_of = node("PivotFirst", [attr_json(pivot_attr), attr_json(value_attr)])
        rendered = node(
            "Alias", [node("AggregateExpression", [first_of])], name=array.name, exprId={"id": array.ident}
        )
        arrays.append((array, rendered))
    second = node(
        "Aggregate",
        [first],
        groupingExpressions=[over.item(a, None) for a in groups],
        aggregateExpressions=items([(a, None) for a in groups] + arrays),
    )
    outputs: list[tuple[Attr, Json | None]] = [(a, None) for a in groups]
    for index, name in enumerate(names):
        for (array, _), suffix in zip(arrays, suffixes, strict=True):
            attr = Attr(next(ids), name if len(arrays) == 1 else f"{name}_{suffix}")
            item = node("GetArrayItem", [attr_json(array), LITERAL])
            alias = node("Alias", [item], name=attr.name, exprId={"id": attr.ident})
            text = f"{over.attr_text(array)}[{index}] AS {quoted(attr.name)}"
            outputs.append((attr, with_text(alias, text if over.describe else None)))
    return node("Project", [second], projectList=items(outputs)), [a for a, _ in outputs]


__all__ = ["pivot", "value_name"]
