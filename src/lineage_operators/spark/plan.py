"""Reading the datasets of one Spark execution from its analyzed logical plan.

Runs on the listener-bus thread inside the query listener callback, so it extracts plain facts at
once (the ``QueryExecution`` may not be usable later, and a dropped table is gone from the
catalog) and keeps py4j round trips constant in the plan size: every leaf of the plan, of its
subqueries and of a write command's query is read by JVM-side functions built in
:mod:`lineage_operators.spark.jvm` (one ``map`` + ``mkString`` for all leaves), and the root command
by one more. Naming and facets happen later, in plain Python (:mod:`lineage_operators.spark.resolve`).

Node coverage (class -> what is read):

* inputs, leaves: ``LogicalRelation`` over ``HadoopFsRelation`` (file index root paths; a root that
  is a file stands for its parent directory, as openlineage-spark ``PlanUtils.getDirectoryPath``,
  unless it is the only root: then the file is the dataset, as ``LogicalRelationDatasetBuilder``),
  over ``JDBCRelation`` (url + ``dbtable``/``query``), or with a ``catalogTable`` (table location +
  identity); ``HiveTableRelation``; ``DataSourceV2Relation`` (``V1Table``, ``FileTable`` roots,
  or the table's ``location`` property). ``LocalRelation``, ``Range``, ``LogicalRDD``... are not
  datasets. Cached DataFrames need nothing special: the analyzed plan still holds the relations
  the cache was built from.
* outputs, root command (:func:`_cmd_fields`, :meth:`PlanReader._outputs`):
  ``InsertIntoHadoopFsRelationCommand`` (output path; its catalog table when inserting into one),
  ``CreateDataSourceTableAsSelectCommand`` / ``CreateHiveTableAsSelectCommand`` and
  ``CreateDataSourceTableCommand`` / ``CreateTableCommand`` (CREATE; table location or the
  catalog's default path), ``SaveIntoDataSourceCommand`` (JDBC url + dbtable, else ``path``),
  ``InsertIntoDataSourceCommand``, ``InsertIntoDataSourceDirCommand`` / ``InsertIntoHiveDirCommand``,
  ``InsertIntoHiveTable``, ``LoadDataCommand`` (the loaded path is an input), ``TruncateTableCommand``
  and ``AlterTableRenameCommand`` (looked up in the catalog), ``DropTableCommand`` / ``DropTable``,
  V2 ``AppendData`` / ``OverwriteByExpression`` / ``OverwritePartitionsDynamic`` (the target
  relation) and ``CreateTableAsSelect`` / ``ReplaceTableAsSelect`` / ``CreateTable`` / ``ReplaceTable``
  (loaded from their catalog). ``SaveAsV1TableCommand`` (``saveAsTable``) is covered by the CTAS or
  insert it runs as a nested execution.
* statistics: write metrics of ``DataWritingCommandExec``; inputs: what the relation is
  (:mod:`lineage_operators.spark.statistics`).
* SQL text: the parser's ``Origin.sqlText`` of the root or of its first descendants (not a view's).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import unquote

from lineage_operators._logging import get_logger
from lineage_operators.spark import iceberg  # iceberg hook
from lineage_operators.spark._errors import describe
from lineage_operators.spark.alter import alter_outputs, is_alter
from lineage_operators.spark.execution_ids import query_key
from lineage_operators.spark.jvm import (
    CTSEP,
    NONE,
    RSEP,
    SEP,
    SEP3,
    JvmTools,
    split_list,
    split_records,
)
from lineage_operators.spark.plan_json import expr_ids_field, parse_expr_ids
from lineage_operators.spark.rdd import logical_rdd_locations
from lineage_operators.spark.statistics import read_relation_stats, write_metrics_text

log = get_logger(__name__)

# --------------------------------------------------------------------------------------------
# plain facts
# --------------------------------------------------------------------------------------------


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
    version: str | None = None  # iceberg hook: datasetVersion (an Iceberg snapshot id)
    symlink: tuple[str, str] | None = None  # iceberg hook: TABLE symlink named by the table's catalog


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


# --------------------------------------------------------------------------------------------
# class names
# --------------------------------------------------------------------------------------------

_DS = "org.apache.spark.sql.execution.datasources"
_CMD = "org.apache.spark.sql.execution.command"
_LOGICAL = "org.apache.spark.sql.catalyst.plans.logical"
_HIVE = "org.apache.spark.sql.hive.execution"

LR = f"{_DS}.LogicalRelation"
HFR = f"{_DS}.HadoopFsRelation"
FILE_INDEX = f"{_DS}.FileIndex"
PAFI = f"{_DS}.PartitioningAwareFileIndex"
JDBC_REL = f"{_DS}.jdbc.JDBCRelation"
JDBC_OPTS = f"{_DS}.jdbc.JDBCOptions"
CI_MAP = "org.apache.spark.sql.catalyst.util.CaseInsensitiveMap"
HIVE_REL = "org.apache.spark.sql.catalyst.catalog.HiveTableRelation"
DSV2_REL = f"{_DS}.v2.DataSourceV2Relation"
FILE_TABLE = f"{_DS}.v2.FileTable"
V1_TABLE = "org.apache.spark.sql.connector.catalog.V1Table"
TABLE = "org.apache.spark.sql.connector.catalog.Table"
CATALOG_PLUGIN = "org.apache.spark.sql.connector.catalog.CatalogPlugin"
IDENTIFIER = "org.apache.spark.sql.connector.catalog.Identifier"
CATALOG_TABLE = "org.apache.spark.sql.catalyst.catalog.CatalogTable"
STORAGE = "org.apache.spark.sql.catalyst.catalog.CatalogStorageFormat"
TABLE_ID = "org.apache.spark.sql.catalyst.TableIdentifier"
QUERY_PLAN = "org.apache.spark.sql.catalyst.plans.QueryPlan"
TREE_NODE = "org.apache.spark.sql.catalyst.trees.TreeNode"
STRUCT = "org.apache.spark.sql.types.StructType"
ORIGIN = "org.apache.spark.sql.catalyst.trees.Origin"
OPTION = "scala.Option"
REGISTER = "org.apache.spark.sql.sources.DataSourceRegister"
RESOLVED_ID = "org.apache.spark.sql.catalyst.analysis.ResolvedIdentifier"

INSERT_HADOOP = f"{_DS}.InsertIntoHadoopFsRelationCommand"
CTAS_DS = f"{_CMD}.CreateDataSourceTableAsSelectCommand"
CREATE_DS = f"{_CMD}.CreateDataSourceTableCommand"
CREATE_TABLE = f"{_CMD}.CreateTableCommand"
SAVE_INTO = f"{_DS}.SaveIntoDataSourceCommand"
INSERT_DS = f"{_DS}.InsertIntoDataSourceCommand"
INSERT_DS_DIR = f"{_CMD}.InsertIntoDataSourceDirCommand"
LOAD_DATA = f"{_CMD}.LoadDataCommand"
TRUNCATE = f"{_CMD}.TruncateTableCommand"
RENAME = f"{_CMD}.AlterTableRenameCommand"
DROP_V1 = f"{_CMD}.DropTableCommand"
DROP_V2 = f"{_LOGICAL}.DropTable"
INSERT_HIVE = f"{_HIVE}.InsertIntoHiveTable"
CTAS_HIVE = f"{_HIVE}.CreateHiveTableAsSelectCommand"
CTAS_HIVE_OPT = f"{_HIVE}.OptimizedCreateHiveTableAsSelectCommand"
INSERT_HIVE_DIR = f"{_HIVE}.InsertIntoHiveDirCommand"
V2_WRITES = (
    f"{_LOGICAL}.AppendData",
    f"{_LOGICAL}.OverwriteByExpression",
    f"{_LOGICAL}.OverwritePartitionsDynamic",
)
V2_CREATES = (
    f"{_LOGICAL}.CreateTableAsSelect",
    f"{_LOGICAL}.ReplaceTableAsSelect",
    f"{_LOGICAL}.CreateTable",
    f"{_LOGICAL}.ReplaceTable",
)
#: Commands whose query is an inner child (not a child): its leaves are inputs too.
_INNER_QUERY = (SAVE_INTO, INSERT_DS, INSERT_DS_DIR, CTAS_DS, f"{_CMD}.SaveAsV1TableCommand", *V2_CREATES)
_V2_CREATE_LIFECYCLE = {
    f"{_LOGICAL}.CreateTableAsSelect": "CREATE",
    f"{_LOGICAL}.CreateTable": "CREATE",
    f"{_LOGICAL}.ReplaceTableAsSelect": "OVERWRITE",
    f"{_LOGICAL}.ReplaceTable": "OVERWRITE",
}

_METRIC_RE = re.compile(r"(\w+) -> SQLMetric\(.*?value: (-?\d+)\)")
_SESSION_CATALOG = "spark_catalog"

# --------------------------------------------------------------------------------------------
# JVM-side functions
# --------------------------------------------------------------------------------------------


def _ct_record(t: JvmTools, with_schema: bool = False) -> Any:
    """CatalogTable -> db, table, location, provider[, schema] joined with CTSEP."""
    fields = [
        t.opt(t.chain((CATALOG_TABLE, "identifier"), (TABLE_ID, "database"))),
        t.chain((CATALOG_TABLE, "identifier"), (TABLE_ID, "table")),
        t.opt(t.chain((CATALOG_TABLE, "storage"), (STORAGE, "locationUri"))),
        t.opt(t.step(CATALOG_TABLE, "provider")),
    ]
    if with_schema:
        fields.append(t.chain((CATALOG_TABLE, "schema"), (STRUCT, "json")))
    return t.record(fields, CTSEP)


def _schema(t: JvmTools, query_of: str | None = None) -> Any:
    """Schema JSON of the argument plan, or of its ``query`` when ``query_of`` is given.

    JSON (not DDL) because its atomic type names are exactly ``DataType.typeName``, what
    openlineage-spark reports; ~2.5 ms JVM-side for 300 columns.
    """
    steps: list[Any] = [(query_of, "query")] if query_of else []
    return t.chain(*steps, (QUERY_PLAN, "schema"), (STRUCT, "json"))


def _relation_schema(t: JvmTools, then: Any) -> Any:
    """``then`` applied to the schema of a relation leaf (LogicalRelation, Hive, DSv2)."""
    schema = t.chain((QUERY_PLAN, "schema"), then)
    return t.when(LR, schema, t.when(HIVE_REL, schema, t.when(DSV2_REL, schema)))


def _leaf_fields(t: JvmTools, schema_json: bool = False) -> list[Any]:
    """Field handles of a leaf record: see :meth:`PlanReader._parse_leaf` for their order.

    Field 5 is the schema's JSON when ``schema_json``, else its hash code: a plan reading many
    sources with one schema (a 50-way union) then serializes that schema once, not 50 times
    (:func:`_build_schemas_fn`).
    """
    relation = (LR, "relation")
    key_set = (t.line.collection_class("map"), "keySet")
    hfr_paths = t.when(HFR, t.mk_string(t.chain((HFR, "location"), (FILE_INDEX, "rootPaths"))))
    hfr_dirs = t.when(
        HFR,
        t.chain(
            (HFR, "location"),
            t.when(PAFI, t.mk_string(t.chain((PAFI, "leafDirToChildrenFiles"), key_set))),
        ),
    )
    v2_table = (DSV2_REL, "table")
    ft_paths = t.when(FILE_TABLE, t.mk_string(t.chain((FILE_TABLE, "fileIndex"), (FILE_INDEX, "rootPaths"))))
    ft_dirs = t.when(
        FILE_TABLE,
        t.chain(
            (FILE_TABLE, "fileIndex"),
            t.when(PAFI, t.mk_string(t.chain((PAFI, "leafDirToChildrenFiles"), key_set))),
        ),
    )
    ct = _ct_record(t)
    ct_of_leaf = t.when(
        LR,
        t.option_map(t.step(LR, "catalogTable"), ct),
        t.when(
            HIVE_REL,
            t.chain((HIVE_REL, "tableMeta"), ct),
            t.when(DSV2_REL, t.chain(v2_table, t.when(V1_TABLE, t.chain((V1_TABLE, "v1Table"), ct)))),
        ),
    )
    jdbc_options = (JDBC_REL, "jdbcOptions")
    jdbc = t.record(
        [
            t.chain(jdbc_options, (JDBC_OPTS, "url")),
            t.opt(
                t.chain(
                    jdbc_options, (JDBC_OPTS, "parameters"), (CI_MAP, "get", ("java.lang.String", "dbtable"))
                )
            ),
            t.opt(
                t.chain(
                    jdbc_options, (JDBC_OPTS, "parameters"), (CI_MAP, "get", ("java.lang.String", "query"))
                )
            ),
        ],
        SEP3,
    )
    prop = ("java.util.Map", "get")
    v2 = t.record(
        [
            t.chain(v2_table, (TABLE, "name")),
            t.chain(v2_table, (TABLE, "properties"), (*prop, ("java.lang.Object", "location"))),
            t.chain(v2_table, (TABLE, "properties"), (*prop, ("java.lang.Object", "provider"))),
            t.chain(v2_table, (TABLE, "properties"), (*prop, ("java.lang.Object", "format"))),
            t.option_map(t.step(DSV2_REL, "catalog"), t.step(CATALOG_PLUGIN, "name")),
            t.option_map(
                t.step(DSV2_REL, "identifier"), t.chain((IDENTIFIER, "namespace"), t.array_join("."))
            ),
            t.option_map(t.step(DSV2_REL, "identifier"), t.step(IDENTIFIER, "name")),
            iceberg.snapshot_field(t),  # iceberg hook: snapshot ids of an Iceberg table
        ],
        SEP3,
    )
    fields = [
        t.chain(("java.lang.Object", "getClass"), ("java.lang.Class", "getName")),
        t.when(LR, t.chain(relation, ("java.lang.Object", "getClass"), ("java.lang.Class", "getName"))),
        t.when(LR, t.chain(relation, ("java.lang.Object", "toString"))),
        t.when(LR, t.chain(relation, hfr_paths), t.when(DSV2_REL, t.chain(v2_table, ft_paths))),
        t.when(LR, t.chain(relation, hfr_dirs), t.when(DSV2_REL, t.chain(v2_table, ft_dirs))),
        _relation_schema(t, t.step(STRUCT, "json" if schema_json else "hashCode")),
        ct_of_leaf,
        t.when(LR, t.chain(relation, t.when(JDBC_REL, jdbc))),
        t.when(DSV2_REL, v2),
        t.when(LR, t.chain(relation, _identity_hash(t))),
        expr_ids_field(t),
    ]
    return fields


def _identity_hash(t: JvmTools) -> Any:
    """``System.identityHashCode``: the physical scan of a relation holds the very same object."""
    return t.static("java.lang.System", "identityHashCode", ["java.lang.Object"])


def _build_leaf_fn(t: JvmTools) -> Any:
    """The function reading one leaf node into a :data:`SEP`-joined record (see _parse_leaf)."""
    return t.function(t.record(_leaf_fields(t)))


def _build_leaf_builder_fn(t: JvmTools) -> Any:
    """As :func:`_build_leaf_fn` with the schema JSON inline, for one node read on its own."""
    return t.function(t.builder(t.record(_leaf_fields(t, schema_json=True))))


def _build_leaf_schema_fn(t: JvmTools) -> Any:
    """Leaf -> its relation's StructType (or NONE): ``distinct()`` then drops equal schemas."""
    return t.function(_relation_schema(t, t.identity()))


