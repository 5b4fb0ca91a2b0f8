"""A simple SQL ``SELECT`` (of a CTAS, an ``INSERT ... SELECT`` or ``spark.sql(...)``) as Connect
``Relation`` protobufs, so SQL text gets the classic column lineage through
:mod:`~lineage_operators.spark.connect.columns.plan_translate`.

Pure. A Connect server gives a client no analyzed plan of a SQL statement, so the statement's
structure is derived from its text: the ``SELECT`` is cut into its clauses at the top level, and
each clause becomes the relation the DataFrame API would send (``FROM`` a table, a temp view or
``format.`path```, joins ``ON`` / ``USING``, ``WHERE``, ``GROUP BY``, ``SELECT [DISTINCT]``,
``ORDER BY``, ``LIMIT``), its expressions as expression strings
(:mod:`~lineage_operators.spark.connect.columns.expr_text`). Anything else
(``WITH``, subqueries, ``HAVING``, set operations, ``LATERAL VIEW``, window clauses) gives None:
the statement keeps openlineage-sql's column lineage.
"""

from __future__ import annotations

import re
from typing import Any

_UNSUPPORTED = frozenset(
    {
        "with",
        "having",
        "union",
        "intersect",
        "except",
        "minus",
        "lateral",
        "window",
        "pivot",
        "unpivot",
        "cluster",
        "distribute",
        "sort",
        "tablesample",
        "values",
        "offset",
        "qualify",
        "natural",
    }
)
_JOIN_WORDS = frozenset({"inner", "cross", "left", "right", "full", "outer", "semi", "anti"})
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_JOIN_TYPES = {
    "": 1,
    "inner": 1,
    "cross": 7,
    "left": 3,
    "left outer": 3,
    "right": 4,
    "right outer": 4,
    "full": 2,
    "full outer": 2,
    "left semi": 6,
    "semi": 6,
    "left anti": 5,
    "anti": 5,
}


def _top_level(text: str) -> list[tuple[int, str]]:
    """(offset, lower-cased word) of each word outside parentheses, quotes and backticks."""
    words: list[tuple[int, str]] = []
    depth, index, quote = 0, 0, ""
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0:
            match = _WORD.match(text, index)
            if match is not None and (
                index == 0 or not (text[index - 1].isalnum() or text[index - 1] == "_")
            ):
                words.append((index, match.group().lower()))
                index = match.end()
                continue
        index += 1
    return words


def _split_commas(text: str) -> list[str]:
    parts, depth, start, quote = [], 0, 0, ""
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        elif char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def select_text(statement: str) -> str | None:
    """The ``SELECT ...`` of a query, CTAS or ``INSERT ... SELECT`` (None: no plain SELECT)."""
    words = _top_level(statement)
    names = [w for _, w in words]
    if "select" not in names or _UNSUPPORTED & set(names):
        return None
    start = next(offset for offset, word in words if word == "select")
    return statement[start:].strip().rstrip(";")


def _expr(text: str) -> Any:
    from pyspark.sql.connect.proto import expressions_pb2

    expr = expressions_pb2.Expression()
    expr.expression_string.expression = text
    return expr


def _source(text: str) -> Any:
    """``db.t [AS] a`` / ``parquet.`/path` [a]`` -> a read (under a SubqueryAlias when aliased)."""
    from pyspark.sql.connect.proto import relations_pb2

    match = re.fullmatch(
        r"\s*((?:`[^`]+`|[A-Za-z_][\w]*)(?:\.(?:`[^`]+`|[A-Za-z_][\w]*))*)(?:\s+(?:AS\s+)?([A-Za-z_]\w*))?\s*",
        text,
        re.IGNORECASE,
    )
    if match is None:
        return None
    name, alias = match.group(1), match.group(2)
    relation = relations_pb2.Relation()
    path = re.fullmatch(r"([A-Za-z]+)\.`([^`]+)`", name)
    if path is not None and path.group(1).lower() in ("parquet", "csv", "json", "orc", "text", "avro"):
        relation.read.data_source.format = path.group(1).lower()
        relation.read.data_source.paths.append(path.group(2))
    else:
        relation.read.named_table.unparsed_identifier = name
    if alias:
        aliased = relations_pb2.Relation()
        aliased.subquery_alias.input.CopyFrom(relation)
        aliased.subquery_alias.alias = alias
        relation = aliased
    return relation


