"""One Spark session with Hive support on a real Hive metastore (tests/support/hive_metastore.py) for this
directory, in its own pytest process per Spark line (``make test-hive-3.5``, ``make test-hive-newest``), with
a real S3 API beside it (S3Proxy, tests/support/s3_server.py) for the jobs on S3 (hive_s3_jobs.py).

Spark's session catalog is the metastore's (``spark.sql.catalogImplementation=hive`` and its Thrift URI
are read when the JVM's first session starts), and openlineage-spark (the peer, pinned) must be on the
classpath with its listener registered at that start: a process whose JVM another session started fails
here with that reason. The S3A jars (``hadoop-aws`` and the AWS SDK of the line's Hadoop, pinned) go on the
JVM's classpath too, and the session has S3A's conf against the S3 server with the test credentials
(canaries); the metastore server has its own S3A and the same conf (it makes the S3 tables' folders).

:func:`hive_run` runs every job of :mod:`hive_jobs` and :mod:`hive_s3_jobs` once under both listeners (the
first test to ask pays for all), keeping every log record of ours meanwhile, so the tests can assert on our
capture, compare it with the jar's, and look for the S3 credentials in what we emitted and logged.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hive_jobs import HiveRun, HiveWorkspace
from hive_s3_jobs import EVERY_JOB, prepare_s3
from tests.peer.peer_events import EventFile
from tests.peer.runner import peer_conf, run_job
from tests.support.canary import our_log_records
from tests.support.hive_metastore import HiveMetastore, MetastoreUnavailable, hive_spark_conf
from tests.support.processes import started_or_failed
from tests.support.s3_server import S3Server, S3Unavailable, s3a_conf, s3a_jars
from tests.support.table_format_session import open_session


@pytest.fixture(scope="session")
def hive_s3() -> Iterator[S3Server]:
    """S3Proxy over its in-memory store: a folder the metastore makes (an empty marker object) must list
    as S3 lists it (tests/support/s3_server.py says why the filesystem backend does not)."""
    with started_or_failed(S3Server(backend="transient"), S3Unavailable) as server:
        yield server


@pytest.fixture(scope="session")
def hive_metastore(hive_s3: S3Server) -> Iterator[HiveMetastore]:
    """The metastore server, with S3A against :func:`hive_s3`; one that cannot start fails the tests."""
    with started_or_failed(HiveMetastore(s3_endpoint=hive_s3.endpoint), MetastoreUnavailable) as server:
        yield server


@pytest.fixture(scope="session")
def hive_jars() -> list[Path]:
    """[openlineage-spark for this line's Scala, the S3A jars of this line's Hadoop]; one that cannot be had
    fails the tests."""
    import pyspark
    from tests.support.maven_jars import JarUnavailable, fetch, openlineage_spark_jar_name

    failure = None
    try:
        return [fetch(openlineage_spark_jar_name(pyspark.__version__)), *s3a_jars()]
    except (JarUnavailable, S3Unavailable) as error:
        failure = str(error)
    pytest.fail(f"the Hive tests' jars could not be had: {failure}", pytrace=False)


@pytest.fixture(scope="session")
def hive_session(
    hive_metastore: HiveMetastore,
    hive_s3: S3Server,
    hive_jars: list[Path],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Any, EventFile, HiveWorkspace]]:
    """(the session, the jar's event file, the workspace with its databases and sources prepared)."""
    from pyspark import SparkContext

    if SparkContext._jvm is not None:
        pytest.fail(
            "tests/hive needs a JVM of its own (Hive support and the peer's listener are set at its start)"
        )
    work = tmp_path_factory.mktemp("hive")
    events = work / "openlineage-spark.jsonl"
    listener = {k: v for k, v in peer_conf(hive_jars[0], events).items() if k != "spark.jars"}
    conf = {
        **listener,
        **s3a_conf(hive_s3.endpoint),
    }
    session = open_session(
        "lineage-operators-hive-tests",
        hive_jars,
        conf,
        work,
        overrides=hive_spark_conf(hive_metastore),
        classpath=hive_jars,
    )
    workspace = HiveWorkspace(hive_metastore, work, hive_s3)
    try:
        workspace.prepare(session)
        prepare_s3(session, workspace)
        yield session, EventFile(events), workspace
    finally:
        session.stop()


@pytest.fixture(scope="session")
def hive_run(hive_session: tuple[Any, EventFile, HiveWorkspace]) -> HiveRun:
    spark, events, workspace = hive_session
    with our_log_records() as texts:
        outcomes = {job.name: run_job(spark, job, workspace, events) for job in EVERY_JOB}  # type: ignore[arg-type]
    return HiveRun(outcomes, texts)
