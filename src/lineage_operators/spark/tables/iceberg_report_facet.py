"""The ``icebergCommitReport`` output facet, as openlineage-spark serializes it (its
``IcebergCommitReportOutputDatasetFacet``: same fields, same ``_schemaURL``), from a
:class:`~.iceberg_reports.CommitReport`.

Imports openlineage-python at module level: import only from run-time code paths.
"""

from __future__ import annotations

from typing import Any

import attr
from openlineage.client.facet_v2 import OutputDatasetFacet

from lineage_operators.spark.tables.iceberg_reports import CommitReport

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


__all__ = ["FACET_NAME", "SCHEMA_URL", "IcebergCommitReportOutputDatasetFacet", "commit_report_facet"]