def _from(text: str) -> Any:
    """The FROM clause: a source, then ``[type] JOIN source ON cond | USING (cols)`` ..."""
    from pyspark.sql.connect.proto import relations_pb2

    words = _top_level(text)
    joins = [i for i, (_, w) in enumerate(words) if w == "join"]
    if not joins:
        return _source(text)
    first_kw = joins[0]

    # the join type words right before JOIN
    def type_start(index: int) -> int:
        start = index
        while start > 0 and words[start - 1][1] in (
            "inner",
            "cross",
            "left",
            "right",
            "full",
            "outer",
            "semi",
            "anti",
        ):
            start -= 1
        return start

    relation = _source(text[: words[type_start(first_kw)][0]])
    if relation is None:
        return None
    for n, index in enumerate(joins):
        start = type_start(index)
        kind = " ".join(w for _, w in words[start:index])
        end = words[type_start(joins[n + 1])][0] if n + 1 < len(joins) else len(text)
        body = text[words[index][0] + len("join") : end]
        body_words = _top_level(body)
        on = next((o for o, w in body_words if w in ("on", "using")), None)
        right = _source(body[:on] if on is not None else body)
        join_type = _JOIN_TYPES.get(kind)
        if right is None or join_type is None:
            return None
        joined = relations_pb2.Relation()
        joined.join.left.CopyFrom(relation)
        joined.join.right.CopyFrom(right)
        joined.join.join_type = join_type  # type: ignore[assignment]
        if on is not None:
            keyword = body[on:].split(None, 1)
            rest = keyword[1] if len(keyword) > 1 else ""
            if keyword[0].lower() == "on":
                joined.join.join_condition.CopyFrom(_expr(rest))
            else:
                joined.join.using_columns.extend(
                    c.strip(" `") for c in _split_commas(rest.strip().strip("()"))
                )
        relation = joined
    return relation


def _group(relation: Any, group: str, items: list[str]) -> Any:
    """GROUP BY: a DataFrame aggregate (keys, then values) cut to its values, the SELECT list."""
    from pyspark.sql.connect.proto import relations_pb2

    keys = []
    for key in _split_commas(re.sub(r"^by\s+", "", group, flags=re.IGNORECASE)):
        if not key.isdigit():
            keys.append(key)
            continue
        index = int(key) - 1  # GROUP BY 1: the first item's expression, without its alias
        if not 0 <= index < len(items):
            return None
        item = items[index]
        keys.append(
            re.sub(r"\s+(?:AS\s+)?`?\w+`?\s*$", "", item, flags=re.IGNORECASE) if " " in item else item
        )
    grouped = relations_pb2.Relation()
    grouped.aggregate.input.CopyFrom(relation)
    grouped.aggregate.group_type = relations_pb2.Aggregate.GROUP_TYPE_GROUPBY
    grouped.aggregate.grouping_expressions.extend(_expr(k) for k in keys)
    grouped.aggregate.aggregate_expressions.extend(_expr(i) for i in items)
    renamed = relations_pb2.Relation()
    renamed.to_df.input.CopyFrom(grouped)
    renamed.to_df.column_names.extend(
        [f"_k{i}" for i in range(len(keys))] + [f"_v{i}" for i in range(len(items))]
    )
    projected = relations_pb2.Relation()
    projected.project.input.CopyFrom(renamed)
    for index, item in enumerate(items):  # each value under the name the SELECT gives it
        name = _output_name(item)
        if name is None:
            return None
        projected.project.expressions.append(_expr(f"_v{index} AS `{name.replace('`', '``')}`"))
    return projected


def _output_name(item: str) -> str | None:
    from lineage_operators.spark.connect.columns.expr_text import ExpressionSyntaxError, parse_expression
    from lineage_operators.spark.connect.columns.plan_exprs import auto_name

    try:
        return auto_name(parse_expression(item))
    except ExpressionSyntaxError:
        return None


def _order(relation: Any, order: str) -> Any:
    from pyspark.sql.connect.proto import relations_pb2

    ordered = relations_pb2.Relation()
    ordered.sort.input.CopyFrom(relation)
    for key in _split_commas(re.sub(r"^by\s+", "", order, flags=re.IGNORECASE)):
        bare = re.sub(r"\s+(asc|desc)(\s+nulls\s+(first|last))?\s*$", "", key, flags=re.IGNORECASE)
        ordered.sort.order.add().child.CopyFrom(_expr(bare))
    return ordered


_STARTS = ("select", "from", "where", "group", "order", "limit")


def select_relation(text: str) -> Any:
    """The ``Relation`` of a simple SELECT (see the module docstring), or None."""
    from pyspark.sql.connect.proto import relations_pb2

    select = select_text(text)
    if select is None:
        return None
    starts = [(offset, word) for offset, word in _top_level(select) if word in _STARTS]
    if [w for _, w in starts].count("select") != 1 or [w for _, w in starts].count("from") != 1:
        return None
    clauses: dict[str, str] = {}
    for n, (offset, word) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(select)
        clauses[word] = select[offset + len(word) : end].strip()
    relation = _from(clauses["from"])
    if relation is None:
        return None
    if "where" in clauses:
        filtered = relations_pb2.Relation()
        filtered.filter.input.CopyFrom(relation)
        filtered.filter.condition.CopyFrom(_expr(clauses["where"]))
        relation = filtered
    items_text = clauses["select"]
    distinct = re.match(r"distinct\s+", items_text, re.IGNORECASE)
    items = _split_commas(items_text[distinct.end() :] if distinct else items_text)
    if "group" in clauses:
        relation = _group(relation, clauses["group"], items)
        if relation is None:
            return None
    else:
        projected = relations_pb2.Relation()
        projected.project.input.CopyFrom(relation)
        projected.project.expressions.extend(_expr(i) for i in items)
        relation = projected
    if distinct:
        deduplicated = relations_pb2.Relation()
        deduplicated.deduplicate.input.CopyFrom(relation)
        deduplicated.deduplicate.all_columns_as_keys = True
        relation = deduplicated
    return _order(relation, clauses["order"]) if "order" in clauses else relation


__all__ = ["select_relation", "select_text"]
