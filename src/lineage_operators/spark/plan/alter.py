"""``ALTER TABLE``: which commands alter a table, and the JVM function telling which table (read back from
its catalog as an output, with its new schema and lifecycle ``ALTER``:
:meth:`~lineage_operators.spark.plan.outputs.CatalogOutputs.altered`).

openlineage-spark (``AlterTableAddColumnsCommandVisitor``, ``AlterTableSetLocationCommandVisitor``,
``AlterTableCommandDatasetBuilder`` for v2 tables) reports the table as it is *after* the change.
A query listener is called once the command ran, so the catalog already holds the new schema,
properties and location: the command only has to tell which table.
"""

from __future__ import annotations

from typing import Any

from lineage_operators.spark.facts import SESSION_CATALOG
from lineage_operators.spark.jvm.spark_classes import (
    CATALOG_PLUGIN,
    CMD,
    IDENTIFIER,
    LOGICAL,
    RESOLVED_TABLE,
    TABLE_ID,
)
from lineage_operators.spark.jvm.text import SEP3
from lineage_operators.spark.jvm.tools import JvmTools

#: v2 ALTER TABLE plans (AddColumns, ReplaceColumns, AlterColumns, SetTableProperties...).
V2_ALTER = f"{LOGICAL}.AlterTableCommand"
#: v1 session-catalog commands -> the getter of their ``TableIdentifier``.
V1_ALTERS = {
    f"{CMD}.AlterTableAddColumnsCommand": "table",
    f"{CMD}.AlterTableChangeColumnCommand": "tableName",
    f"{CMD}.AlterTableReplaceColumnsCommand": "tableName",
    f"{CMD}.AlterTableSetPropertiesCommand": "tableName",
    f"{CMD}.AlterTableUnsetPropertiesCommand": "tableName",
    f"{CMD}.AlterTableSetLocationCommand": "tableName",
    f"{CMD}.AlterTableSerDePropertiesCommand": "tableName",
}
#: Spark 4's implementations of :data:`V2_ALTER` (``javap``: ``implements ... AlterTableCommand``).
V2_ALTERS = frozenset(
    f"{LOGICAL}.{name}"
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


def build_alter_fn(t: JvmTools) -> Any:
    """Root plan -> catalog, namespace, table (SEP3-joined); NONE when it is no ALTER TABLE."""
    dispatch = t.when(
        V2_ALTER,
        t.chain(
            (V2_ALTER, "table"),
            t.when(
                RESOLVED_TABLE,
                t.record(
                    [
                        t.chain((RESOLVED_TABLE, "catalog"), (CATALOG_PLUGIN, "name")),
                        t.chain((RESOLVED_TABLE, "identifier"), (IDENTIFIER, "namespace"), t.array_join(".")),
                        t.chain((RESOLVED_TABLE, "identifier"), (IDENTIFIER, "name")),
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
            t.constant(SESSION_CATALOG),
            t.opt(t.chain(table_id, (TABLE_ID, "database"))),
            t.chain(table_id, (TABLE_ID, "table")),
        ]
        dispatch = t.when(cls, t.record(fields, SEP3), dispatch)
    return t.function(dispatch)


def is_alter(cls: str | None) -> bool:
    """Is the root an ALTER TABLE (a pure-Python check: no JVM call for other plans)?"""
    return cls is not None and (cls in V1_ALTERS or cls in V2_ALTERS)


__all__ = ["V1_ALTERS", "V2_ALTER", "V2_ALTERS", "build_alter_fn", "is_alter"]
