"""Spark SQL text -> the tables it reads and writes, through ``openlineage-sql``.

Pure. ``openlineage-sql`` (OpenLineage's own lineage parser) gives the input and output tables, and
for each output column the input columns its expression uses (its column lineage); it
does not know Spark's table clauses (``USING parquet``, ``OPTIONS (...)``, ``PARTITIONED BY``...),
so a statement it rejects is parsed again with those clauses removed (they never name a table).
The statement's kind (what a classic session would report as lifecycle) comes from its leading
keywords: CREATE TABLE [AS] -> CREATE, CREATE OR REPLACE / REPLACE TABLE -> OVERWRITE,
INSERT OVERWRITE -> OVERWRITE, INSERT INTO -> no change, DROP/TRUNCATE/ALTER ... RENAME.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lineage_operators._logging import get_logger

log = get_logger(__name__)

#: Data source names that, as ``format.`path``` in a FROM clause, read files.
FILE_SOURCES = frozenset({"parquet", "csv", "json", "orc", "text", "avro", "delta", "binaryfile"})


@dataclass(frozen=True)
class SqlTable:
    """A table named in SQL text; ``path`` is set for ``parquet.`/dir``` reads."""

    name: str
    database: str | None = None
    catalog: str | None = None
    path: str | None = None
    file_format: str | None = None

    @property
    def qualified(self) -> str:
        return ".".join(f"`{p}`" for p in (self.catalog, self.database, self.name) if p)


@dataclass
class SqlStatement:
    """What one statement does: kind, tables read and written."""

    #: query / create / replace / insert / insert_overwrite / merge / drop / truncate / rename / other
    kind: str
    inputs: list[SqlTable] = field(default_factory=list)
    outputs: list[SqlTable] = field(default_factory=list)
    previous: SqlTable | None = None  # rename: the old name
    #: output column (as the query names it) -> the (table, column) pairs its expression uses
    columns: dict[str, list[tuple[SqlTable, str]]] = field(default_factory=dict)

    @property
    def lifecycle(self) -> str | None:
        return _LIFECYCLE.get(self.kind)


_LIFECYCLE = {
    "create": "CREATE",
    "replace": "OVERWRITE",
    "insert_overwrite": "OVERWRITE",
    "drop": "DROP",
    "truncate": "TRUNCATE",
    "rename": "RENAME",
}

_REPLACE = re.compile(r"^\s*REPLACE\s+TABLE\s+", re.IGNORECASE)


def as_create_or_replace(text: str) -> str:
    """Spark's ``REPLACE TABLE ... AS`` (an RTAS) spelled ``CREATE OR REPLACE TABLE``, the only form
    openlineage-sql and sqlglot read; any other statement unchanged."""
    return _REPLACE.sub("CREATE OR REPLACE TABLE ", text, count=1)


_COMMENTS = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)
_KINDS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(CREATE|REPLACE)\b.*?\bVIEW\b", re.S), "other"),
    (re.compile(r"(CREATE\s+OR\s+REPLACE|REPLACE)\s+TABLE\b"), "replace"),
    (re.compile(r"CREATE\s+(EXTERNAL\s+)?TABLE\b"), "create"),
    (re.compile(r"INSERT\s+OVERWRITE\s+(LOCAL\s+)?DIRECTORY\b"), "other"),
    (re.compile(r"INSERT\s+OVERWRITE\b"), "insert_overwrite"),
    (re.compile(r"INSERT\s+INTO\b"), "insert"),
    (re.compile(r"MERGE\s+INTO\b"), "merge"),
    (re.compile(r"DROP\s+TABLE\b"), "drop"),
    (re.compile(r"TRUNCATE\s+TABLE\b"), "truncate"),
    (re.compile(r"ALTER\s+TABLE\b.*\bRENAME\s+TO\b", re.S), "rename"),
    (re.compile(r"(SELECT|WITH|FROM|VALUES|TABLE|\()"), "query"),
]
#: Spark table clauses that openlineage-sql rejects; none of them names a dataset.
_SPARK_CLAUSES = [
    re.compile(r"\bUSING\s+[\w.]+", re.I),
    re.compile(r"\b(OPTIONS|TBLPROPERTIES)\s*\([^)]*\)", re.I),
    re.compile(r"\bPARTITIONED\s+BY\s*\([^)]*\)", re.I),
    re.compile(r"\bCLUSTERED\s+BY\s*\([^)]*\)(\s*SORTED\s+BY\s*\([^)]*\))?\s*INTO\s+\d+\s+BUCKETS", re.I),
    re.compile(r"\b(LOCATION|COMMENT)\s+'(?:[^'\\]|\\.)*'", re.I),
    re.compile(r"\bSTORED\s+AS\s+\w+", re.I),
]


def statement_kind(text: str) -> str:
    head = _COMMENTS.sub(" ", text).strip().upper()
    for pattern, kind in _KINDS:
        if pattern.match(head):
            return kind
    return "other"


def _without_spark_clauses(text: str) -> str:
    for pattern in _SPARK_CLAUSES:
        text = pattern.sub(" ", text)
    return text


def _tables(metas: list[object]) -> list[SqlTable]:
    tables = []
    for meta in metas:
        catalog = getattr(meta, "database", None)
        schema = getattr(meta, "schema", None)
        name = str(getattr(meta, "name", "") or "").strip("`")
        if not name:
            continue
        if catalog is None and schema and schema.lower() in FILE_SOURCES and "/" in name:
            tables.append(SqlTable(name=name, path=name, file_format=schema.lower()))
            continue
        tables.append(SqlTable(name=name, database=schema or None, catalog=catalog or None))
    return tables


def _columns(meta: object) -> dict[str, list[tuple[SqlTable, str]]]:
    columns: dict[str, list[tuple[SqlTable, str]]] = {}
    for lineage in getattr(meta, "column_lineage", None) or []:
        sources = columns.setdefault(str(lineage.descendant.name), [])
        for column in lineage.lineage:
            origin = _tables([column.origin]) if column.origin is not None else []
            if origin and (origin[0], str(column.name)) not in sources:
                sources.append((origin[0], str(column.name)))
    return columns


def parse_statement(text: str) -> SqlStatement:
    """The kind and tables of one Spark SQL statement; an unparsable one has no tables."""
    import openlineage_sql

    kind = statement_kind(text)
    if kind == "other":
        return SqlStatement(kind)
    if kind == "replace":  # openlineage-sql reads Spark's ``REPLACE TABLE ... AS`` only as CREATE OR REPLACE
        text = as_create_or_replace(text)
    meta = openlineage_sql.parse([text], dialect="spark")
    if meta.errors:
        meta = openlineage_sql.parse([_without_spark_clauses(text)], dialect="spark")
    if meta.errors:
        log.debug("lineage capture: openlineage-sql cannot parse a %s statement", kind)
        return SqlStatement(kind)
    statement = SqlStatement(
        kind, inputs=_tables(meta.in_tables), outputs=_tables(meta.out_tables), columns=_columns(meta)
    )
    if kind == "rename":
        # openlineage-sql reports the old name as an input and the new one as the output
        statement.previous = statement.inputs[0] if statement.inputs else None
        statement.inputs = []
    if kind == "query":
        statement.outputs = []
    if kind == "merge":  # a MERGE reads its target too (a classic session lists it as an input)
        statement.inputs += [t for t in statement.outputs if t not in statement.inputs]
    return statement


__all__ = [
    "FILE_SOURCES",
    "SqlStatement",
    "SqlTable",
    "as_create_or_replace",
    "parse_statement",
    "statement_kind",
]
