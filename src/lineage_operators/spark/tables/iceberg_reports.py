"""Iceberg's commit and scan reports, as openlineage-spark's ``icebergCommitReport`` output facet and
``icebergScanReport`` input facet carry them; the commit report read from the snapshot a write made,
the scan report from the scan that read (no metrics reporter either way).

openlineage-spark builds the facet from the ``CommitReport`` Iceberg hands a ``MetricsReporter`` it
injects into the catalog (``IcebergMetricsReporterInjector``). Iceberg fills that report's counters from
the committed snapshot's summary (``CommitMetricsResult.from``), its metadata from ``EnvironmentContext``
(which the snapshot summary copies too), and its id, sequence number and operation from the snapshot:
everything but the commit's duration and attempts (timers of the commit itself, not in any metadata).
So the facet is rebuilt here from the snapshot we already read for ``outputStatistics``:

* ``snapshotId``, ``sequenceNumber``, ``operation`` of the snapshot the write made;
* ``commitMetrics``: the summary counters the jar copies (:data:`COUNTERS`; not ``addedDVs`` /
  ``removedDVs``, which it never sets), absent ones left out; no ``totalDuration``, ``attempts``;
* ``metadata``: the environment keys of the summary (:data:`ENVIRONMENT`).

The jar gets a report only once its reporter is in the catalog: injected while a plan touching the
catalog is visited, into a ``CachingCatalog``'s Hadoop/Hive/JDBC/Glue (``BaseMetastoreCatalog``) or REST
catalog, unless ``spark.openlineage.vendors.iceberg.metricsReporterDisabled``; a table loaded before
that keeps reporting elsewhere. Ours is there for every write whose snapshot is read.

Pure parsing; the JVM reading is :func:`..iceberg.snapshot_field`.

The scan report: Iceberg 1.10+ keeps the ``ScanReport`` of each Spark scan in the scan itself (for
Spark's driver metrics), and the jar reads it there first (``scanReportSupplier``); so do we, after the
execution (``jvm/java/IcebergScans.java``, :mod:`.iceberg_scans`). Its fields are the jar's: the
snapshot read, the filter (Iceberg's sanitized text; empty for ``true``), the projected field names,
the scan metrics (:data:`SCAN_METRICS`; the planning timer in milliseconds) and the report's metadata.
"""

from __future__ import annotations

from lineage_operators.spark.facts import CommitReport, ScanReport
from lineage_operators.spark.jvm.text import NONE, SEP2, SEP3

#: (snapshot summary key, ``commitMetrics`` field), in the jar's order.
COUNTERS = (
    ("added-data-files", "addedDataFiles"),
    ("deleted-data-files", "removedDataFiles"),
    ("total-data-files", "totalDataFiles"),
    ("added-delete-files", "addedDeleteFiles"),
    ("added-equality-delete-files", "addedEqualityDeleteFiles"),
    ("added-position-delete-files", "addedPositionalDeleteFiles"),
    ("removed-delete-files", "removedDeleteFiles"),
    ("removed-equality-delete-files", "removedEqualityDeleteFiles"),
    ("removed-position-delete-files", "removedPositionalDeleteFiles"),
    ("total-delete-files", "totalDeleteFiles"),
    ("added-records", "addedRecords"),
    ("deleted-records", "removedRecords"),
    ("total-records", "totalRecords"),
    ("added-files-size", "addedFilesSizeInBytes"),
    ("removed-files-size", "removedFilesSizeInBytes"),
    ("total-files-size", "totalFilesSizeInBytes"),
    ("added-position-deletes", "addedPositionalDeletes"),
    ("removed-position-deletes", "removedPositionalDeletes"),
    ("total-position-deletes", "totalPositionalDeletes"),
    ("added-equality-deletes", "addedEqualityDeletes"),
    ("removed-equality-deletes", "removedEqualityDeletes"),
    ("total-equality-deletes", "totalEqualityDeletes"),
)
#: The summary keys Iceberg copies from ``EnvironmentContext`` (the report's ``metadata``) in Spark.
ENVIRONMENT = ("engine-name", "engine-version", "iceberg-version", "app-id", "app-name")
#: The summary keys :func:`..iceberg.snapshot_field` reads, after the sequence number and operation.
SUMMARY_KEYS = tuple(key for key, _ in COUNTERS) + ENVIRONMENT


def _number(text: str | None) -> int | None:
    return int(text) if text and text.lstrip("-").isdigit() else None


def parse_commit(snapshot_id: str | None, text: str | None) -> CommitReport | None:
    """``snapshot_id`` and the :data:`SEP2`-joined (sequence number, operation, the values of
    :data:`SUMMARY_KEYS`) of a snapshot -> its report; None without a snapshot or its summary."""
    snapshot = _number(snapshot_id)
    if snapshot is None or not text or text == NONE:
        return None
    fields: list[str | None] = [None if f == NONE else f for f in text.split(SEP2)]
    fields += [None] * (2 + len(SUMMARY_KEYS) - len(fields))
    counters, environment = fields[2 : 2 + len(COUNTERS)], fields[2 + len(COUNTERS) :]
    metrics = tuple(
        (name, value)
        for (_, name), raw in zip(COUNTERS, counters, strict=True)
        if (value := _number(raw)) is not None
    )
    if not metrics:
        return None  # no summary: not a snapshot a write made
    metadata = tuple((key, value) for key, value in zip(ENVIRONMENT, environment, strict=False) if value)
    return CommitReport(snapshot, _number(fields[0]), fields[1] or None, metrics, metadata)


#: ``ScanMetricsResult``'s results, in the jar's order (``totalPlanningDuration`` is a timer, in ms).
SCAN_METRICS = (
    "totalPlanningDuration",
    "resultDataFiles",
    "resultDeleteFiles",
    "totalDataManifests",
    "totalDeleteManifests",
    "scannedDataManifests",
    "skippedDataManifests",
    "totalFileSizeInBytes",
    "totalDeleteFileSizeInBytes",
    "skippedDataFiles",
    "skippedDeleteFiles",
    "scannedDeleteManifests",
    "skippedDeleteManifests",
    "indexedDeleteFiles",
    "equalityDeleteFiles",
    "positionalDeleteFiles",
)


def parse_scan(fields: list[str | None]) -> ScanReport | None:
    """The report part of a scan record (snapshot id, filter, projected names :data:`SEP2`-joined,
    :data:`SCAN_METRICS` values :data:`SEP2`-joined, metadata as key :data:`SEP3` value :data:`SEP2`-joined)
    -> its report; None without a report (an Iceberg release that keeps none in its scans)."""
    fields = [*fields, *([None] * (5 - len(fields)))]
    snapshot = _number(fields[0])
    if snapshot is None:
        return None
    names = tuple(fields[2].split(SEP2)) if fields[2] else ()
    values = fields[3].split(SEP2) if fields[3] else []
    metrics = tuple(
        (name, value)
        for name, raw in zip(SCAN_METRICS, values, strict=False)
        if (value := _number(None if raw == NONE else raw)) is not None
    )
    pairs = (entry.split(SEP3, 1) for entry in fields[4].split(SEP2)) if fields[4] else ()
    metadata = tuple((pair[0], pair[1]) for pair in pairs if len(pair) == 2)
    return ScanReport(snapshot, fields[1] or "", names, metrics, metadata)


__all__ = [
    "COUNTERS",
    "ENVIRONMENT",
    "SCAN_METRICS",
    "SUMMARY_KEYS",
    "parse_commit",
    "parse_scan",
]
