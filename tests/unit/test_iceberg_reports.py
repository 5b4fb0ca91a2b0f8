"""The pure parts of the ``icebergCommitReport`` facet (spark/tables/iceberg_reports.py) and its
placement in resolve: only on an output, only for the version written."""

from __future__ import annotations

from openlineage.client.serde import Serde

from lineage_operators.model import LineageDataset
from lineage_operators.spark.facts import CommitReport, ExecutionFacts, RelationFacts
from lineage_operators.spark.jvm.text import CTSEP, NONE, SEP2
from lineage_operators.spark.resolve import resolve
from lineage_operators.spark.session_facts import NamingContext
from lineage_operators.spark.tables.iceberg import written_commit
from lineage_operators.spark.tables.iceberg_reports import (
    COUNTERS,
    ENVIRONMENT,
    SUMMARY_KEYS,
    parse_commit,
)

SCHEMA_URL = "https://openlineage.io/spec/facets/1-0-0/IcebergCommitReportOutputDatasetFacet.json"


def _values(summary: dict[str, str], sequence: str = "4", operation: str = "append") -> str:
    return SEP2.join([sequence, operation, *(summary.get(k, NONE) for k in SUMMARY_KEYS)])


def test_parse_commit_maps_the_summary_to_the_jars_fields() -> None:
    summary = {
        "added-data-files": "2",
        "deleted-records": "5",
        "total-equality-deletes": "0",
        "added-dvs": "9",  # a counter the jar never copies: not among the keys read
        "engine-name": "spark",
        "app-name": "a, b",
    }
    report = parse_commit("-77", _values(summary))
    assert report == CommitReport(
        snapshot_id=-77,
        sequence_number=4,
        operation="append",
        metrics=(("addedDataFiles", 2), ("removedRecords", 5), ("totalEqualityDeletes", 0)),
        metadata=(("engine-name", "spark"), ("app-name", "a, b")),
    )
    assert "added-dvs" not in SUMMARY_KEYS
    assert len(COUNTERS) == 22
    assert len(ENVIRONMENT) == 5


def test_parse_commit_without_a_snapshot_or_summary() -> None:
    assert parse_commit(None, _values({"added-records": "1"})) is None
    assert parse_commit("1", None) is None
    assert parse_commit("1", NONE) is None
    assert parse_commit("1", _values({"engine-name": "spark"})) is None  # no counter: no commit read
    assert parse_commit("1", "3") is None  # a short record


def test_written_commit_is_the_fourth_part_for_the_current_snapshot() -> None:
    field = CTSEP.join([NONE, "42", "1,2,3", _values({"added-records": "1"})])
    report = written_commit(field)
    assert report is not None
    assert (report.snapshot_id, report.metrics) == (42, (("addedRecords", 1),))
    assert written_commit(CTSEP.join([NONE, "42", "1,2,3"])) is None  # an older reader's record


def _resolved(rel: RelationFacts, output: bool = True) -> list[LineageDataset]:
    facts = ExecutionFacts("f", True, outputs=[rel] if output else [], inputs=[] if output else [rel])
    inputs, outputs, _ = resolve([facts], NamingContext(warehouse="/spark/wh"))
    return outputs if output else inputs


def test_resolve_puts_the_report_of_the_version_written_on_the_output() -> None:
    report = CommitReport(7, 2, "overwrite", (("addedRecords", 3),), (("engine-name", "spark"),))
    rel = RelationFacts(location="/wh/db/t", provider="iceberg", version="7", commit_report=report)
    (dataset,) = _resolved(rel)
    assert Serde.to_dict(dataset.output_facets["icebergCommitReport"]) | {"_producer": None} == {
        "_producer": None,
        "_schemaURL": SCHEMA_URL,
        "snapshotId": 7,
        "sequenceNumber": 2,
        "operation": "overwrite",
        "commitMetrics": {"addedRecords": 3},
        "metadata": {"engine-name": "spark"},
    }
    # a report of another snapshot than the version the output has is not this write's
    (other,) = _resolved(RelationFacts(location="/wh/db/t", version="8", commit_report=report))
    assert "icebergCommitReport" not in other.output_facets
    (read,) = _resolved(RelationFacts(location="/wh/db/t", version="7", commit_report=report), output=False)
    assert "icebergCommitReport" not in read.output_facets
