"""The facets of table formats, built from the contract's plain values when datasets resolve: the
``catalog`` facet of an Iceberg catalog's table or of Delta's session catalog, and Iceberg's
``icebergCommitReport`` output facet and ``icebergScanReport`` input facet, as openlineage-spark serializes
them (its ``IcebergCommitReportOutputDatasetFacet`` and ``IcebergScanReportInputDatasetFacet``: same fields,
same ``_schemaURL``).

Why beside the contract, not in ``tables/``: the readers of both captures put these values in
:class:`~lineage_operators.spark.facts.RelationFacts` (:class:`~lineage_operators.spark.facts.CatalogFacts`,
:class:`~lineage_operators.spark.facts.CommitReport`, :class:`~lineage_operators.spark.facts.ScanReport`), and
:mod:`lineage_operators.spark.resolve`, which both captures share, turns them into facets; ``tables/`` reads
them from the JVM, which a Spark Connect capture must not import.

Imports openlineage-python at module level: import only from run-time code paths.
"""

from __future__ import annotations

import attr
from openlineage.client.facet_v2 import InputDatasetFacet, OutputDatasetFacet, catalog_dataset

from lineage_operators.spark.facts import (
    DELTA_PROVIDER,
    SESSION_CATALOG,
    CatalogFacts,
    CommitReport,
    ScanReport,
)
from lineage_operators.spark.session_facts import DELTA_CATALOG


def catalog_facet(facts: CatalogFacts) -> catalog_dataset.CatalogDatasetFacet:
    """openlineage-python's ``CatalogDatasetFacet`` of :class:`CatalogFacts` (no empty properties)."""
    return catalog_dataset.CatalogDatasetFacet(
        framework=facts.framework,
        type=facts.type,
        name=facts.name,
        metadataUri=facts.metadata_uri,
        warehouseUri=facts.warehouse_uri,
        source="spark",
        catalogProperties=dict(facts.properties) or None,
    )


def in_delta_catalog(provider: str | None, session_catalog: str | None) -> bool:
    """A table of ``provider`` in ``spark_catalog`` is a table of Delta's catalog: openlineage-spark then
    gives it a ``catalog`` facet (framework and type ``delta``, name ``spark_catalog``, source ``spark``).
    The jar goes by the catalog alone; a provider not known here (a table dropped before this capture
    saw it) counts as Delta's, a known other one (a Parquet table Delta's catalog delegates) does not."""
    return (provider or DELTA_PROVIDER).lower() == DELTA_PROVIDER and session_catalog == DELTA_CATALOG


#: The catalog facet's values of a table of Delta's session catalog.
DELTA_CATALOG_FACTS = CatalogFacts(SESSION_CATALOG, DELTA_PROVIDER, framework=DELTA_PROVIDER)

#: The key openlineage-spark gives the facet among an output's ``outputFacets``.
FACET_NAME = "icebergCommitReport"
#: The ``_schemaURL`` openlineage-spark writes (the facet's first published schema).
SCHEMA_URL = "https://openlineage.io/spec/facets/1-0-0/IcebergCommitReportOutputDatasetFacet.json"


@attr.define
class IcebergCommitReportOutputDatasetFacet(OutputDatasetFacet):
    """What Iceberg reported for the commit that made the output's snapshot."""

    snapshotId: int | None = attr.field(default=None)
    sequenceNumber: int | None = attr.field(default=None)
    operation: str | None = attr.field(default=None)
    commitMetrics: dict[str, int] = attr.field(factory=dict)
    metadata: dict[str, str] = attr.field(factory=dict)

    @staticmethod
    def _get_schema() -> str:
        return SCHEMA_URL


def commit_report_facet(report: CommitReport) -> IcebergCommitReportOutputDatasetFacet:
    return IcebergCommitReportOutputDatasetFacet(
        snapshotId=report.snapshot_id,
        sequenceNumber=report.sequence_number,
        operation=report.operation,
        commitMetrics=dict(report.metrics),
        metadata=dict(report.metadata),
    )


#: The key openlineage-spark gives the scan report among an input's ``inputFacets``.
SCAN_FACET_NAME = "icebergScanReport"
SCAN_SCHEMA_URL = "https://openlineage.io/spec/facets/1-0-0/IcebergScanReportInputDatasetFacet.json"


@attr.define
class IcebergScanReportInputDatasetFacet(InputDatasetFacet):
    """What Iceberg reported for the scan that read the input."""

    snapshotId: int | None = attr.field(default=None)
    filterDescription: str = attr.field(default="")
    projectedFieldNames: list[str] = attr.field(factory=list)
    scanMetrics: dict[str, int] = attr.field(factory=dict)
    metadata: dict[str, str] = attr.field(factory=dict)

    @staticmethod
    def _get_schema() -> str:
        return SCAN_SCHEMA_URL


def scan_report_facet(report: ScanReport) -> IcebergScanReportInputDatasetFacet:
    return IcebergScanReportInputDatasetFacet(
        snapshotId=report.snapshot_id,
        filterDescription=report.filter_description,
        projectedFieldNames=list(report.projected_field_names),
        scanMetrics=dict(report.metrics),
        metadata=dict(report.metadata),
    )


__all__ = [
    "DELTA_CATALOG_FACTS",
    "FACET_NAME",
    "SCAN_FACET_NAME",
    "SCAN_SCHEMA_URL",
    "SCHEMA_URL",
    "IcebergCommitReportOutputDatasetFacet",
    "IcebergScanReportInputDatasetFacet",
    "catalog_facet",
    "commit_report_facet",
    "in_delta_catalog",
    "scan_report_facet",
]
