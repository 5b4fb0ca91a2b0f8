"""``ALTER TABLE``: the altered table as an output, with its new schema and lifecycle ``ALTER``.

openlineage-spark (``AlterTableAddColumnsCommandVisitor``, ``AlterTableSetLocationCommandVisitor``,
``AlterTableCommandDatasetBuilder`` for v2 tables) reports the table as it is *after* the change.
A query listener is called once the command ran, so the catalog already holds the new schema,
properties and location: the command only has to tell which table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lineage_operators._logging import get_logger
from lineage_operators.spark.jvm import SEP3, JvmTools

if TYPE_CHECKING:
    from lineage_operators.spark.plan_catalog import CatalogOutputs
    from lineage_operators.spark.plan_facts import RelationFacts

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
    from lineage_operators.spark.jvm import NONE
    from lineage_operators.spark.plan_facts import TableRef

    text = tools.cached("alter.table", _build_alter_fn).apply(plan)
    if not isinstance(text, str) or text == NONE or not text:
        return []
    values = [None if v in ("", NONE) else v for v in text.split(SEP3)]
    catalog, namespace, name = [*values, None, None, None][:3]
    if not name:
        return []
    if catalog in (None, _SESSION_CATALOG):
        return reader.catalog_output(TableRef(namespace, name), "ALTER")
    return reader.v2_table_output(catalog, namespace, name, "ALTER")


__all__ = ["V1_ALTERS", "V2_ALTER", "V2_ALTERS", "alter_outputs", "is_alter"]
