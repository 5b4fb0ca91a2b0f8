"""One SparkSession with openlineage-spark, Delta Lake and Apache Iceberg, for the lakehouse corpus.

The jar's listener and both formats' extensions must be on the classpath when the JVM starts, so this
directory runs in a pytest process of its own per Spark line (``make test-peer-lakehouse-3.5``); the
main peer corpus (tests/peer) runs without it. The session has Delta's extension and ``DeltaCatalog``
as ``spark_catalog``, and an Iceberg Hadoop catalog ``ice`` on a local warehouse; both extensions are
named in ``spark.sql.extensions``. Every jar is pinned and verified (tests/support/maven_jars.py):
one that cannot be had fails the tests with the reason, as does a line without Delta or Iceberg
(the Makefile runs this only on LAKEHOUSE_PEER_LINES).

This conftest overrides tests/peer's ``peer_session`` and ``corpus_outcomes``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.peer.corpus_lakehouse import ICEBERG_CATALOG, LAKE_JOBS, LakeWorkspace
from tests.peer.peer_events import EventFile
from tests.peer.runner import Outcome, peer_conf, run_job
from tests.support.table_format_session import jvm_lacks, open_session

DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
ICEBERG_EXTENSION = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"
LISTENER = "io.openlineage.spark.agent.OpenLineageSparkListener"


def lakehouse_conf(warehouse: Path) -> dict[str, str]:
    """Delta as the session catalog and an Iceberg Hadoop catalog beside it, both extensions on."""
    return {
        "spark.sql.extensions": f"{DELTA_EXTENSION},{ICEBERG_EXTENSION}",
        "spark.sql.catalog.spark_catalog": DELTA_CATALOG,
        f"spark.sql.catalog.{ICEBERG_CATALOG}": "org.apache.iceberg.spark.SparkCatalog",
        f"spark.sql.catalog.{ICEBERG_CATALOG}.type": "hadoop",
        f"spark.sql.catalog.{ICEBERG_CATALOG}.warehouse": str(warehouse),
        # Delta computes a snapshot's state in 50 partitions by default: minutes of tiny tasks here
        "spark.databricks.delta.snapshotPartitions": "1",
    }


@pytest.fixture(scope="session")
def lakehouse_jars() -> list[Path]:
    """[the peer jar, delta-spark, delta-storage, the Iceberg runtime] of this Spark line."""
    import pyspark
    from tests.support.maven_jars import (
        JarUnavailable,
        delta_jar_names,
        fetch,
        iceberg_runtime_name,
        openlineage_spark_jar_name,
    )

    version = pyspark.__version__
    iceberg, delta = iceberg_runtime_name(version), delta_jar_names(version)
    if iceberg is None or not delta:
        pytest.fail(f"pyspark {version} has no pinned Delta and Iceberg release: not a lakehouse peer line")
    try:
        return [fetch(name) for name in (openlineage_spark_jar_name(version), *delta, iceberg)]
    except JarUnavailable as error:
        pytest.fail(f"a jar of the lakehouse peer session could not be had: {error}")


@pytest.fixture(scope="session")
def peer_session(
    lakehouse_jars: list[Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Any, EventFile, Path]]:
    if jvm_lacks(LISTENER) or jvm_lacks(DELTA_CATALOG):
        pytest.fail("tests/peer/lakehouse needs a JVM of its own: run it in its own pytest process")
    work = tmp_path_factory.mktemp("peer-lakehouse")
    events = work / "openlineage-spark.jsonl"
    listener = {k: v for k, v in peer_conf(lakehouse_jars[0], events).items() if k != "spark.jars"}
    conf = {**listener, **lakehouse_conf(work / "iceberg")}
    session = open_session("peer-lakehouse-corpus", lakehouse_jars, conf, work)
    try:
        yield session, EventFile(events), work
    finally:
        session.stop()


@pytest.fixture(scope="session")
def corpus_outcomes(
    peer_session: tuple[Any, EventFile, Path], request: pytest.FixtureRequest
) -> dict[str, Outcome]:
    """Every lakehouse job, run once under both listeners (the first test to ask pays for all)."""
    spark, events, work = peer_session
    workspace = LakeWorkspace(work / "data")
    workspace.prepare(spark)
    outcomes = {job.name: run_job(spark, job, workspace, events) for job in LAKE_JOBS}  # type: ignore[arg-type]
    report_dir = request.config.getoption("--peer-report")
    if report_dir:
        from tests.peer.known import load_lakehouse
        from tests.peer.report import write_report

        write_report(Path(report_dir), outcomes, spark.version, "peer-lakehouse", load_lakehouse())
    return outcomes
