"""Helpers of the Iceberg tests: what Iceberg itself reports, and compact views of the facets."""

from __future__ import annotations

from typing import Any

from lineage_operators.model import LineageDataset

#: The Spark catalog of the REST catalog server (conftest's ``rest_catalog``).
REST_CATALOG = "rest"


def snapshots(spark: Any, table: str) -> list[int]:
    """The table's snapshot ids, oldest first, as Iceberg's ``snapshots`` metadata table lists them."""
    rows = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at").collect()
    return [row.snapshot_id for row in rows]


def latest(spark: Any, table: str) -> str:
    return str(snapshots(spark, table)[-1])


def added(spark: Any, table: str) -> tuple[int, int, int]:
    """(records, bytes, data files) the table's newest snapshot added, as its summary says."""
    (row,) = spark.sql(f"SELECT summary FROM {table}.snapshots ORDER BY committed_at DESC LIMIT 1").collect()
    summary = row.summary
    return int(summary["added-records"]), int(summary["added-files-size"]), int(summary["added-data-files"])


def statistics(dataset: LineageDataset) -> tuple[int, int, int] | None:
    """(rowCount, size, fileCount) of an output's ``outputStatistics``."""
    facet = dataset.output_facets.get("outputStatistics")
    return (facet.rowCount, facet.size, facet.fileCount) if facet else None


def version(dataset: LineageDataset) -> str | None:
    facet = dataset.facets.get("version")
    return facet.datasetVersion if facet else None


def symlinks(dataset: LineageDataset) -> list[tuple[str, str, str]]:
    facet = dataset.facets.get("symlinks")
    return [(i.namespace, i.name, i.type) for i in facet.identifiers] if facet else []


def catalog(dataset: LineageDataset) -> tuple[str, str, str, str | None, str | None, str | None] | None:
    """(framework, type, name, warehouseUri, metadataUri, source) of the ``catalog`` facet."""
    facet = dataset.facets.get("catalog")
    if facet is None:
        return None
    return (facet.framework, facet.type, facet.name, facet.warehouseUri, facet.metadataUri, facet.source)


def storage(dataset: LineageDataset) -> tuple[str, str | None] | None:
    facet = dataset.facets.get("storage")
    return (facet.storageLayer, facet.fileFormat) if facet else None


def column_sources(dataset: LineageDataset) -> dict[str, set[tuple[str, str, str]]]:
    """output field -> {(input dataset's last path element, input field, subtype)} of DIRECT lineage."""
    facet = dataset.facets["columnLineage"]
    return {
        name: {
            (item.name.rstrip("/").rsplit("/", 1)[-1], item.field, t.subtype)
            for item in field.inputFields
            for t in item.transformations
            if t.type == "DIRECT"
        }
        for name, field in facet.fields.items()
    }


def commit_of(spark: Any, table: str) -> dict[str, Any]:
    """What Iceberg itself says of the table's newest commit: snapshot id, sequence number,
    operation and summary (``snapshots`` and ``metadata_log_entries`` metadata tables)."""
    (row,) = spark.sql(
        f"SELECT snapshot_id, operation, summary FROM {table}.snapshots ORDER BY committed_at DESC LIMIT 1"
    ).collect()
    (log,) = spark.sql(
        f"SELECT latest_sequence_number FROM {table}.metadata_log_entries "
        f"WHERE latest_snapshot_id = {row.snapshot_id} LIMIT 1"
    ).collect()
    return {
        "snapshotId": row.snapshot_id,
        "sequenceNumber": log.latest_sequence_number,
        "operation": row.operation,
        "summary": dict(row.summary),
    }


def commit_report(dataset: LineageDataset) -> dict[str, Any] | None:
    """The ``icebergCommitReport`` output facet as it is serialized into an event."""
    from openlineage.client.serde import Serde

    facet = dataset.output_facets.get("icebergCommitReport")
    return Serde.to_dict(facet) if facet is not None else None
