"""The plain facts read from one Spark execution, and the pure parsing of the JVM's records.

Plain data (no py4j): capture keeps them after the callback returns, naming and facets use them
later (:mod:`lineage_operators.spark.resolve`), the Connect resolver builds the same ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from lineage_operators.spark.jvm import CTSEP, NONE, SEP3

_METRIC_RE = re.compile(r"(\w+) -> SQLMetric\(.*?value: (-?\d+)\)")


@dataclass(frozen=True)
class TableRef:
    """A catalog table identity; ``catalog`` None means Spark's session catalog."""

    database: str | None
    table: str
    catalog: str | None = None


@dataclass
class RelationFacts:
    """One dataset touched by an execution, as plain strings (named later)."""

    location: str | None = None  # physical location URI or path
    table: TableRef | None = None  # catalog identity (symlink) when the dataset is a table
    jdbc_url: str | None = None  # redacted
    jdbc_table: str | None = None
    jdbc_query: str | None = None
    schema_text: str | None = None  # StructType.json
    file_format: str | None = None
    provider: str | None = None  # table provider: parquet, delta, iceberg, hive, jdbc...
    lifecycle: str | None = None  # CREATE / OVERWRITE / DROP / TRUNCATE / RENAME
    previous_table: TableRef | None = None  # RENAME: the old identity
    relation_id: str | None = None  # identity of the JVM relation, to join scan statistics
    rows: int | None = None
    size: int | None = None
    files: int | None = None
    expr_ids: tuple[int, ...] = ()  # the leaf's output attributes, to join column lineage
    version: str | None = None  # datasetVersion (an Iceberg snapshot id: spark/iceberg.py)
    symlink: tuple[str, str] | None = None  # TABLE symlink named by the table's catalog (Iceberg)
    catalog_facts: Any = None  # the table's catalog facet values (Iceberg: spark/iceberg_catalogs.py)
    #: rows, bytes, files the table's current snapshot added (Iceberg): its statistics as an output
    written: tuple[int | None, int | None, int | None] | None = None
    written_version: str | None = None  # the table's current snapshot: the version it has as an output


@dataclass
class ExecutionFacts:
    """What one finished (or failed) execution read and wrote."""

    func_name: str
    succeeded: bool
    qe_id: int | None = None
    query_id: str | None = None
    root: str | None = None  # class name of the analyzed plan's root
    inputs: list[RelationFacts] = field(default_factory=list)
    outputs: list[RelationFacts] = field(default_factory=list)
    sql: str | None = None
    cost_ms: float = 0.0
    column_lineage: Any = None  # PlanColumnLineage of the written query (column_lineage package)
    tags: frozenset[str] | None = None  # an RDD job's job tags (SQL executions: from the status store)


def _sub(field_text: str | None, sep: str) -> list[str | None]:
    if field_text is None or field_text == "":
        return []
    return [None if (v in (NONE, "")) else v for v in field_text.split(sep)]


def _at(values: list[str | None], index: int) -> str | None:
    return values[index] if index < len(values) else None


def _bool(value: str | None) -> bool:
    return value == "true"


def _parse_ct(text: str | None) -> tuple[TableRef | None, str | None, str | None, str | None]:
    """CTSEP record -> (table, location, provider, schema text)."""
    values = _sub(text, CTSEP)
    table_name = _at(values, 1)
    if not table_name:
        return None, None, None, None
    location = uri_to_path(_at(values, 2))
    return TableRef(_at(values, 0), table_name), location, _at(values, 3), _at(values, 4)


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


def _directories(roots: list[str], leaf_dirs: set[str]) -> list[str]:
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


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _add(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else a + b


def _v2_format(table_name: str | None) -> str | None:
    """``ParquetTable`` names look like ``parquet file:/p``: the format is the first word."""
    if not table_name:
        return None
    return table_name.split(" ", 1)[0].lower() or None


def _pick_sql(field_text: str | None) -> str | None:
    """The first SQL text among the root/children candidates that does not come from a view."""
    for candidate in _sub(field_text, SEP3):
        values = _sub(candidate, CTSEP)
        text, object_type = _at(values, 0), _at(values, 1)
        if text and not object_type:
            return text
    return None


__all__ = ["ExecutionFacts", "RelationFacts", "TableRef", "parse_metrics", "uri_to_path"]