def _build_schema_record_fn(t: JvmTools) -> Any:
    """StructType -> hash code and JSON."""
    return t.function(t.when(STRUCT, t.record([t.step(STRUCT, "hashCode"), t.step(STRUCT, "json")])))


def _build_collect_leaves_fn(t: JvmTools) -> Any:
    return t.function(t.step(TREE_NODE, "collectLeaves"))


def _cmd_fields(t: JvmTools) -> list[tuple[str, Callable[[], list[Any]]]]:
    """(command class, builder of its field handles) for every write command read at the root.

    Builders are lazy: a command class missing from this Spark build (e.g. no Hive module) is
    skipped before any of its methods is looked up.
    """
    ct = _ct_record(t)
    ct_full = _ct_record(t, with_schema=True)

    def tid(getter: tuple[str, str]) -> list[Any]:
        return [t.chain(getter, t.opt(t.step(TABLE_ID, "database"))), t.chain(getter, (TABLE_ID, "table"))]

    def fmt(cls: str) -> Any:
        return t.chain(
            (cls, "fileFormat"),
            t.when(REGISTER, t.step(REGISTER, "shortName"), t.step("java.lang.Object", "toString")),
        )

    def option(cls: str, key: str) -> Any:
        get = (t.line.collection_class("map"), "get", ("java.lang.Object", key))
        return t.opt(t.chain((cls, "options"), get))

    def resolved(getter: tuple[str, str]) -> list[Any]:
        handles = [
            t.chain((RESOLVED_ID, "catalog"), (CATALOG_PLUGIN, "name")),
            t.chain((RESOLVED_ID, "identifier"), (IDENTIFIER, "namespace"), t.array_join(".")),
            t.chain((RESOLVED_ID, "identifier"), (IDENTIFIER, "name")),
        ]
        return [t.chain(getter, t.when(RESOLVED_ID, h)) for h in handles]

    def ctas(cls: str, getter: str) -> tuple[str, Callable[[], list[Any]]]:
        return cls, lambda: [t.chain((cls, getter), ct), t.step(cls, "mode"), _schema(t, cls)]

    table: list[tuple[str, Callable[[], list[Any]]]] = [
        (
            INSERT_HADOOP,
            lambda: [
                t.chain((INSERT_HADOOP, "outputPath"), ("java.lang.Object", "toString")),
                t.step(INSERT_HADOOP, "mode"),
                t.option_map(t.step(INSERT_HADOOP, "catalogTable"), ct),
                _schema(t, INSERT_HADOOP),
                fmt(INSERT_HADOOP),
            ],
        ),
        ctas(CTAS_DS, "table"),
        (CREATE_DS, lambda: [t.chain((CREATE_DS, "table"), ct_full)]),
        (CREATE_TABLE, lambda: [t.chain((CREATE_TABLE, "table"), ct_full)]),
        (
            SAVE_INTO,
            lambda: [
                t.chain(
                    (SAVE_INTO, "dataSource"),
                    ("java.lang.Object", "getClass"),
                    ("java.lang.Class", "getName"),
                ),
                t.step(SAVE_INTO, "mode"),
                option(SAVE_INTO, "url"),
                option(SAVE_INTO, "dbtable"),
                option(SAVE_INTO, "query"),
                option(SAVE_INTO, "path"),
                _schema(t, SAVE_INTO),
                t.chain((SAVE_INTO, "dataSource"), t.when(REGISTER, t.step(REGISTER, "shortName"))),
            ],
        ),
        (INSERT_DS, lambda: [t.step(INSERT_DS, "overwrite"), _schema(t, INSERT_DS)]),
        (
            INSERT_DS_DIR,
            lambda: [
                t.opt(t.chain((INSERT_DS_DIR, "storage"), (STORAGE, "locationUri"))),
                t.step(INSERT_DS_DIR, "provider"),
                t.step(INSERT_DS_DIR, "overwrite"),
                _schema(t, INSERT_DS_DIR),
            ],
        ),
        (
            LOAD_DATA,
            lambda: [
                *tid((LOAD_DATA, "table")),
                t.step(LOAD_DATA, "path"),
                t.step(LOAD_DATA, "isLocal"),
                t.step(LOAD_DATA, "isOverwrite"),
            ],
        ),
        (TRUNCATE, lambda: tid((TRUNCATE, "tableName"))),
        (RENAME, lambda: [*tid((RENAME, "oldName")), *tid((RENAME, "newName")), t.step(RENAME, "isView")]),
        (
            DROP_V1,
            lambda: [*tid((DROP_V1, "tableName")), t.step(DROP_V1, "ifExists"), t.step(DROP_V1, "isView")],
        ),
        (DROP_V2, lambda: [*resolved((DROP_V2, "child")), t.step(DROP_V2, "ifExists")]),
        (
            INSERT_HIVE,
            lambda: [
                t.chain((INSERT_HIVE, "table"), ct),
                t.step(INSERT_HIVE, "overwrite"),
                _schema(t, INSERT_HIVE),
            ],
        ),
        ctas(CTAS_HIVE, "tableDesc"),
        ctas(CTAS_HIVE_OPT, "tableDesc"),
        (
            INSERT_HIVE_DIR,
            lambda: [
                t.opt(t.chain((INSERT_HIVE_DIR, "storage"), (STORAGE, "locationUri"))),
                t.step(INSERT_HIVE_DIR, "overwrite"),
                _schema(t, INSERT_HIVE_DIR),
            ],
        ),
    ]
    for cls in V2_WRITES:
        table.append((cls, lambda cls=cls: [_schema(t, cls)]))  # type: ignore[misc]
    for cls in V2_CREATES:
        table.append((cls, lambda cls=cls: resolved((cls, "name"))))  # type: ignore[misc]
    return table


