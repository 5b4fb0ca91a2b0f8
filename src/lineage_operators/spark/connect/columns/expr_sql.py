"""Expression terms of a Connect plan -> the text Spark's ``Expression.sql()`` prints for them.

Pure. With ``column_lineage_descriptions`` on, the classic plan writer puts each top expression's
``sql()`` on the plan JSON (``"sql"``); a Connect client has no analyzed plan, so the translation
(:mod:`~lineage_operators.spark.connect.columns.plan_translate`) renders the same text from its own terms
(:mod:`~lineage_operators.spark.connect.columns.plan_exprs`), in Spark's
style: functions lower case (``sum(amount)``, ``count(1)``), binary operators parenthesized
(``(amount * 2)``, ``(status = 'paid')``), ``CASE WHEN ... END``, ``CAST(x AS INT)``, literals as
Spark prints them (``'paid'``, ``10L``, ``1.5D``), a column qualified as the analyzer qualifies it.
What the analyzer rewrites (implicit casts, window frames) is not reproduced. A term this cannot
render gives None: that entry has no text (never a wrong one).

Literal values are kept in the terms only while descriptions are wanted (:func:`keeping_literals`),
so nothing costs more when they are off. The text is capped as the JVM side caps it; redaction and
the final cut are :func:`lineage_operators.column_lineage.descriptions.clean`'s, as for classic.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

_KEEP_LITERALS: ContextVar[bool] = ContextVar("lineage_operators_keep_literals", default=False)
_PLAIN_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")

#: Binary operators: term name -> Spark's ``sqlOperator``.
_BINARY = {
    "==": "=",
    "<=>": "<=>",
    "<": "<",
    "<=": "<=",
    ">": ">",
    ">=": ">=",
    "and": "AND",
    "or": "OR",
    "+": "+",
    "-": "-",
    "*": "*",
    "/": "/",
    "%": "%",
    "div": "div",
}
#: ``DataType.json`` names -> ``DataType.sql``.
_TYPES = {
    "integer": "INT",
    "long": "BIGINT",
    "short": "SMALLINT",
    "byte": "TINYINT",
    "double": "DOUBLE",
    "float": "FLOAT",
    "string": "STRING",
    "boolean": "BOOLEAN",
    "date": "DATE",
    "timestamp": "TIMESTAMP",
    "timestamp_ntz": "TIMESTAMP_NTZ",
    "binary": "BINARY",
}
#: Function names Spark prints otherwise (``prettyName``).
_PRETTY = {"mean": "avg", "count_distinct": "count", "sum_distinct": "sum", "std": "stddev"}
#: Most characters kept of a text (as the JVM plan writer caps it).
_CAP = 4000


def keeping_literals() -> bool:
    """Whether terms made now keep their literals' text (descriptions wanted)."""
    return _KEEP_LITERALS.get()


@contextlib.contextmanager
def literals_kept(on: bool) -> Iterator[None]:
    """Terms made inside keep their literals' text (``("lit", text)``) when ``on``."""
    token = _KEEP_LITERALS.set(on)
    try:
        yield
    finally:
        _KEEP_LITERALS.reset(token)


def quoted(name: str) -> str:
    """Spark's ``quoteIfNeeded``: a name that is not a plain identifier goes in backticks."""
    return name if _PLAIN_NAME.fullmatch(name) else "`" + name.replace("`", "``") + "`"


def string_literal(value: str) -> str:
    """A string literal as Spark prints it (single quotes, backslash escapes)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def number_literal(text: str) -> str | None:
    """A number of SQL text (``10``, ``10L``, ``1.5``, ``1e3``, ``2D``) as Spark's literal prints it."""
    lowered = text.lower()
    suffix = {"l": "L", "d": "D", "f": "F", "s": "S", "y": "Y", "bd": "BD"}
    for tail in ("bd", "l", "d", "f", "s", "y"):
        if lowered.endswith(tail) and lowered[: -len(tail)].replace(".", "", 1).isdigit():
            return lowered[: -len(tail)] + suffix[tail]
    if lowered.isdigit():
        return lowered if int(lowered) <= 2**31 - 1 else lowered + "L"
    if "e" in lowered:
        try:
            return repr(float(lowered)) + "D"
        except ValueError:
            return None
    return lowered + "BD" if lowered.replace(".", "", 1).isdigit() else None


def proto_literal(literal: Any) -> str | None:
    """The text of a Connect ``Expression.Literal`` as Spark's ``Literal.sql`` prints it."""
    kind = literal.WhichOneof("literal_type")
    if kind == "null":
        return "NULL"
    if kind == "boolean":
        return "true" if literal.boolean else "false"
    if kind == "string":
        return string_literal(literal.string)
    if kind == "integer":
        return str(literal.integer)
    suffixes = {"long": "L", "short": "S", "byte": "Y"}
    if kind in suffixes:
        return f"{getattr(literal, kind)}{suffixes[kind]}"
    if kind in ("double", "float"):
        value = float(getattr(literal, kind))
        if math.isnan(value) or math.isinf(value):
            return None
        return repr(value) + ("D" if kind == "double" else "F")
    if kind == "decimal":
        return f"{literal.decimal.value}BD"
    return None


