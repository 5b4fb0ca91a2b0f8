"""SQL grouping (``GROUP BY`` keys, ``ROLLUP`` / ``CUBE`` / ``GROUPING SETS``) and ``PIVOT`` as the
Connect ``Aggregate`` the DataFrame API sends for them (``groupBy`` / ``rollup`` / ``cube`` /
``groupingSets`` / ``groupBy().pivot()``), for
:mod:`~lineage_operators.spark.connect.columns.sql_relation`.

Pure (pyspark's protobufs and sqlglot imported lazily). The translation
(:mod:`~lineage_operators.spark.connect.columns.plan_translate`) then renders each group type as
the classic analyzer does: grouping sets over an ``Expand`` read their keys as a ``GROUP BY`` does;
a pivot becomes the analyzer's two aggregates over ``PivotFirst``
(:mod:`~lineage_operators.spark.connect.columns.plan_pivot`). ``UNPIVOT`` is its sibling here: the
Connect ``Unpivot`` (``DataFrame.unpivot``), which the translation renders as the analyzer's
``Expand``.
"""

from __future__ import annotations

from typing import Any

from lineage_operators.spark.connect.columns.sql_protos import (
    Unsupported,
    item_expr,
    new_rel,
    text_expr,
    unaliased,
)


def grouping(group: Any, items: list[Any]) -> tuple[int, list[Any], list[list[Any]]]:
    """(Connect group type, key expressions, grouping sets) of a ``GROUP BY`` clause (or None).

    Positions (``GROUP BY 1``) are the SELECT item's expression; the keys of grouping sets are
    their members once each, in order (as ``groupingSets(sets, *cols)`` sends them)."""
    from pyspark.sql.connect.proto import relations_pb2
    from sqlglot import exp

    group_type, keys, sets = relations_pb2.Aggregate.GROUP_TYPE_GROUPBY, [], []
    terms = list(group.expressions) if group is not None else []
    for name in ("rollup", "cube", "grouping_sets"):  # where some sqlglot releases put them
        extra = group.args.get(name) if group is not None else None
        if extra and not isinstance(extra, list):
            raise Unsupported(f"GROUP BY ... WITH {name.upper()}")
        terms.extend(extra or [])
    for key in terms:
        if isinstance(key, exp.Rollup | exp.Cube):
            if len(terms) != 1:
                raise Unsupported("ROLLUP / CUBE beside other keys")
            group_type = (
                relations_pb2.Aggregate.GROUP_TYPE_ROLLUP
                if isinstance(key, exp.Rollup)
                else relations_pb2.Aggregate.GROUP_TYPE_CUBE
            )
            keys.extend(key.expressions)
        elif isinstance(key, exp.GroupingSets):
            if len(terms) != 1:
                raise Unsupported("GROUPING SETS beside other keys")
            group_type = relations_pb2.Aggregate.GROUP_TYPE_GROUPING_SETS
            sets = [_members(s) for s in key.expressions]
            keys.extend(dict.fromkeys(m for members in sets for m in members))
        elif isinstance(key, exp.Literal) and key.is_int:
            index = int(key.name) - 1
            if not 0 <= index < len(items):
                raise Unsupported("GROUP BY a position out of range")
            keys.append(unaliased(items[index]))
        else:
            keys.append(key)
    return group_type, keys, sets


def _members(grouping_set: Any) -> list[Any]:
    """The expressions of one grouping set: ``(a, b)``, ``(a)``, ``a`` or ``()``."""
    from sqlglot import exp

    if isinstance(grouping_set, exp.Tuple):
        return list(grouping_set.expressions)
    if isinstance(grouping_set, exp.Paren):
        return [grouping_set.this]
    return [grouping_set]


def pivoted(relation: Any, pivot: Any) -> Any:
    """``source PIVOT (aggregates FOR column IN (values))``: the Connect pivot aggregate, its
    grouping a star (the columns the pivot does not read: resolved by the translation)."""
    from pyspark.sql.connect.proto import expressions_pb2, relations_pb2
    from sqlglot import exp

    fields = pivot.args.get("fields") or []
    if len(fields) != 1 or not isinstance(fields[0], exp.In):
        raise Unsupported("a PIVOT or UNPIVOT of several columns")
    if pivot.args.get("unpivot"):
        return _unpivoted(relation, pivot, fields[0])
    column = fields[0].this
    if isinstance(column, exp.Tuple | exp.Paren):
        raise Unsupported("a PIVOT of several columns")
    aggregated = new_rel()
    aggregate = aggregated.aggregate
    aggregate.input.CopyFrom(relation)
    aggregate.group_type = relations_pb2.Aggregate.GROUP_TYPE_PIVOT
    star = expressions_pb2.Expression()
    star.unresolved_star.SetInParent()
    aggregate.grouping_expressions.append(star)
    aggregate.pivot.col.CopyFrom(text_expr(column.sql(dialect="spark")))
    for value in fields[0].expressions:
        if not isinstance(value, exp.Literal):
            raise Unsupported("a PIVOT value that is not a plain literal")
        literal = aggregate.pivot.values.add()
        if value.is_string:
            literal.string = value.name
        elif value.is_int and abs(int(value.name)) < 2**31:
            literal.integer = int(value.name)
        else:
            raise Unsupported("a PIVOT value that is not a string or an integer")
    aggregate.aggregate_expressions.extend(item_expr(e) for e in pivot.expressions)
    return aggregated


def _unpivoted(relation: Any, pivot: Any, field: Any) -> Any:
    """``source UNPIVOT [INCLUDE NULLS] (value FOR name IN (columns))``: the Connect unpivot, its ids
    a star (the columns it does not unpivot: resolved by the translation); without ``INCLUDE NULLS``
    Spark's parser filters out the null values, so does this."""
    from pyspark.sql.connect.proto import expressions_pb2
    from sqlglot import exp

    (value,) = pivot.expressions if len(pivot.expressions) == 1 else (None,)
    if not isinstance(value, exp.Identifier) or isinstance(field.this, exp.Tuple | exp.Paren):
        raise Unsupported("an UNPIVOT into several value columns")
    unpivoted = new_rel()
    unpivot = unpivoted.unpivot
    unpivot.input.CopyFrom(relation)
    star = expressions_pb2.Expression()
    star.unresolved_star.SetInParent()
    unpivot.ids.append(star)
    for entry in field.expressions:
        column = entry.this if isinstance(entry, exp.PivotAlias) else entry  # the alias: a name only
        if not isinstance(column, exp.Column):
            raise Unsupported("an UNPIVOT of an expression")
        unpivot.values.values.append(text_expr(column.sql(dialect="spark")))
    unpivot.variable_column_name = field.this.name
    unpivot.value_column_name = value.name
    if pivot.args.get("include_nulls"):
        return unpivoted
    filtered = new_rel()
    filtered.filter.input.CopyFrom(unpivoted)
    filtered.filter.condition.CopyFrom(text_expr(f"{value.sql(dialect='spark')} IS NOT NULL"))
    return filtered


__all__ = ["grouping", "pivoted"]
