"""The ``icebergCommitReport`` output facet and the ``icebergScanReport`` input facet, as
openlineage-spark serializes them (its ``IcebergCommitReportOutputDatasetFacet`` and
``IcebergScanReportInputDatasetFacet``: same fields, same ``_schemaURL``), from a
:class:`~.iceberg_reports.CommitReport` / :class:`~.iceberg_reports.ScanReport`.

Imports openlineage-python at module level: import only from run-time code paths.
"""

from __future__ import annotations

from typing import Any

import attr
from openlineage.client.facet_v2 import InputDatasetFacet, OutputDatasetFacet

from lineage_operators.spark.tables.iceberg_reports import CommitReport, ScanReport

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


def commit_report_facet(report: CommitReport) -> Any:
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


def scan_report_facet(report: ScanReport) -> Any:
    return IcebergScanReportInputDatasetFacet(
        snapshotId=report.snapshot_id,
        filterDescription=report.filter_description,
        projectedFieldNames=list(report.projected_field_names),
        scanMetrics=dict(report.metrics),
        metadata=dict(report.metadata),
    )


__all__ = [
    "FACET_NAME",
    "SCAN_FACET_NAME",
    "SCAN_SCHEMA_URL",
    "SCHEMA_URL",
    "IcebergCommitReportOutputDatasetFacet",
    "IcebergScanReportInputDatasetFacet",
    "commit_report_facet",
    "scan_report_facet",
]
