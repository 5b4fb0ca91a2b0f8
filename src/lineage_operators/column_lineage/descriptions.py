"""Transformation descriptions: the text of the expression a column goes through, made safe to emit.

Pure (standard library and :mod:`lineage_operators.redaction` only). With
``column_lineage_descriptions`` on, the plan JSON carries Spark's own ``Expression.sql()`` of the
top expressions that make entries (``"sql"`` on each entry of a project / aggregate / window list
and on the top expression of a filter, join, grouping or sort field; the plan writer already
applied ``spark.sql.redaction.string.regex``). The engine places them as openlineage-spark does: a
field's transformations carry its project entry's text (``sum(amount) AS total``, a bare column's
name), a dataset entry its clause (``WHERE (status = 'paid')``, ``GROUP BY a, b``,
``INNER JOIN ON (l.id = r.id)``, ``SORT BY a ASC NULLS FIRST``). Unlike it, the texts are the
analyzed plan's (``CAST(100 AS DOUBLE)`` where the jar's optimized plan shows ``100.0D``), and
the optimizer's inferred ``IS NOT NULL`` filters have none.

Over Spark Connect the client has no analyzed plan: the translation renders the same texts from
the client's protobuf expressions (:mod:`lineage_operators.spark.connect.columns.expr_sql`), identical
except where the analyzer rewrites an expression (implicit casts, window frames, renames in place).

What a backend gets is :func:`clean` of it: the project's secret redaction (a literal can hold a
password: ``'password=...'``, ``IDENTIFIED BY ...``, URLs with credentials, bearer tokens), then
cut at :data:`MAX_DESCRIPTION_CHARS` with :data:`TRUNCATED_MARKER` (a 200-branch ``CASE WHEN``
would otherwise be repeated, whole, in every input field it describes).

The JVM side caps what it writes at :data:`JVM_CAP_CHARS` (more than the limit, so the marker
below still shows a text was longer, and redaction sees more than what is kept).
"""

from __future__ import annotations

from lineage_operators.redaction import redact_text

#: Longest description emitted, in characters, marker included.
MAX_DESCRIPTION_CHARS = 1000
#: Ends a description that was cut.
TRUNCATED_MARKER = "...[truncated]"
#: What the plan writer keeps of an expression's text (the JSON stays bounded on huge expressions).
JVM_CAP_CHARS = 4 * MAX_DESCRIPTION_CHARS

_cache: dict[str, str] = {}


def truncate(text: str, limit: int = MAX_DESCRIPTION_CHARS) -> str:
    """``text``, or its first characters and :data:`TRUNCATED_MARKER` within ``limit`` characters."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(TRUNCATED_MARKER))] + TRUNCATED_MARKER


def clean(text: object) -> str:
    """The description to emit for an expression text from a plan ("" for anything not a text)."""
    if not isinstance(text, str) or not text:
        return ""
    found = _cache.get(text)
    if found is None:
        found = truncate(redact_text(text))
        if len(_cache) < 10_000:
            _cache[text] = found
    return found


__all__ = ["JVM_CAP_CHARS", "MAX_DESCRIPTION_CHARS", "TRUNCATED_MARKER", "clean", "truncate"]
