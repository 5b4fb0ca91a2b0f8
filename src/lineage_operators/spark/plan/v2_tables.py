"""Tables of DataSource V2 catalogs (``DataSourceV2Relation`` inputs, V2 creates and writes).

The one place for what a V2 table is as a dataset: read as a leaf (:func:`v2_relation_facts`, from
the leaf record of :mod:`~lineage_operators.spark.plan.leaves`) and written (:func:`v2_table_output`: loaded
from its catalog after the command; ``AppendData``/``OverwriteByExpression``/``OverwritePartitionsDynamic``
read their target relation as a leaf, :mod:`~lineage_operators.spark.plan.commands`). Table formats with more
to say (snapshot ids, storage) extend :func:`v2_table_output` and :func:`v2_relation_facts`."""

from __future__ import annotations

from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.spark.facts import RelationFacts, TableRef
from lineage_operators.spark.plan.classes import _SESSION_CATALOG, _V2_CREATE_LIFECYCLE
from lineage_operators.spark.plan.records import _at, _directories, _v2_format
from lineage_operators.spark.tables import iceberg

log = get_logger(__name__)


def v2_relation_facts(
    v2: list[str | None], roots: list[str], leaf_dirs: set[str], schema: str | None
) -> list[RelationFacts]:
    """Pure: a ``DataSourceV2Relation`` leaf without a V1 table (``v2``: the SEP3 fields of its
    record: table name, location, provider, format, catalog, namespace, identifier)."""
    name, location, provider, fmt, catalog, namespace, ident = (_at(v2, i) for i in range(7))
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
            )
        ]
    return []


def v2_created(
    reader: Any, cls: str, catalog: str | None, namespace: str | None, name: str | None
) -> list[RelationFacts]:
    """The table of a V2 ``CreateTable(AsSelect)``/``ReplaceTable(AsSelect)`` command."""
    if not name:
        return []
    return v2_table_output(reader, catalog, namespace, name, _V2_CREATE_LIFECYCLE.get(cls))


def v2_table_output(
    reader: Any, catalog: str | None, namespace: str | None, name: str, lifecycle: str | None
) -> list[RelationFacts]:
    """A table of a v2 catalog as an output, loaded from its catalog (``reader``: the
    :class:`~lineage_operators.spark.plan.reader.PlanReader` of the execution)."""
    loaded = iceberg.load_table(reader._jss, reader._t, catalog, namespace, name)
    if loaded is not None:  # an Iceberg table, with its snapshot and symlink
        return [RelationFacts(table=TableRef(namespace, name, catalog), lifecycle=lifecycle, **loaded)]
    if catalog == _SESSION_CATALOG:
        return reader._catalog_output(TableRef(namespace, name), lifecycle)
    try:
        plugin = reader._jss.sessionState().catalogManager().catalog(catalog)
        ns = reader._t.array("java.lang.String", namespace.split(".") if namespace else [])
        ident = reader._t.java_class("org.apache.spark.sql.connector.catalog.Identifier").of(ns, name)
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


__all__ = ["v2_created", "v2_relation_facts", "v2_table_output"]
