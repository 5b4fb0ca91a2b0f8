"""``ALTER TABLE``: the altered table as an output, with its new schema and lifecycle ``ALTER``.

openlineage-spark (``AlterTableAddColumnsCommandVisitor``, ``AlterTableSetLocationCommandVisitor``,
``AlterTableCommandDatasetBuilder`` for v2 tables) reports the table as it is *after* the change.
A query listener is called once the command ran, so the catalog already holds the new schema,
properties and location: the command only has to tell which table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lineage_operators._logging import get_logger
from lineage_operators.spark.jvm.text import SEP3
from lineage_operators.spark.jvm.tools import JvmTools

if TYPE_CHECKING:
    from lineage_operators.spark.facts import RelationFacts, TableRef
    from lineage_operators.spark.plan.catalog import CatalogOutputs

log = get_logger(__name__)

_CMD = "org.apache.spark.sql.execution.command"
_TABLE_ID = "org.apache.spark.sql.catalyst.TableIdentifier"
_RESOLVED_TABLE = "org.apache.spark.sql.catalyst.analysis.ResolvedTable"
_CATALOG_PLUGIN = "org.apache.spark.sql.connector.catalog.CatalogPlugin"
_IDENTIFIER = "org.apache.spark.sql.connector.catalog.Identifier"
#: v2 ALTER TABLE plans (AddColumns, ReplaceColumns, AlterColumns, SetTableProperties...).
V2_ALTER = "org.apache.spark.sql.catalyst.plans.logical.AlterTableCommand"
#: v1 session-catalog commands -> the getter of their ``TableIdentifier``.
V1_ALTERS = {
    f"{_CMD}.AlterTableAddColumnsCommand": "table",
    f"{_CMD}.AlterTableChangeColumnCommand": "tableName",
    f"{_CMD}.AlterTableReplaceColumnsCommand": "tableName",
    f"{_CMD}.AlterTableSetPropertiesCommand": "tableName",
    f"{_CMD}.AlterTableUnsetPropertiesCommand": "tableName",
    f"{_CMD}.AlterTableSetLocationCommand": "tableName",
    f"{_CMD}.AlterTableSerDePropertiesCommand": "tableName",
}
#: Spark 4's implementations of :data:`V2_ALTER` (``javap``: ``implements ... AlterTableCommand``).
V2_ALTERS = frozenset(
    f"org.apache.spark.sql.catalyst.plans.logical.{name}"
    for name in (
        "AddColumns",
        "AlterColumns",
        "AlterTableClusterBy",
        "AlterTableCollation",
        "CommentOnTable",
        "DropColumns",
        "RenameColumn",
        "ReplaceColumns",
        "SetTableLocation",
        "SetTableProperties",
        "UnsetTableProperties",
        "AddConstraint",
        "DropConstraint",
    )
)
_SESSION_CATALOG = "spark_catalog"


def _build_alter_fn(t: JvmTools) -> Any:
    """Root plan -> catalog, namespace, table (SEP3-joined); NONE when it is no ALTER TABLE."""
    dispatch = t.when(
        V2_ALTER,
        t.chain(
            (V2_ALTER, "table"),
            t.when(
                _RESOLVED_TABLE,
                t.record(
                    [
                        t.chain((_RESOLVED_TABLE, "catalog"), (_CATALOG_PLUGIN, "name")),
                        t.chain(
                            (_RESOLVED_TABLE, "identifier"), (_IDENTIFIER, "namespace"), t.array_join(".")
                        ),
                        t.chain((_RESOLVED_TABLE, "identifier"), (_IDENTIFIER, "name")),
                    ],
                    SEP3,
                ),
            ),
        ),
    )
    for cls, getter in V1_ALTERS.items():
        if not t.has_class(cls):
            continue
        table_id = (cls, getter)
        fields = [
            t.constant(_SESSION_CATALOG),
            t.opt(t.chain(table_id, (_TABLE_ID, "database"))),
            t.chain(table_id, (_TABLE_ID, "table")),
        ]
        dispatch = t.when(cls, t.record(fields, SEP3), dispatch)
    return t.function(dispatch)


def is_alter(cls: str | None) -> bool:
    """Is the root an ALTER TABLE (a pure-Python check: no JVM call for other plans)?"""
    return cls is not None and (cls in V1_ALTERS or cls in V2_ALTERS)


def alter_outputs(reader: CatalogOutputs, tools: JvmTools, plan: Any) -> list[RelationFacts]:
    """The altered table read back from its catalog, lifecycle ALTER; [] when ``plan`` is no ALTER."""
    from lineage_operators.spark.facts import RelationFacts, TableRef
    from lineage_operators.spark.jvm.text import NONE
    from lineage_operators.spark.tables import iceberg

    text = tools.cached("alter.table", _build_alter_fn).apply(plan)
    if not isinstance(text, str) or text == NONE or not text:
        return []
    values = [None if v in ("", NONE) else v for v in text.split(SEP3)]
    catalog, namespace, name = [*values, None, None, None][:3]
    if not name:
        return []
    if catalog in (None, _SESSION_CATALOG):
        loaded = iceberg.load_table(reader._jss, tools, _SESSION_CATALOG, namespace, name)
        if loaded is not None:  # Iceberg's SparkSessionCatalog: its v1 entry keeps the created schema
            table = TableRef(namespace, name, _SESSION_CATALOG)
            return [RelationFacts(table=table, lifecycle="ALTER", **loaded)]
        return _session_table(reader, TableRef(namespace, name))
    return reader.v2_table_output(catalog, namespace, name, "ALTER")


def _session_table(reader: CatalogOutputs, table: TableRef) -> list[RelationFacts]:
    """The altered session-catalog table as the catalog holds it now; when it is no longer there
    (a later command of the task renamed or dropped it before this execution was read), the table
    under its name, without schema: :func:`lineage_operators.spark.passes.schema_from_renames` takes it from
    the rename."""
    from lineage_operators.spark.facts import RelationFacts

    try:
        looked_up = reader._lookup(table)
    except Exception:
        known = reader.tables.known(table)
        location = known[0] if known else reader._default_location(table)
        if not location:
            return []
        return [RelationFacts(location=location, table=table, lifecycle="ALTER")]
    return [reader._looked_up_output(table, looked_up, "ALTER")]


__all__ = ["V1_ALTERS", "V2_ALTER", "V2_ALTERS", "alter_outputs", "is_alter"]
