"""The pure parsing of the records the JVM-side plan readers return (catalog tables, metrics,
file roots), into the plain values of :mod:`lineage_operators.spark.facts`."""

from __future__ import annotations

import re
from urllib.parse import unquote

from lineage_operators.spark.facts import TableRef
from lineage_operators.spark.jvm.text import CTSEP, NONE, SEP3

_METRIC_RE = re.compile(r"(\w+) -> SQLMetric\(.*?value: (-?\d+)\)")


def sub_fields(field_text: str | None, sep: str) -> list[str | None]:
    if field_text is None or field_text == "":
        return []
    return [None if (v in (NONE, "")) else v for v in field_text.split(sep)]


def field_at(values: list[str | None], index: int) -> str | None:
    return values[index] if index < len(values) else None


def is_true(value: str | None) -> bool:
    return value == "true"


def parse_catalog_table(text: str | None) -> tuple[TableRef | None, str | None, str | None, str | None]:
    """CTSEP record -> (table, location, provider, schema text)."""
    values = sub_fields(text, CTSEP)
    table_name = field_at(values, 1)
    if not table_name:
        return None, None, None, None
    location = uri_to_path(field_at(values, 2))
    return TableRef(field_at(values, 0), table_name), location, field_at(values, 3), field_at(values, 4)


def uri_to_path(uri: str | None) -> str | None:
    """A ``java.net.URI`` string (``file:/a%20b``) as the Hadoop ``Path`` string Spark writes to
    (``file:/a b``): decoded exactly once. ``Path`` strings are used as they are."""
    return unquote(uri) if uri else uri


def _parent(uri: str) -> str:
    head, sep, _ = uri.rstrip("/").rpartition("/")
    if not sep:
        return uri
    if head.endswith(":") or not head:  # file:/x.csv -> file:/
        return head + "/"
    return head


def directories(roots: list[str], leaf_dirs: set[str]) -> list[str]:
    """Roots with files replaced by their parent directory (no file-system calls).

    A root is a file when it is not itself a directory holding files while its parent is: the
    file index already listed every leaf directory, so this needs no ``getFileStatus`` per path.
    A single root stays what it is, file or directory (openlineage-spark's single-file rule).
    """
    if len(roots) == 1:
        return [roots[0].rstrip("/") or roots[0]]
    result: list[str] = []
    for root in roots:
        path = root.rstrip("/") or root
        if leaf_dirs and path not in leaf_dirs and _parent(path) in leaf_dirs:
            path = _parent(path)
        if path not in result:
            result.append(path)
    return result


def parse_metrics(text: str | None) -> dict[str, int]:
    """``Map(numFiles -> SQLMetric(id: 1, name: Some(..), value: 2), ...)`` -> {name: value}."""
    if not text:
        return {}
    return {name: int(value) for name, value in _METRIC_RE.findall(text)}


def v2_format(table_name: str | None) -> str | None:
    """``ParquetTable`` names look like ``parquet file:/p``: the format is the first word."""
    if not table_name:
        return None
    return table_name.split(" ", 1)[0].lower() or None


def pick_sql(field_text: str | None) -> str | None:
    """The first SQL text among the root/children candidates that does not come from a view."""
    for candidate in sub_fields(field_text, SEP3):
        values = sub_fields(candidate, CTSEP)
        text, object_type = field_at(values, 0), field_at(values, 1)
        if text and not object_type:
            return text
    return None


__all__ = [
    "directories",
    "field_at",
    "is_true",
    "parse_catalog_table",
    "parse_metrics",
    "pick_sql",
    "sub_fields",
    "uri_to_path",
    "v2_format",
]
