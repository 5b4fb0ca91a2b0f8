"""The pure parts of an Iceberg read's scan figures (spark/tables/iceberg_scans.py, the scan report of
spark/tables/iceberg_reports.py): the JVM reply's records, their join to the inputs, and the
``icebergScanReport`` facet an input gets in resolve (never an output)."""

from __future__ import annotations

from openlineage.client.serde import Serde

from lineage_operators.spark.facts import ExecutionFacts, RelationFacts, ScanReport
from lineage_operators.spark.jvm.text import NONE, RSEP, SEP, SEP2, SEP3
from lineage_operators.spark.resolve import resolve
from lineage_operators.spark.session_facts import NamingContext
from lineage_operators.spark.tables.iceberg_reports import SCAN_METRICS, parse_scan
from lineage_operators.spark.tables.iceberg_scans import ScanFacts, attach_scans, parse_scans

SCHEMA_URL = "https://openlineage.io/spec/facets/1-0-0/IcebergScanReportInputDatasetFacet.json"
METRICS = SEP2.join(["12", "2", "0", *([NONE] * 13)])
METADATA = SEP2.join(["engine-name" + SEP3 + "spark", "app-name" + SEP3 + "etl"])


def _record(location: str, files: str = "2", report: bool = True) -> str:
    figures = [files, "2650", "20"] if files != NONE else [NONE] * 3
    tail = ["77", 'ref(name="region") == "(hash-1)"', SEP2.join(["id", "v"]), METRICS, METADATA]
    return SEP.join([location, *figures, *(tail if report else [NONE] * 5)])


def test_parse_scan_keeps_the_jars_fields_and_drops_absent_metrics() -> None:
    report = parse_scan(["77", "", "id", METRICS, NONE])
    assert report == ScanReport(
        77, "", ("id",), (("totalPlanningDuration", 12), ("resultDataFiles", 2), ("resultDeleteFiles", 0))
    )
    assert parse_scan([NONE, NONE, NONE, NONE, NONE]) is None  # a scan that keeps no report
    assert parse_scan([]) is None
    assert len(SCAN_METRICS) == 16


def test_parse_scans_reads_every_record() -> None:
    text = RSEP.join([_record("file:/w/db/a"), _record("file:/w/db/b", files=NONE, report=False)])
    first, second = parse_scans(text)
    assert (first.location, first.files, first.size, first.rows) == ("file:/w/db/a", 2, 2650, 20)
    assert first.report is not None
    assert first.report.filter_description == 'ref(name="region") == "(hash-1)"'
    assert first.report.metadata == (("engine-name", "spark"), ("app-name", "etl"))
    assert second == ScanFacts("file:/w/db/b")  # tasks never planned, no report: nothing to say
    assert parse_scans(NONE) == []
    assert parse_scans(None) == []


def test_attach_joins_by_location_and_keeps_the_widest_scan_of_a_table() -> None:
    narrow, wide = parse_scans(
        RSEP.join([_record("file:/w/db/a/", files="1"), _record("file:/w/db/a", files="3")])
    )
    iceberg = RelationFacts(location="file:/w/db/a", provider="iceberg")
    parquet = RelationFacts(location="file:/w/db/a", provider="parquet")
    other = RelationFacts(location="file:/w/db/z", provider="iceberg")
    attach_scans([narrow, wide], [iceberg, parquet, other])
    assert (iceberg.files, iceberg.size, iceberg.rows) == (3, 2650, 20)
    assert iceberg.scan_report == wide.report
    assert (parquet.files, parquet.scan_report) == (None, None)  # not an Iceberg table
    assert (other.files, other.scan_report) == (None, None)


def test_resolve_puts_the_scan_report_on_the_input_only() -> None:
    (scan,) = parse_scans(_record("file:/w/db/a"))
    rel = RelationFacts(
        location="/w/db/a", provider="iceberg", files=2, size=2650, rows=20, scan_report=scan.report
    )
    facts = ExecutionFacts(
        "f", True, inputs=[rel], outputs=[RelationFacts(location="/w/out", scan_report=scan.report)]
    )
    inputs, outputs, _ = resolve([facts], NamingContext(warehouse="/spark/wh"))
    (read,) = inputs
    assert Serde.to_dict(read.input_facets["icebergScanReport"]) | {"_producer": None} == {
        "_producer": None,
        "_schemaURL": SCHEMA_URL,
        "snapshotId": 77,
        "filterDescription": 'ref(name="region") == "(hash-1)"',
        "projectedFieldNames": ["id", "v"],
        "scanMetrics": {"totalPlanningDuration": 12, "resultDataFiles": 2, "resultDeleteFiles": 0},
        "metadata": {"engine-name": "spark", "app-name": "etl"},
    }
    stats = read.input_facets["inputStatistics"]
    assert (stats.fileCount, stats.size, stats.rowCount) == (2, 2650, 20)
    (written,) = outputs
    assert "icebergScanReport" not in written.input_facets
    assert "icebergScanReport" not in written.output_facets
