"""``outputStatistics`` of JDBC writes, against the real PostgreSQL the suite starts.

A JDBC write has no write-metrics node: its rows are the records its tasks wrote
(``outputMetrics.recordsWritten``, as openlineage-spark's ``JobMetricsHolder`` reads them).
"""

from __future__ import annotations

from typing import Any

import pytest
from spark_helpers import captured
from tests.support.postgres import postgres  # noqa: F401  (session-scoped fixture)

from lineage_operators.model import LineageDataset

pytestmark = pytest.mark.filterwarnings("ignore")


def _output(result: Any, table: str) -> LineageDataset:
    (found,) = [d for d in result.outputs if d.name.endswith(f".{table}")]
    return found


def _rows_in(postgres: Any, table: str) -> int:  # noqa: F811
    return int(postgres.query(f"SELECT count(*) FROM {table}")[0][0])


def test_jdbc_writes_report_the_rows_written(spark: Any, postgres: Any) -> None:  # noqa: F811
    """DataFrameWriter.jdbc, then format("jdbc").save() of a shuffled union: rows summed per table."""
    url, props = postgres.jdbc_url, postgres.jdbc_properties

    def body() -> None:
        spark.range(0, 37, 1, 3).selectExpr("id", "cast(id AS STRING) AS name").write.jdbc(
            url, "js_people", "overwrite", props
        )
        hundred = spark.range(100).selectExpr("id", "'a' AS name")
        fifty = spark.range(50).selectExpr("id", "'b' AS name")
        (
            hundred.union(fifty)
            .repartition(7)
            .write.format("jdbc")
            .options(url=url, dbtable="js_people", **props)
            .mode("append")
            .save()
        )

    result = captured(spark, body)
    facet = _output(result, "js_people").output_facets["outputStatistics"]
    assert facet.rowCount == 37 + 150 == _rows_in(postgres, "js_people")
    assert (facet.size, facet.fileCount) == (None, None)  # a JDBC write counts no bytes or files
    postgres.execute("DROP TABLE js_people")


def test_insert_into_jdbc_relations_counts_nested_writes_once(spark: Any, postgres: Any) -> None:  # noqa: F811
    """INSERT INTO a JDBC view runs a nested save of the same table: its rows count once."""
    postgres.execute("DROP TABLE IF EXISTS js_events; CREATE TABLE js_events (id bigint, kind text);")
    options = {"url": postgres.jdbc_url, "dbtable": "js_events", **postgres.jdbc_properties}
    text = ", ".join(f"{key} '{value}'" for key, value in options.items())
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW js_events_view USING jdbc OPTIONS ({text})")

    def body() -> None:
        spark.sql("INSERT INTO js_events_view SELECT id, 'x' FROM range(4)")
        spark.sql("INSERT INTO js_events_view SELECT id, 'y' FROM range(6)")

    result = captured(spark, body)
    rows = _output(result, "js_events").output_facets["outputStatistics"].rowCount
    assert rows == 4 + 6 == _rows_in(postgres, "js_events")
    spark.sql("DROP VIEW js_events_view")
    postgres.execute("DROP TABLE js_events")
