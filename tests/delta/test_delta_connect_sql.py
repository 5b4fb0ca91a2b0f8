"""``MERGE INTO`` and RTAS on Delta tables over a real Spark Connect server: the same columnLineage
facets as on the classic Delta session, and the same output and input datasets.

The Connect server is launched here once per process (this directory runs in a pytest process of
its own per Spark line), its JVM starting while the classic side runs, with the line's Delta jars
and Delta's extension and catalog, as the classic session of ``conftest.py`` has them. Connect
exists on 4.x only and Delta publishes no release for 4.2+: the tests run on 4.0 and 4.1 and skip
elsewhere. Facets are compared as
tests/spark/test_connect_column_lineage.py compares them (fields, input fields, type, subtype,
masking, dataset-wide entries; each side's warehouse directory normalised), descriptions off.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.delta.conftest import DELTA_CATALOG
from tests.spark.spark_helpers import PATIENT, comparable_column_lineage, run_captured

pytestmark = pytest.mark.filterwarnings("ignore")

SETUP = [
    "CREATE DATABASE IF NOT EXISTS dcs",
    "CREATE TABLE dcs.target (id BIGINT, v BIGINT, note STRING) USING delta",
    "INSERT INTO dcs.target VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c'), (5, -1, 'e')",
    "CREATE TABLE dcs.changes (id BIGINT, v BIGINT, note STRING, op STRING) USING delta",
    "INSERT INTO dcs.changes VALUES (1, 1, 'x', 'bump'), (2, 0, 'y', 'drop'), (3, 3, 'z', 'set'),"
    " (4, 4, 'w', 'new'), (6, 6, 'u', 'copy')",
]
STATEMENTS = {
    "merge": (
        "MERGE INTO dcs.target t USING dcs.changes c ON t.id = c.id "
        "WHEN MATCHED AND c.op = 'bump' THEN UPDATE SET t.v = t.v + c.v "
        "WHEN MATCHED AND c.op = 'drop' THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET * "
        "WHEN NOT MATCHED AND c.op = 'new' THEN INSERT (id, v) VALUES (c.id, c.v * 2) "
        "WHEN NOT MATCHED THEN INSERT *"
    ),
    # issue 49's statement: the target rows it does not match keep their own v
    "merge_one_column": (
        "MERGE INTO dcs.target t USING dcs.changes c ON t.id = c.id "
        "WHEN MATCHED THEN UPDATE SET t.v = c.v WHEN NOT MATCHED THEN INSERT *"
    ),
    "merge_by_source": (
        "MERGE INTO dcs.target AS t USING (SELECT id, upper(note) AS note FROM dcs.changes) AS s "
        "ON t.id = s.id WHEN MATCHED THEN UPDATE SET note = s.note "
        "WHEN NOT MATCHED BY SOURCE AND t.v < 0 THEN DELETE"
    ),
    "create_or_replace": (
        "CREATE OR REPLACE TABLE dcs.rtas USING delta AS "
        "SELECT id, v * 2 AS v2, upper(note) AS note FROM dcs.changes WHERE op <> 'drop'"
    ),
    "replace": (
        "REPLACE TABLE dcs.rtas USING delta AS "
        "SELECT c.id, t.v + c.v AS v2, c.note FROM dcs.changes c JOIN dcs.target t ON c.id = t.id"
    ),
}


@pytest.fixture(scope="module")
def delta_server(delta_jars: list[Path], spark: Any) -> Iterator[Any]:
    """A Connect server of this line with Delta, launched (its JVM starts while the classic side runs)."""
    import pyspark
    from tests.support.connect_server import ConnectServer

    if not any((Path(pyspark.__file__).parent / "jars").glob("spark-connect_*.jar")):
        pytest.skip("this pyspark's jars have no Spark Connect server")
    pytest.importorskip("pyspark.sql.connect.client", exc_type=ImportError)
    conf = {
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": DELTA_CATALOG,
        "spark.databricks.delta.snapshotPartitions": "1",
    }
    server = ConnectServer(jars=delta_jars, conf=conf).launch()
    try:
        yield server
    finally:
        server.stop()


def _facets(session: Any, statement: str) -> tuple[dict[str, Any], set[str], set[str]]:
    """output -> its columnLineage (comparable), the output names, the input names."""
    warehouse = str(session.conf.get("spark.sql.warehouse.dir")).removeprefix("file:").rstrip("/")

    def norm(name: str) -> str:
        return name.replace(warehouse, "<warehouse>")

    _, result = run_captured(session, lambda: session.sql(statement).collect(), timeout=PATIENT)
    found = comparable_column_lineage(result.outputs, norm)
    return found, {norm(d.name) for d in result.outputs}, {norm(d.name) for d in result.inputs}


@pytest.fixture(scope="module")
def both_sides(spark: Any, delta_server: Any) -> Iterator[dict[str, dict[str, Any]]]:
    """statement name -> side -> (facets, outputs, inputs), each statement run on both sessions."""
    from pyspark.sql.connect.session import SparkSession as RemoteSparkSession

    results: dict[str, dict[str, Any]] = {name: {} for name in STATEMENTS}
    sessions = [spark]
    try:
        for label in ("classic", "connect"):
            if label == "connect":
                delta_server.wait_ready()
                sessions.append(RemoteSparkSession.builder.remote(delta_server.url).create())
            session = sessions[-1]
            for text in SETUP:
                session.sql(text).collect()
            for name, statement in STATEMENTS.items():
                results[name][label] = _facets(session, statement)
        yield results
    finally:
        for session in sessions:
            session.sql("DROP DATABASE IF EXISTS dcs CASCADE").collect()
        if len(sessions) > 1:
            sessions[1].stop()


@pytest.mark.parametrize("name", list(STATEMENTS))
def test_connect_merge_and_rtas_on_delta_have_the_classic_column_lineage(
    both_sides: dict[str, dict[str, Any]], name: str
) -> None:
    classic, connect = both_sides[name]["classic"], both_sides[name]["connect"]
    table = "rtas" if name in ("create_or_replace", "replace") else "target"
    output = f"<warehouse>/dcs.db/{table}"
    assert classic[1] == {output}
    assert connect[1] == classic[1]
    assert connect[2] == classic[2]
    assert "<warehouse>/dcs.db/changes" in connect[2]
    facet = classic[0][output]
    assert facet, f"the classic side has no column lineage for {name}"
    assert facet["fields"]
    assert connect[0] == classic[0]


def test_a_merged_column_comes_from_the_source_and_from_the_rows_no_clause_touches(
    both_sides: dict[str, dict[str, Any]],
) -> None:
    """``UPDATE SET t.v = c.v ... INSERT *``: ``v`` is the source's ``v`` in the rows matched or inserted and
    the target's own ``v`` in the rows the MERGE does not match, so both are its IDENTITY inputs, on both
    sessions (openlineage-spark reports the source's alone: docs/comparison.md says why ours differs)."""
    identity = {("DIRECT", "IDENTITY", False)}
    target, changes = "<warehouse>/dcs.db/target", "<warehouse>/dcs.db/changes"
    for side in ("classic", "connect"):
        facet = both_sides["merge_one_column"][side][0][target]
        v = {(name, field): kinds for (_, name, field), kinds in facet["fields"]["v"].items()}
        assert v == {(target, "v"): identity, (changes, "v"): identity}, side
