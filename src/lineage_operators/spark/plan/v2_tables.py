"""Tables of DataSource V2 catalogs read as a leaf: a ``DataSourceV2Relation`` without a V1 table
(:func:`v2_relation_facts`, from the leaf record of :mod:`~lineage_operators.spark.plan.leaves`).

Written, they are loaded from their catalog after the command
(:meth:`~lineage_operators.spark.plan.outputs.CatalogOutputs.v2_table_output`);
``AppendData``/``OverwriteByExpression``/``OverwritePartitionsDynamic`` read their target relation as a leaf
(:mod:`~lineage_operators.spark.plan.commands`). Table formats with more to say (snapshot ids, storage) extend
both."""

from __future__ import annotations

from lineage_operators.spark.facts import RelationFacts, TableRef
from lineage_operators.spark.plan.records import directories, field_at, v2_format


def v2_relation_facts(
    v2: list[str | None], roots: list[str], leaf_dirs: set[str], schema: str | None
) -> list[RelationFacts]:
    """Pure: a ``DataSourceV2Relation`` leaf without a V1 table (``v2``: the SEP3 fields of its
    record: table name, location, provider, format, catalog, namespace, identifier)."""
    name, location, provider, fmt, catalog, namespace, ident = (field_at(v2, i) for i in range(7))
    file_format = fmt.split("/")[-1] if fmt else None
    if roots:  # a v2 file source (FileTable)
        return [
            RelationFacts(location=d, schema_text=schema, file_format=file_format or v2_format(name))
            for d in directories(roots, leaf_dirs)
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
            )
        ]
    return []


__all__ = ["v2_relation_facts"]