def _build_root_fn(t: JvmTools) -> Any:
    """Root plan -> class name, the command's fields (SEP3-joined) and SQL text candidates."""
    dispatch = t.constant(NONE)
    for cls, fields in reversed(_cmd_fields(t)):
        if not t.has_class(cls):
            continue
        try:
            dispatch = t.when(cls, t.record(fields(), SEP3), dispatch)
        except Exception as exc:  # a Spark version without one of the methods: skip that command
            log.debug("lineage capture: cannot read %s on this Spark version: %s", cls, describe(exc))
    origin = (TREE_NODE, "origin")
    sql = [t.opt(t.chain(origin, (ORIGIN, "sqlText"))), t.opt(t.chain(origin, (ORIGIN, "objectType")))]
    head = (t.line.collection_class("iterable"), "head")
    child0 = t.chain((TREE_NODE, "children"), head)
    inner0 = t.chain((QUERY_PLAN, "innerChildren"), head)
    candidates = [
        t.identity(),
        child0,
        inner0,
        t.chain(child0, child0),
        t.chain(child0, child0, child0),
    ]
    sql_record = t.record([t.record([t.chain(c, h) for h in sql], CTSEP) for c in candidates], SEP3)
    return t.function(
        t.builder(
            t.record(
                [
                    t.chain(("java.lang.Object", "getClass"), ("java.lang.Class", "getName")),
                    dispatch,
                    sql_record,
                ]
            )
        )
    )


