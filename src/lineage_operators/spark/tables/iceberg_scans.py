"""What the Iceberg scans of an execution read: an Iceberg input's ``inputStatistics`` and
``icebergScanReport``, as openlineage-spark reports them.

The jar takes both from the ``Scan`` of the optimized plan: the statistics from the distinct data files
of the scan's planned tasks (files, bytes, rows: what the scan read, after pruning), the report from the
``ScanReport`` the scan keeps (Iceberg 1.10+). Neither is in the analyzed plan the capture reads, nor in
the table's metadata, so the executed plan is walked once more after a successful execution, JVM-side
(``jvm/java/IcebergScans.java``, in the same call as the rest of the execution's reply when the one-call
reader is compiled). It reads only what the scans already hold: nothing is planned, listed or run, and
no catalog's metrics reporter is swapped (the jar's fallback when a scan keeps no report).

A scan is joined to the input of the same table location; a table scanned twice in one execution
(a MERGE's target, a self-join) keeps the figures of the scan that read the most files.

Compiled only where Iceberg's Spark runtime is on the classpath: other sessions pay one class lookup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.spark.facts import RelationFacts, ScanReport
from lineage_operators.spark.jvm import classes as jvm_classes
from lineage_operators.spark.jvm.text import NONE, split_records
from lineage_operators.spark.tables.iceberg_reports import parse_scan

log = get_logger(__name__)

SOURCE = "IcebergScans.java"
CLASS_NAME = "lineage_operators.IcebergScans"
#: Present in every Iceberg Spark runtime this reads: without it there is nothing to compile.
SPARK_SCAN = "org.apache.iceberg.spark.source.SparkScan"


@dataclass(frozen=True)
class ScanFacts:
    """One Iceberg scan of an executed plan."""

    location: str
    files: int | None = None
    size: int | None = None
    rows: int | None = None
    report: ScanReport | None = None


def _count(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() else None


def parse_scans(text: str | None) -> list[ScanFacts]:
    """``IcebergScans.read``'s reply -> the scans (pure); an unreadable record is skipped."""
    if not text or text == NONE:
        return []
    found: list[ScanFacts] = []
    for record in split_records(text):
        if not record or not record[0]:
            continue
        fields = [*record, *([None] * (9 - len(record)))]
        files, size, rows = (_count(value) for value in fields[1:4])
        found.append(ScanFacts(fields[0] or "", files, size, rows, parse_scan(fields[4:9])))
    return found


def _key(location: str | None) -> str | None:
    return location.rstrip("/") if location else None


def attach_scans(scans: Sequence[ScanFacts], inputs: Sequence[RelationFacts]) -> None:
    """Pure, in place: each Iceberg input gets the statistics and report of its table's scan."""
    best: dict[str, ScanFacts] = {}
    for scan in scans:
        key = _key(scan.location)
        kept = best.get(key) if key else None
        if key and (kept is None or (scan.files or 0) > (kept.files or 0)):
            best[key] = scan
    if not best:
        return
    for rel in inputs:
        found = best.get(_key(rel.location) or "") if (rel.provider or "").lower() == "iceberg" else None
        if found is None:
            continue
        if found.files is not None:
            rel.files, rel.size, rel.rows = found.files, found.size, found.rows
        rel.scan_report = found.report or rel.scan_report


def scan_reader(t: Any) -> Any:
    """The JVM's ``IcebergScans`` (compiled on first use), or None: Iceberg is not on the classpath,
    or the class cannot be built (then Iceberg inputs have no scan figures)."""
    if not t.has_class(SPARK_SCAN):
        return None
    return jvm_classes.compiled_instance(t, SOURCE, CLASS_NAME, "Iceberg reads report no scan figures")


def read_scans(t: Any, qe: Any) -> list[ScanFacts]:
    """The step-by-step reading's way: one call over the executed plan where Iceberg is on the
    classpath (the one-call reader has the same reply in its reply); a failure loses the scan
    figures only."""
    reader = scan_reader(t)
    if reader is None:
        return []
    try:
        return parse_scans(reader.read(qe.executedPlan()))
    except Exception as exc:
        log.debug("lineage capture: no Iceberg scan figures: %s", describe(exc))
        return []


__all__ = ["SPARK_SCAN", "ScanFacts", "attach_scans", "parse_scans", "read_scans", "scan_reader"]
