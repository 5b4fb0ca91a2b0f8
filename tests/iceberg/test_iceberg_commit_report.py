"""The ``icebergCommitReport`` output facet (every line with an Iceberg runtime): openlineage-spark's
field names and ``_schemaURL``, its values what Iceberg recorded for the commit that made the written
snapshot (read back here from Iceberg's ``snapshots`` and ``metadata_log_entries`` tables).

The jar's metrics reporter also times the commit (``totalDuration``, ``attempts``): those are in no
metadata we read, so they are not in ours (tables/iceberg_reports.py).
"""

from __future__ import annotations

from typing import Any

from iceberg_helpers import commit_of, commit_report, version
from tests.spark.spark_helpers import captured

SCHEMA_URL = "https://openlineage.io/spec/facets/1-0-0/IcebergCommitReportOutputDatasetFacet.json"


def _written(spark: Any, statement: str) -> Any:
    (dataset,) = captured(spark, lambda: spark.sql(statement)).outputs
    return dataset


def test_commit_report_of_appends_and_row_level_deletes(spark: Any) -> None:
    table = "ice.db.reported"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, v STRING) USING iceberg TBLPROPERTIES "
        "('format-version'='2', 'write.delete.mode'='merge-on-read')"
    )
    insert = _written(spark, f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    iceberg = commit_of(spark, table)
    report = commit_report(insert)
    assert report is not None
    assert report["_schemaURL"] == SCHEMA_URL
    assert (report["snapshotId"], report["sequenceNumber"], report["operation"]) == (
        iceberg["snapshotId"],
        iceberg["sequenceNumber"],
        "append",
    )
    assert str(report["snapshotId"]) == version(insert)  # the report of the snapshot written
    summary = iceberg["summary"]
    assert report["commitMetrics"] == {
        "addedDataFiles": int(summary["added-data-files"]),
        "totalDataFiles": int(summary["total-data-files"]),
        "totalDeleteFiles": 0,
        "addedRecords": 3,
        "totalRecords": 3,
        "addedFilesSizeInBytes": int(summary["added-files-size"]),
        "totalFilesSizeInBytes": int(summary["total-files-size"]),
        "totalPositionalDeletes": 0,
        "totalEqualityDeletes": 0,
    }
    assert report["metadata"] == {
        key: summary[key]
        for key in ("engine-name", "engine-version", "iceberg-version", "app-id", "app-name")
    }
    assert report["metadata"]["engine-name"] == "spark"

    delete = _written(spark, f"DELETE FROM {table} WHERE id = 2")  # merge-on-read: a position delete
    iceberg = commit_of(spark, table)
    report = commit_report(delete)
    assert report is not None
    assert (report["snapshotId"], report["sequenceNumber"], report["operation"]) == (
        iceberg["snapshotId"],
        iceberg["sequenceNumber"],
        iceberg["operation"],
    )
    assert report["sequenceNumber"] == 2
    metrics = report["commitMetrics"]
    assert {k: metrics.get(k) for k in ("addedDeleteFiles", "addedPositionalDeleteFiles")} == {
        "addedDeleteFiles": 1,
        "addedPositionalDeleteFiles": 1,
    }
    assert (metrics["addedPositionalDeletes"], metrics["totalPositionalDeletes"]) == (1, 1)
    assert "addedRecords" not in metrics  # no data file written: the summary has no such counter
    assert not {"totalDuration", "attempts", "addedDVs", "removedDVs"} & set(metrics)


def test_no_commit_report_without_a_commit(spark: Any) -> None:
    """A table created empty has no snapshot; a read commits nothing."""
    created = _written(spark, "CREATE TABLE ice.db.unreported (id BIGINT) USING iceberg")
    assert commit_report(created) is None
    spark.sql("INSERT INTO ice.db.unreported VALUES (1)")
    result = captured(spark, lambda: spark.sql("SELECT * FROM ice.db.unreported").collect())
    (read,) = result.inputs
    assert "icebergCommitReport" not in read.output_facets
    assert not result.outputs
