"""An Iceberg read's ``inputStatistics`` and ``icebergScanReport`` input facets (every line with an
Iceberg runtime), as openlineage-spark reports them: the statistics of the data files the scan read
(after partition pruning), the report Iceberg made of the scan. Values are checked against Iceberg's
own ``files`` and ``snapshots`` metadata tables, read here apart from the capture.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from iceberg_helpers import latest
from tests.spark.spark_helpers import captured

SCHEMA_URL = "https://openlineage.io/spec/facets/1-0-0/IcebergScanReportInputDatasetFacet.json"
TABLE = "ice.db.scanned"


def _files(spark: Any, where: str) -> tuple[int, int, int]:
    """(files, bytes, records) of the table's current data files matching ``where``."""
    row = spark.sql(
        f"SELECT count(*) AS n, sum(file_size_in_bytes) AS b, sum(record_count) AS r FROM {TABLE}.files "
        f"WHERE content = 0 AND {where}"
    ).first()
    return int(row.n), int(row.b or 0), int(row.r or 0)


def _input(spark: Any, query: str, out: Path) -> Any:
    result = captured(spark, lambda: spark.sql(query).write.mode("overwrite").parquet(str(out)))
    (read,) = [d for d in result.inputs if d.name.endswith("/db/scanned")]
    return read


def test_a_pruned_read_reports_the_files_it_read_and_iceberg_s_scan_report(
    spark: Any, tmp_path: Path
) -> None:
    from openlineage.client.serde import Serde

    spark.sql(
        f"CREATE TABLE {TABLE} (id BIGINT, v STRING, region STRING) USING iceberg PARTITIONED BY (region)"
    )
    spark.sql(f"INSERT INTO {TABLE} VALUES (1, 'a', 'eu'), (2, 'b', 'eu'), (3, 'c', 'us')")
    spark.sql(f"INSERT INTO {TABLE} VALUES (4, 'd', 'eu'), (5, 'e', 'us'), (6, 'f', 'apac')")
    eu, others = _files(spark, "partition.region = 'eu'"), _files(spark, "partition.region <> 'eu'")
    assert eu[0] == 2
    assert others[0] == 3

    read = _input(spark, f"SELECT id, v FROM {TABLE} WHERE region = 'eu'", tmp_path / "eu")
    stats = read.input_facets["inputStatistics"]
    assert (stats.fileCount, stats.size, stats.rowCount) == eu  # only what the scan read

    report = Serde.to_dict(read.input_facets["icebergScanReport"])
    assert report["_schemaURL"] == SCHEMA_URL
    assert str(report["snapshotId"]) == latest(spark, TABLE)
    assert "region" in report["filterDescription"]
    assert set(report["projectedFieldNames"]) >= {"id", "v"}
    metrics = report["scanMetrics"]
    assert (metrics["resultDataFiles"], metrics["totalFileSizeInBytes"]) == (eu[0], eu[1])
    assert metrics["resultDataFiles"] + metrics["skippedDataFiles"] == eu[0] + others[0]
    assert metrics["resultDeleteFiles"] == 0
    assert metrics["totalPlanningDuration"] >= 0
    assert report["metadata"]["engine-name"] == "spark"

    whole = _input(spark, f"SELECT * FROM {TABLE}", tmp_path / "all")
    stats = whole.input_facets["inputStatistics"]
    everything = _files(spark, "true")
    assert (stats.fileCount, stats.size, stats.rowCount) == everything
    unfiltered = Serde.to_dict(whole.input_facets["icebergScanReport"])
    assert unfiltered["filterDescription"] == ""  # Iceberg's ``true``, as the jar writes it
    assert unfiltered["scanMetrics"]["skippedDataFiles"] == 0


def test_a_time_travel_read_reports_the_snapshot_it_scanned(spark: Any, tmp_path: Path) -> None:
    from openlineage.client.serde import Serde

    table = "ice.db.scanned_versions"
    spark.sql(f"CREATE TABLE {table} (id BIGINT) USING iceberg")
    spark.sql(f"INSERT INTO {table} VALUES (1), (2)")
    first = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots").first().snapshot_id
    spark.sql(f"INSERT INTO {table} VALUES (3)")
    out = tmp_path / "old"
    result = captured(
        spark, lambda: spark.sql(f"SELECT id FROM {table} VERSION AS OF {first}").write.parquet(str(out))
    )
    (read,) = result.inputs
    assert Serde.to_dict(read.input_facets["icebergScanReport"])["snapshotId"] == first
    assert read.input_facets["inputStatistics"].rowCount == 2  # the first snapshot's rows only


def test_the_step_by_step_read_finds_the_same_scan_figures(
    spark: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """The scan figures come in the one-call read's reply; the step-by-step read (its fallback) reads
    them in a call of its own: the same facts."""
    from lineage_operators.spark.plan import reader as plan_module

    pairs: list[tuple[Any, Any]] = []
    original = plan_module.PlanReader.read

    def both(reader: Any, func_name: str, qe: Any, succeeded: bool, *reply: Any) -> Any:
        batched = original(reader, func_name, qe, succeeded, *reply)
        stepped = original(reader, func_name, qe, succeeded, by_steps=True)
        if batched is not None and stepped is not None:
            pairs.append(([vars(r) for r in batched.inputs], [vars(r) for r in stepped.inputs]))
        return batched

    table = "ice.db.scanned_twice"
    spark.sql(f"CREATE TABLE {table} USING iceberg AS SELECT id, id % 3 AS k FROM range(10)")
    monkeypatch.setattr(plan_module.PlanReader, "read", both)
    captured(
        spark,
        lambda: spark.sql(f"SELECT k, count(*) FROM {table} GROUP BY k").write.parquet(str(tmp_path / "out")),
    )
    scanned = [(b, s) for b, s in pairs if any(r["scan_report"] for r in b)]
    assert scanned
    assert all(b == s for b, s in scanned)
    assert [r["rows"] for r in scanned[0][0] if r["scan_report"]] == [10]
