"""One SparkSession with openlineage-spark's listener (the peer) for the corpus, in its own pytest process.

The jar must be on the classpath and its listener registered when the JVM starts, so this directory
runs in its own process (``make test-peer``; ``make test`` runs it on pyspark 3.5 and the newest line).
The jar comes from ``tests/support/maven_jars.py`` (pinned, verified, cached outside the repository);
a machine that cannot fetch it fails here with the reason: nothing skips.

``--peer-report DIR`` writes the comparison report (Markdown and JSON) there at the end (``make peer``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.peer.corpus import JOBS, Workspace
from tests.peer.peer_events import EventFile
from tests.peer.runner import Outcome, peer_conf, run_job
from tests.support.jvm_launch import append_to_classpath
from tests.support.postgres import postgres  # noqa: F401  (session fixture)
from tests.support.table_format_session import local_settings


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--peer-report", default=None, help="write the peer comparison report into this folder")


@pytest.fixture(scope="session")
def peer_jar() -> Path:
    import pyspark
    from tests.support.maven_jars import JarUnavailable, fetch, openlineage_spark_jar_name

    try:
        return fetch(openlineage_spark_jar_name(pyspark.__version__))
    except JarUnavailable as error:
        pytest.fail(f"openlineage-spark could not be had for the peer comparison: {error}")


@pytest.fixture(scope="session")
def peer_session(
    peer_jar: Path,
    postgres: Any,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Any, EventFile, Path]]:
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    if SparkContext._jvm is not None:
        pytest.fail(
            "tests/peer needs a JVM of its own (the jar's listener is set at start): "
            "run it in its own pytest process"
        )
    work = tmp_path_factory.mktemp("peer")
    events = work / "openlineage-spark.jsonl"
    conf = {
        **peer_conf(peer_jar, events),
        "spark.jars": f"{peer_jar},{postgres.jdbc_jar}",
        **local_settings(work),
    }
    # The suite's conftest launches the JVM with the JDBC driver through PYSPARK_SUBMIT_ARGS, whose
    # ``--jars`` wins over spark.jars: the jar must be named there too for its listener to load. The
    # driver goes after pyspark's jars on the JVM's classpath (tests/support/jvm_launch.py).
    append_to_classpath(os.environ, [postgres.jdbc_jar])
    os.environ["PYSPARK_SUBMIT_ARGS"] = f"--jars {peer_jar},{postgres.jdbc_jar} pyspark-shell"
    builder = SparkSession.builder.master("local[2]").appName("peer-corpus")
    for key, value in conf.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session, EventFile(events), work
    finally:
        session.stop()


@pytest.fixture(scope="session")
def corpus_outcomes(
    peer_session: tuple[Any, EventFile, Path],
    postgres: Any,  # noqa: F811
    request: pytest.FixtureRequest,
) -> dict[str, Outcome]:
    """Every corpus job, run once under both listeners (the first test to ask pays for all)."""
    spark, events, work = peer_session
    workspace = Workspace(work / "data", postgres.jdbc_url, postgres.jdbc_properties)
    workspace.prepare(spark)
    outcomes = {job.name: run_job(spark, job, workspace, events) for job in JOBS}
    report_dir = request.config.getoption("--peer-report")
    if report_dir:
        from tests.peer.report import write_report

        write_report(Path(report_dir), outcomes, spark.version)
    return outcomes


def dump(outcome: Outcome) -> str:
    return json.dumps({"ours": outcome.ours, "jar": outcome.jar}, indent=1, sort_keys=True, default=str)
