"""Small shared pieces of the SQL -> Connect Relation mapping: the error saying what is not mapped,
empty Relations, expression strings, SELECT items as Expressions (a window as ``Window`` protos).

Pure (pyspark's protobufs and sqlglot imported lazily); used by
:mod:`~lineage_operators.spark.connect.columns.sql_relation` and
:mod:`~lineage_operators.spark.connect.columns.sql_grouping`.
"""

from __future__ import annotations

from typing import Any


class Unsupported(ValueError):
    """SQL this module does not map to a Relation (the message says what)."""


#: A join's only ``using_columns`` entry for a ``NATURAL`` join: Connect has no such join (the
#: DataFrame API cannot send one), and its keys are the columns both sides have, which only the
#: translation knows (from the server's schemas). No real column is named with a NUL character.
NATURAL_JOIN = "\x00natural"


def new_rel() -> Any:
    from pyspark.sql.connect.proto import relations_pb2

    return relations_pb2.Relation()


def text_expr(text: str) -> Any:
    from pyspark.sql.connect.proto import expressions_pb2

    expr = expressions_pb2.Expression()
    expr.expression_string.expression = text
    return expr


def unaliased(node: Any) -> Any:
    from sqlglot import exp

    return node.this if isinstance(node, exp.Alias) else node


def item_expr(node: Any) -> Any:
    """A SELECT item as an Expression: its text, but a (aliased) window as ``Window`` protos."""
    from pyspark.sql.connect.proto import expressions_pb2
    from sqlglot import exp

    expr = expressions_pb2.Expression()
    if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
        expr.unresolved_star.SetInParent()
        if isinstance(node, exp.Column) and node.table:
            expr.unresolved_star.unparsed_target = f"{node.table}.*"
        return expr
    if node.find(exp.Window) is None:
        return text_expr(node.sql(dialect="spark"))
    if isinstance(node, exp.Alias):
        expr.alias.expr.CopyFrom(item_expr(node.this))
        expr.alias.name.append(node.alias)
        return expr
    if not isinstance(node, exp.Window) or node.this.find(exp.Window) is not None:
        raise Unsupported("a window inside a larger expression")
    if node.args.get("alias"):
        raise Unsupported("a named window")
    window = expr.window
    window.window_function.CopyFrom(text_expr(node.this.sql(dialect="spark")))
    window.partition_spec.extend(
        text_expr(p.sql(dialect="spark")) for p in node.args.get("partition_by") or []
    )
    order = node.args.get("order")
    for term in order.expressions if order is not None else []:
        sort = window.order_spec.add()
        sort.child.CopyFrom(text_expr(term.this.sql(dialect="spark")))
        sort.direction = (  # type: ignore[assignment]
            expressions_pb2.Expression.SortOrder.SORT_DIRECTION_DESCENDING
            if term.args.get("desc")
            else expressions_pb2.Expression.SortOrder.SORT_DIRECTION_ASCENDING
        )
    return expr


__all__ = ["NATURAL_JOIN", "Unsupported", "item_expr", "new_rel", "text_expr", "unaliased"]