# --------------------------------------------------------------------------------------------
# parsing helpers
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# the reader
# --------------------------------------------------------------------------------------------


class PlanReader:
    """Reads :class:`ExecutionFacts` from ``QueryExecution`` objects of one session."""

    def __init__(
        self, tools: JvmTools, jsession: Any, redact_url: Any, columns: Any = None, tables: Any = None
    ) -> None:
        from lineage_operators.spark.table_memory import TableMemory

        self._t = tools
        #: the tables this capture saw (DROP reports the location remembered here)
        self.tables: TableMemory = tables if tables is not None else TableMemory()
        self._columns = columns  # a plan_json.PlanJsonReader when column lineage is on
        self._jss = jsession
        self._redact_url = redact_url
        self._catalog: Any = None

    # JVM functions are built on first use (on the listener thread, not in the task's start())
    # and shared by every reader of the same JVM.

    @property
    def _leaf_fn(self) -> Any:
        return self._t.cached("plan.leaf", _build_leaf_fn)

    @property
    def _leaves_fn(self) -> Any:
        return self._t.cached("plan.collectLeaves", _build_collect_leaves_fn)

    @property
    def _root_fn(self) -> Any:
        return self._t.cached("plan.root", _build_root_fn)

    @property
    def _ct_full_fn(self) -> Any:
        return self._t.cached(
            "plan.ct_full", lambda t: t.function(t.builder(_ct_record(t, with_schema=True)))
        )

    @property
    def _leaf_builder_fn(self) -> Any:
        return self._t.cached("plan.leaf_builder", _build_leaf_builder_fn)

    # -- entry point ---------------------------------------------------------------------------

    def read(self, func_name: str, qe: Any, succeeded: bool) -> ExecutionFacts | None:
        """Facts of one execution, or None when it has no analyzed plan (failed analysis)."""
        facts = ExecutionFacts(func_name=func_name, succeeded=succeeded)
        try:
            facts.qe_id = int(qe.id())
            facts.query_id = query_key(self._t, qe)
        except Exception as exc:
            log.debug("lineage capture: no query id: %s", describe(exc))
        try:
            plan = qe.analyzed()
        except Exception:
            return None  # analysis failed: nothing was read or written
        root_text = self._t.read(self._root_fn.apply(plan))
        root = split_records(root_text)[0] if root_text else []
        cls = root[0] if root else None
        facts.root = cls
        cmd = _sub(_at(root, 1), SEP3)
        facts.sql = _pick_sql(_at(root, 2))
        facts.inputs = self._inputs(plan, cls)
        if cls:
            try:
                facts.outputs = self._outputs(cls, cmd, plan, qe, succeeded=succeeded, inputs=facts.inputs)
            except Exception as exc:
                log.warning(
                    "lineage capture: cannot read the output of %s: %s", cls.rsplit(".", 1)[-1], describe(exc)
                )
        leaves = self._plan_leaves(plan, cls)
        facts.inputs.extend(RelationFacts(location=loc) for loc in logical_rdd_locations(self._t, leaves))
        if any(rel.location or rel.table for rel in facts.inputs):
            read_relation_stats(self._t, leaves, facts.inputs)
        if facts.outputs and self._columns is not None:
            facts.column_lineage = self._columns.read(plan, facts.inputs)
        for rel in (*facts.inputs, *facts.outputs):
            if rel.table is not None and rel.lifecycle != "DROP":
                self.tables.remember(rel.table, rel.location, rel.provider)
        return facts

    # -- inputs --------------------------------------------------------------------------------

    def _plan_leaves(self, plan: Any, cls: str | None) -> Any:
        """The leaves of the plan, of its subqueries and of a command's inner query (JVM Seq)."""
        coll = self._t.coll
        plans = coll.prepended(plan, plan.subqueriesAll())
        if cls in _INNER_QUERY:
            plans = coll.appended_all(plans, plan.innerChildren())
        return coll.flat_map(plans, self._leaves_fn)

    def _inputs(self, plan: Any, cls: str | None) -> list[RelationFacts]:
        t = self._t
        leaves = self._plan_leaves(plan, cls)
        records = split_records(t.read(t.joined(t.coll.map(leaves, self._leaf_fn).distinct(), RSEP)))
        if not records:
            return []
        schemas: dict[str, str | None] = {}
        if any(_at(r, 5) for r in records):
            distinct = t.coll.map(leaves, t.cached("plan.leaf_schema", _build_leaf_schema_fn)).distinct()
            text = t.read(
                t.joined(t.coll.map(distinct, t.cached("plan.schema_record", _build_schema_record_fn)), RSEP)
            )
            for key, value in (r[:2] for r in split_records(text) if len(r) >= 2):
                if key is not None:  # two different schemas with one hash code: keep neither
                    schemas[key] = None if key in schemas else value
        result: list[RelationFacts] = []
        for record in records:
            key = _at(record, 5)
            result.extend(self._parse_leaf([*record[:5], schemas.get(key) if key else None, *record[6:]]))
        return result

    def _read_leaf(self, node: Any) -> list[RelationFacts]:
        """One relation node read on its own (the target of an insert into a relation)."""
        records = split_records(self._t.read(self._leaf_builder_fn.apply(node)))
        return self._parse_leaf(records[0]) if records else []

    def _parse_leaf(self, record: list[str | None]) -> list[RelationFacts]:
        """A leaf record (fields of :func:`_leaf_fields`) -> the datasets it stands for."""
        facts = self._parse_leaf_datasets(record)
        for rel in facts:
            rel.expr_ids = parse_expr_ids(_at(record, 10))
        return facts

    def _parse_leaf_datasets(self, record: list[str | None]) -> list[RelationFacts]:
        leaf_cls = _at(record, 0) or ""
        roots = split_list(_at(record, 3))
        leaf_dirs = set(split_list(_at(record, 4)))
        schema = _at(record, 5)
        table, location, provider, _ = _parse_ct(_at(record, 6))
        if leaf_cls in (LR, HIVE_REL):
            facts = self._parse_relation(record)
            for rel in facts[:1]:  # scan statistics go to the relation's first directory
                rel.relation_id = _at(record, 9)
            return facts
        if leaf_cls == DSV2_REL:
            if table is not None:
                return [RelationFacts(location=location, table=table, schema_text=schema, provider=provider)]
            v2 = _sub(_at(record, 8), SEP3)
            return self._v2(v2, roots, leaf_dirs, schema)
        return []

    def _parse_relation(self, record: list[str | None]) -> list[RelationFacts]:
        """A LogicalRelation or HiveTableRelation leaf: catalog table, files or JDBC."""
        rel_cls, rel_text, schema = _at(record, 1) or "", _at(record, 2), _at(record, 5)
        table, location, provider, _ = _parse_ct(_at(record, 6))
        if table is not None:
            fmt = rel_text if rel_cls == HFR else provider
            return [
                RelationFacts(
                    location=location, table=table, schema_text=schema, provider=provider, file_format=fmt
                )
            ]
        if rel_cls == HFR:
            dirs = _directories(split_list(_at(record, 3)), set(split_list(_at(record, 4))))
            return [RelationFacts(location=d, schema_text=schema, file_format=rel_text) for d in dirs]
        if rel_cls == JDBC_REL:
            jdbc = _sub(_at(record, 7), SEP3)
            return [self._jdbc(_at(jdbc, 0), _at(jdbc, 1), _at(jdbc, 2), schema)]
        if rel_cls:
            log.debug("lineage capture: relation %s is not a known dataset", rel_cls.rsplit(".", 1)[-1])
        return []

    def _jdbc(
        self, url: str | None, dbtable: str | None, query: str | None, schema: str | None
    ) -> RelationFacts:
        table_read = bool(dbtable) and not (dbtable or "").lstrip().startswith("(")
        return RelationFacts(
            jdbc_url=self._safe_url(url),
            jdbc_table=dbtable,
            jdbc_query=query,
            schema_text=schema if table_read else None,  # a query's columns are not a table's
            provider="jdbc",
        )

    def _safe_url(self, url: str | None) -> str | None:
        if not url:
            return None
        try:
            return str(self._redact_url(url))
        except Exception:
            return None  # never keep a URL we could not redact

    def _v2(
        self, v2: list[str | None], roots: list[str], leaf_dirs: set[str], schema: str | None
    ) -> list[RelationFacts]:
        name, location, provider, fmt, catalog, namespace, ident = (_at(v2, i) for i in range(7))
        ref = (catalog, namespace, ident)  # iceberg hook: datasetVersion and symlink of an Iceberg table
        version, symlink = iceberg.relation_extras(self._jss, provider, _at(v2, 7), ref)
        file_format = fmt.split("/")[-1] if fmt else None
        if roots:  # a v2 file source (FileTable)
            return [
                RelationFacts(location=d, schema_text=schema, file_format=file_format or _v2_format(name))
                for d in _directories(roots, leaf_dirs)
            ]
        table = TableRef(namespace, ident, catalog) if ident else None
        if location or table:
            return [
                RelationFacts(
                    location=location,
                    table=table,
                    schema_text=schema,
                    provider=provider,
                    file_format=file_format,
                    version=version,  # iceberg hook
                    symlink=symlink,  # iceberg hook
                )
            ]
        return []

    # -- outputs -------------------------------------------------------------------------------

    def _metrics(self, qe: Any) -> dict[str, int]:
        try:
            return parse_metrics(write_metrics_text(self._t, qe.executedPlan()))
        except Exception as exc:
            log.debug("lineage capture: no write metrics: %s", describe(exc))
            return {}

    def _with_stats(self, rel: RelationFacts, qe: Any, succeeded: bool) -> RelationFacts:
        if not succeeded:
            return rel
        metrics = self._metrics(qe)
        rel.rows = metrics.get("numOutputRows")
        rel.size = metrics.get("numOutputBytes")
        rel.files = metrics.get("numFiles")
        return rel

    def _outputs(
        self,
        cls: str,
        cmd: list[str | None],
        plan: Any,
        qe: Any,
        *,
        succeeded: bool,
        inputs: list[RelationFacts],
    ) -> list[RelationFacts]:
        """Datasets written by the root command ``cls`` (fields ``cmd`` from :func:`_cmd_fields`).

        Lifecycle as openlineage-spark: SaveMode.Overwrite / INSERT OVERWRITE -> OVERWRITE, CTAS and
        CREATE TABLE -> CREATE, Append -> none; DROP/TRUNCATE/RENAME from their commands. One
        difference: a ``SaveIntoDataSourceCommand`` (JDBC...) in Append mode gets no lifecycle
        facet, where openlineage-spark reports OVERWRITE for every such write.
        """
        f = lambda i: _at(cmd, i)  # noqa: E731
        if cls == INSERT_HADOOP:
            table, location, provider, _ = _parse_ct(f(2))
            rel = RelationFacts(
                location=f(0) or location,
                table=table,
                schema_text=f(3),
                file_format=f(4),
                provider=provider,
                lifecycle="OVERWRITE" if f(1) == "Overwrite" else None,
            )
            return [self._with_stats(rel, qe, succeeded)]
        if cls in (CTAS_DS, CTAS_HIVE, CTAS_HIVE_OPT):
            table, location, provider, _ = _parse_ct(f(0))
            if table is None:
                return []
            return [
                RelationFacts(
                    location=location or self._default_location(table),
                    table=table,
                    schema_text=f(2),
                    provider=provider,
                    lifecycle="CREATE",
                )
            ]
        if cls in (CREATE_DS, CREATE_TABLE):
            table, location, provider, schema = _parse_ct(f(0))
            if table is None:
                return []
            return [
                RelationFacts(
                    location=location or self._default_location(table),
                    table=table,
                    schema_text=schema,
                    provider=provider,
                    lifecycle="CREATE",
                )
            ]
        if cls == SAVE_INTO:
            return self._save_into(cmd, qe, succeeded)
        if cls == INSERT_DS:
            rels = self._read_leaf(plan.logicalRelation())
            for rel in rels:
                rel.schema_text = f(1) or rel.schema_text
                rel.lifecycle = "OVERWRITE" if _bool(f(0)) else None
            return rels
        if cls in (INSERT_DS_DIR, INSERT_HIVE_DIR):
            if not f(0):
                return []
            overwrite, schema = (f(2), f(3)) if cls == INSERT_DS_DIR else (f(1), f(2))
            return [
                RelationFacts(
                    location=uri_to_path(f(0)),
                    schema_text=schema,
                    lifecycle="OVERWRITE" if _bool(overwrite) else None,
                    file_format=f(1) if cls == INSERT_DS_DIR else None,
                )
            ]
        if cls == INSERT_HIVE:
            table, location, provider, _ = _parse_ct(f(0))
            if table is None:
                return []
            rel = RelationFacts(
                location=location or self._default_location(table),
                table=table,
                schema_text=f(2),
                provider=provider,
                lifecycle="OVERWRITE" if _bool(f(1)) else None,
            )
            return [self._with_stats(rel, qe, succeeded)]
        if cls == LOAD_DATA:
            source = f(2)
            if source:
                path = source if (":" in source.split("/", 1)[0] or not _bool(f(3))) else f"file:{source}"
                inputs.append(RelationFacts(location=path))
            return self._catalog_output(TableRef(f(0), f(1) or ""), "OVERWRITE" if _bool(f(4)) else None)
        if cls == TRUNCATE:
            return self._catalog_output(TableRef(f(0), f(1) or ""), "TRUNCATE", with_schema=False)
        if cls == RENAME:
            if _bool(f(4)):
                return []  # a view
            old = TableRef(f(0), f(1) or "")
            out = self._catalog_output(TableRef(f(2) or f(0), f(3) or ""), "RENAME", with_schema=True)
            for rel in out:
                rel.previous_table = old
            return out
        if cls == DROP_V1:
            if _bool(f(3)):
                return []  # DROP VIEW
            return self._dropped(TableRef(f(0), f(1) or ""), if_exists=_bool(f(2)))
        if cls == DROP_V2:
            catalog, namespace, name = f(0), f(1), f(2)
            if not name:
                return []
            ref = TableRef(namespace, name, None if catalog == _SESSION_CATALOG else catalog)
            return self._dropped(ref, if_exists=_bool(f(3)))
        if cls in V2_WRITES:
            rels = self._read_leaf(plan.table())
            for rel in rels:
                rel.schema_text = f(0) or rel.schema_text
                rel.lifecycle = "OVERWRITE" if cls != V2_WRITES[0] else None
            return rels
        if cls in V2_CREATES:
            return self._v2_created(cls, f(0), f(1), f(2))
        if cls in iceberg.ROW_LEVEL_WRITES:  # iceberg hook: MERGE/UPDATE/DELETE write their originalTable
            return [replace(r, lifecycle="OVERWRITE") for r in self._read_leaf(plan.originalTable())]
        if is_alter(cls):
            return alter_outputs(self, self._t, plan)
        return []

    def _save_into(self, cmd: list[str | None], qe: Any, succeeded: bool) -> list[RelationFacts]:
        source_cls, mode, url, dbtable, query, path, schema, short = (_at(cmd, i) for i in range(8))
        lifecycle = {"Overwrite": "OVERWRITE", "Append": None}.get(mode or "", "CREATE")
        if url and url.lower().startswith("jdbc:"):
            rel = self._jdbc(url, dbtable, query, schema)
        elif path:
            rel = RelationFacts(location=path, schema_text=schema, file_format=short)
            if short == "delta":
                rel.provider = "delta"
        else:
            name = (source_cls or "?").rsplit(".", 1)[-1]
            if short != "noop":
                log.info("lineage capture: write to data source %s has no dataset identity", short or name)
            return []
        rel.lifecycle = lifecycle
        return [self._with_stats(rel, qe, succeeded)]

    # -- catalog lookups -----------------------------------------------------------------------

    def _session_catalog(self) -> Any:
        if self._catalog is None:
            self._catalog = self._jss.sessionState().catalog()
        return self._catalog

    def _table_identifier(self, table: TableRef) -> Any:
        db = self._t.java_class("scala.Option").apply(table.database)
        return self._t.java_class("org.apache.spark.sql.catalyst.TableIdentifier").apply(table.table, db)

    def _lookup(self, table: TableRef) -> tuple[TableRef | None, str | None, str | None, str | None]:
        meta = self._session_catalog().getTableMetadata(self._table_identifier(table))
        return _parse_ct(self._t.read(self._ct_full_fn.apply(meta)))

    def _default_location(self, table: TableRef) -> str | None:
        if table.catalog not in (None, _SESSION_CATALOG):
            return None
        try:
            uri = self._session_catalog().defaultTablePath(self._table_identifier(table)).toString()
            return uri_to_path(str(uri))
        except Exception as exc:
            log.debug("lineage capture: no default location for %s: %s", table.table, describe(exc))
            return None

    def _catalog_output(
        self, table: TableRef, lifecycle: str | None, with_schema: bool = True
    ) -> list[RelationFacts]:
        if not table.table:
            return []
        try:
            found, location, provider, schema = self._lookup(table)
        except Exception:
            log.warning("lineage capture: table %s not found in the catalog", table.table)
            return []
        return [
            RelationFacts(
                location=location or self._default_location(found or table),
                table=found or table,
                provider=provider,
                schema_text=schema if with_schema else None,
                lifecycle=lifecycle,
            )
        ]

    def _dropped(self, table: TableRef, if_exists: bool) -> list[RelationFacts]:
        """DROP: the table is gone, so its location comes from memory or the catalog's default.

        openlineage-spark reads the table at the execution's START event; a query listener only
        sees the end, so: the location remembered from an earlier plan of this capture, else the
        managed-table location ``SessionCatalog.defaultTablePath`` (right for managed tables).
        """
        if table.database is None and table.catalog is None:
            try:
                table = TableRef(str(self._jss.catalog().currentDatabase()), table.table)
            except Exception as exc:
                log.debug("lineage capture: no current database: %s", describe(exc))
        known = self.tables.known(table)
        location, provider = known if known else (self._default_location(table), None)
        if not location:
            return []
        if not known and if_exists:
            log.debug("lineage capture: DROP TABLE IF EXISTS %s: location assumed managed", table.table)
        return [RelationFacts(location=location, table=table, provider=provider, lifecycle="DROP")]

    def _v2_created(
        self, cls: str, catalog: str | None, namespace: str | None, name: str | None
    ) -> list[RelationFacts]:
        if not name:
            return []
        return self.v2_table_output(catalog, namespace, name, _V2_CREATE_LIFECYCLE.get(cls))

    def catalog_output(self, table: TableRef, lifecycle: str | None) -> list[RelationFacts]:
        """A session-catalog table as an output, as the catalog holds it now."""
        return self._catalog_output(table, lifecycle)

    def v2_table_output(
        self, catalog: str | None, namespace: str | None, name: str, lifecycle: str | None
    ) -> list[RelationFacts]:
        """A table of a v2 catalog as an output, loaded from its catalog."""
        # iceberg hook (3 lines): a table of an Iceberg catalog, with its snapshot and symlink
        loaded = iceberg.load_table(self._jss, self._t, catalog, namespace, name)
        if loaded is not None:
            return [RelationFacts(table=TableRef(namespace, name, catalog), lifecycle=lifecycle, **loaded)]
        if catalog == _SESSION_CATALOG:
            return self._catalog_output(TableRef(namespace, name), lifecycle)
        try:
            plugin = self._jss.sessionState().catalogManager().catalog(catalog)
            ns = self._t.array("java.lang.String", namespace.split(".") if namespace else [])
            ident = self._t.java_class("org.apache.spark.sql.connector.catalog.Identifier").of(ns, name)
            props = plugin.loadTable(ident).properties()
            location, provider, fmt = (props.get(k) for k in ("location", "provider", "format"))
        except Exception as exc:
            log.debug("lineage capture: cannot load %s.%s: %s", catalog, name, describe(exc))
            location = provider = fmt = None
        return [
            RelationFacts(
                location=location,
                table=TableRef(namespace, name, catalog),
                provider=provider,
                file_format=fmt.split("/")[-1] if fmt else None,
                lifecycle=lifecycle,
            )
        ]


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


__all__ = [
    "SEP",
    "ExecutionFacts",
    "PlanReader",
    "RelationFacts",
    "TableRef",
    "parse_metrics",
]
