"""One Spark session on a real S3 API (S3Proxy, tests/support/s3_server.py) for this directory, in its own
pytest process per Spark line (``make test-s3-3.5``, ``make test-s3-newest``).

The S3A jars (``hadoop-aws`` and the AWS SDK modules of the line's Hadoop, pinned) and openlineage-spark
(the peer, pinned) must be on the classpath when the JVM starts, and the peer's listener registered then:
a process whose JVM another session started fails here with that reason. The session has S3A's conf
against the server, with the test credentials (canaries: the suite-wide scan fails on any trace of them).

:func:`s3_outcomes` runs every job of :mod:`s3_jobs` once under both listeners (the first test to ask pays
for all), keeping every log record of ours meanwhile, so the tests can assert on our capture, compare it
with the jar's, and look for the credentials in what we emitted and logged.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from s3_jobs import S3_JOBS, WAREHOUSE, S3Run, S3Workspace
from tests.peer.peer_events import EventFile
from tests.peer.runner import peer_conf, run_job
from tests.support.canary import our_log_records
from tests.support.s3_server import S3Server, S3Unavailable, s3_server, s3a_conf, s3a_jars
from tests.support.table_format_session import open_session

__all__ = ["s3_server"]  # the session fixture, shared by this directory

LISTENER = "io.openlineage.spark.agent.OpenLineageSparkListener"


@pytest.fixture(scope="session")
def s3_jars() -> list[Path]:
    """[openlineage-spark, the S3A jars of this line's Hadoop]; one that cannot be had fails the tests."""
    import pyspark
    from tests.support.maven_jars import JarUnavailable, fetch, openlineage_spark_jar_name

    failure = None
    try:
        return [fetch(openlineage_spark_jar_name(pyspark.__version__)), *s3a_jars()]
    except (JarUnavailable, S3Unavailable) as error:
        failure = str(error)
    pytest.fail(f"the S3 tests' jars could not be had: {failure}", pytrace=False)


@pytest.fixture(scope="session")
def s3_session(
    s3_server: S3Server,
    s3_jars: list[Path],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Any, EventFile, S3Workspace]]:
    """(the session, the jar's event file, the workspace with its sources prepared)."""
    from pyspark import SparkContext

    if SparkContext._jvm is not None:
        pytest.fail("tests/s3 needs a JVM of its own (S3A and the peer's listener are set at its start)")
    work = tmp_path_factory.mktemp("s3")
    events = work / "openlineage-spark.jsonl"
    listener = {k: v for k, v in peer_conf(s3_jars[0], events).items() if k != "spark.jars"}
    conf = {
        **listener,
        **s3a_conf(s3_server.endpoint),
    }
    workspace = S3Workspace(s3_server)
    workspace.create_buckets()  # the warehouse's bucket exists before the session qualifies its path
    session = open_session(
        "lineage-operators-s3-tests",
        s3_jars,
        conf,
        work,
        overrides={"spark.sql.warehouse.dir": WAREHOUSE},
        classpath=s3_jars,
    )
    try:
        workspace.prepare(session)
        yield session, EventFile(events), workspace
    finally:
        session.stop()


@pytest.fixture(scope="session")
def s3_run(s3_session: tuple[Any, EventFile, S3Workspace]) -> S3Run:
    spark, events, workspace = s3_session
    with our_log_records() as texts:
        outcomes = {job.name: run_job(spark, job, workspace, events) for job in S3_JOBS}  # type: ignore[arg-type]
    return S3Run(outcomes, texts)