def type_sql(name: str) -> str:
    """A ``DataType.json`` name (``long``, ``decimal(10,2)``) as ``DataType.sql`` (``BIGINT``)."""
    return _TYPES.get(name, name.upper())


def sort_text(ascending: bool, nulls_first: bool | None) -> str:
    """``ASC NULLS FIRST``: a sort order's direction as ``SortOrder.sql`` prints it (Spark's
    defaults: nulls first ascending, last descending)."""
    first = ascending if nulls_first is None else nulls_first
    return f"{'ASC' if ascending else 'DESC'} NULLS {'FIRST' if first else 'LAST'}"


#: A column term (parts, plan id) -> its text (``o.order_id``), or None.
ColumnText = Callable[[Any, Any], "str | None"]


def sql_of(term: Any, column: ColumnText) -> str | None:
    """The ``sql()`` text of a term, or None when some part has no known text."""
    try:
        text = _sql(term, column)
    except (LookupError, TypeError, ValueError):
        return None
    return text[:_CAP] if text is not None else None


def _all(args: Any, column: ColumnText) -> list[str] | None:
    texts = [_sql(arg, column) for arg in args]
    return None if any(t is None for t in texts) else [t for t in texts if t is not None]


def _sql(term: Any, column: ColumnText) -> str | None:
    kind = term[0]
    if kind == "lit":
        return term[1] if len(term) > 1 else None
    if kind == "col":
        return column(term[1], term[2])
    if kind == "alias":
        inner = _sql(term[1], column)
        return None if inner is None or len(term[2]) != 1 else f"{inner} AS {quoted(term[2][0])}"
    if kind == "cast":
        inner = _sql(term[1], column)
        return None if inner is None else f"CAST({inner} AS {type_sql(term[2])})"
    if kind == "sort":
        inner = _sql(term[1], column)
        return None if inner is None else f"{inner} {term[2] if len(term) > 2 else sort_text(True, None)}"
    if kind == "window":
        return _window(term, column)
    if kind != "fn":
        return None
    name, raw = term[1], term[2]
    distinct = len(term) > 3 and bool(term[3])
    if name == "count" and len(raw) == 1 and raw[0][0] == "star":
        return "count(1)"
    args = _all(raw, column)
    if args is None:
        return None
    if name in _BINARY and len(args) == 2:
        return f"({args[0]} {_BINARY[name]} {args[1]})"
    if name in ("!=", "<>") and len(args) == 2:
        return f"(NOT ({args[0]} = {args[1]}))"
    if name in ("not", "!") and len(args) == 1:
        return f"(NOT {args[0]})"
    if name in ("isnull", "isnotnull") and len(args) == 1:
        return f"({args[0]} IS {'NOT ' if name == 'isnotnull' else ''}NULL)"
    if name == "negative" and len(args) == 1:
        return f"(- {args[0]})"
    if name == "in" and args:
        return f"({args[0]} IN ({', '.join(args[1:])}))"
    if name == "like" and len(args) == 2:
        return f"{args[0]} LIKE {args[1]}"
    if name == "when" and len(args) >= 2:
        branches = " ".join(f"WHEN {args[i]} THEN {args[i + 1]}" for i in range(0, len(args) - 1, 2))
        otherwise = f" ELSE {args[-1]}" if len(args) % 2 else ""
        return f"CASE {branches}{otherwise} END"
    if name in ("getfield", "element_at") or name.startswith("udf:") or not _PLAIN_NAME.fullmatch(name):
        return None
    shown = _PRETTY.get(name, name)
    return f"{shown}({'DISTINCT ' if distinct or name.endswith('_distinct') else ''}{', '.join(args)})"


def _window(term: Any, column: ColumnText) -> str | None:
    """``f() OVER (PARTITION BY ... ORDER BY ...)``: without the frame the analyzer adds."""
    function = _sql(term[1], column)
    partitions = _all(term[2], column)
    orders = _all(term[3], column)
    if function is None or partitions is None or orders is None:
        return None
    spec = []
    if partitions:
        spec.append("PARTITION BY " + ", ".join(partitions))
    if orders:
        spec.append("ORDER BY " + ", ".join(orders))
    return f"{function} OVER ({' '.join(spec)})"


__all__ = [
    "ColumnText",
    "keeping_literals",
    "literals_kept",
    "number_literal",
    "proto_literal",
    "quoted",
    "sort_text",
    "sql_of",
    "string_literal",
    "type_sql",
]
