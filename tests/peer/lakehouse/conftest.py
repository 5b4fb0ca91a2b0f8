"""One SparkSession with openlineage-spark, Delta Lake and Apache Iceberg, for the lakehouse corpus.

The jar's listener and both formats' extensions must be on the classpath when the JVM starts, so this
directory runs in a pytest process of its own per Spark line (``make test-peer-lakehouse-3.5``); the
main peer corpus (tests/peer) runs without it. The session has Delta's extension and ``DeltaCatalog``
as ``spark_catalog``, and an Iceberg Hadoop catalog ``ice`` on a local warehouse; both extensions are
named in ``spark.sql.extensions``. Every jar is pinned and verified (tests/support/maven_jars.py):
one that cannot be had fails the tests with the reason, as does a line without Delta or Iceberg
(the Makefile runs this only on LAKEHOUSE_PEER_LINES).

The same session runs the S3 part of the corpus (tests/peer/corpus_lakehouse_s3.py): S3Proxy on loopback
(tests/support/s3_server.py), the S3A jars of the line's Hadoop on the driver's classpath, S3A's conf with
the test credentials (canaries: tests/support/canary.py), and a second Iceberg Hadoop catalog ``ice_s3``
whose warehouse is on S3. One JVM for both parts: S3A costs its jars and the server, not another Spark.

This conftest overrides tests/peer's ``peer_session`` and ``corpus_outcomes``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.peer.corpus_lakehouse import ICEBERG_CATALOG, LAKE_JOBS, LakeWorkspace
from tests.peer.corpus_lakehouse_s3 import (
    ICEBERG_S3_CATALOG,
    ICEBERG_S3_WAREHOUSE,
    LAKE_S3_JOBS,
    S3LakeWorkspace,
)
from tests.peer.peer_events import EventFile
from tests.peer.runner import Outcome, peer_conf, run_job
from tests.support.canary import our_log_records
from tests.support.s3_server import S3Server, S3Unavailable, s3_server, s3a_conf, s3a_jars
from tests.support.table_format_session import jvm_lacks, open_session

__all__ = ["s3_server"]  # the session fixture, for this directory

DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
ICEBERG_EXTENSION = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"
LISTENER = "io.openlineage.spark.agent.OpenLineageSparkListener"


def _iceberg_hadoop_catalog(name: str, warehouse: str) -> dict[str, str]:
    return {
        f"spark.sql.catalog.{name}": "org.apache.iceberg.spark.SparkCatalog",
        f"spark.sql.catalog.{name}.type": "hadoop",
        f"spark.sql.catalog.{name}.warehouse": warehouse,
    }


def lakehouse_conf(warehouse: Path) -> dict[str, str]:
    """Delta as the session catalog and two Iceberg Hadoop catalogs beside it (a local warehouse, one on
    S3), both extensions on."""
    return {
        "spark.sql.extensions": f"{DELTA_EXTENSION},{ICEBERG_EXTENSION}",
        "spark.sql.catalog.spark_catalog": DELTA_CATALOG,
        **_iceberg_hadoop_catalog(ICEBERG_CATALOG, str(warehouse)),
        **_iceberg_hadoop_catalog(ICEBERG_S3_CATALOG, ICEBERG_S3_WAREHOUSE),
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
def lakehouse_s3a_jars() -> list[Path]:
    """The S3A jars (hadoop-aws and the AWS SDK modules) of this line's Hadoop, pinned."""
    failure = None
    try:
        return s3a_jars()
    except S3Unavailable as error:
        failure = str(error)
    pytest.fail(f"the S3A jars of the lakehouse peer session could not be had: {failure}", pytrace=False)


@pytest.fixture(scope="session")
def peer_session(
    lakehouse_jars: list[Path],
    lakehouse_s3a_jars: list[Path],
    s3_server: S3Server,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Any, EventFile, Path]]:
    if jvm_lacks(LISTENER) or jvm_lacks(DELTA_CATALOG):
        pytest.fail("tests/peer/lakehouse needs a JVM of its own: run it in its own pytest process")
    work = tmp_path_factory.mktemp("peer-lakehouse")
    events = work / "openlineage-spark.jsonl"
    listener = {k: v for k, v in peer_conf(lakehouse_jars[0], events).items() if k != "spark.jars"}
    conf = {
        **listener,
        **lakehouse_conf(work / "iceberg"),
        **s3a_conf(s3_server.endpoint),
    }
    jars = [*lakehouse_jars, *lakehouse_s3a_jars]
    session = open_session("peer-lakehouse-corpus", jars, conf, work, classpath=lakehouse_s3a_jars)
    try:
        yield session, EventFile(events), work
    finally:
        session.stop()


@dataclass
class LakehouseRun:
    """Every job's outcome (local and S3 parts), and the text of every log record of ours meanwhile."""

    outcomes: dict[str, Outcome]
    our_log: list[str]


@pytest.fixture(scope="session")
def lakehouse_run(
    peer_session: tuple[Any, EventFile, Path], s3_server: S3Server, request: pytest.FixtureRequest
) -> LakehouseRun:
    """Every lakehouse job, local then on S3, run once under both listeners (the first test to ask pays
    for all)."""
    spark, events, work = peer_session
    workspace = LakeWorkspace(work / "data")
    s3_workspace = S3LakeWorkspace(s3_server)
    with our_log_records() as texts:
        workspace.prepare(spark)
        outcomes = {job.name: run_job(spark, job, workspace, events) for job in LAKE_JOBS}  # type: ignore[arg-type]
        s3_workspace.prepare(spark)
        for job in LAKE_S3_JOBS:
            outcomes[job.name] = run_job(spark, job, s3_workspace, events)  # type: ignore[arg-type]
    report_dir = request.config.getoption("--peer-report")
    if report_dir:
        from tests.peer.known import load_lakehouse
        from tests.peer.report import write_report

        write_report(Path(report_dir), outcomes, spark.version, "peer-lakehouse", load_lakehouse())
    return LakehouseRun(outcomes, texts)


@pytest.fixture(scope="session")
def corpus_outcomes(lakehouse_run: LakehouseRun) -> dict[str, Outcome]:
    return lakehouse_run.outcomes
