"""One Spark session with Hive support on a real Hive metastore (tests/support/hive_metastore.py) for this
directory, in its own pytest process per Spark line (``make test-hive-3.5``, ``make test-hive-newest``).

Spark's session catalog is the metastore's (``spark.sql.catalogImplementation=hive`` and its Thrift URI
are read when the JVM's first session starts), and openlineage-spark (the peer, pinned) must be on the
classpath with its listener registered at that start: a process whose JVM another session started fails
here with that reason.

:func:`hive_run` runs every job of :mod:`hive_jobs` once under both listeners (the first test to ask pays
for all), so the tests can assert on our capture and compare it with the jar's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hive_jobs import HIVE_JOBS, HiveRun, HiveWorkspace
from tests.peer.peer_events import EventFile
from tests.peer.runner import peer_conf, run_job
from tests.support.hive_metastore import HiveMetastore, hive_metastore, hive_spark_conf
from tests.support.table_format_session import open_session

__all__ = ["hive_metastore"]  # the session fixture, shared by this directory


@pytest.fixture(scope="session")
def peer_jar() -> Path:
    """openlineage-spark for this line's Scala; one that cannot be had fails the tests."""
    import pyspark
    from tests.support.maven_jars import JarUnavailable, fetch, openlineage_spark_jar_name

    failure = None
    try:
        return fetch(openlineage_spark_jar_name(pyspark.__version__))
    except JarUnavailable as error:
        failure = str(error)
    pytest.fail(f"the Hive tests' peer jar could not be had: {failure}", pytrace=False)


@pytest.fixture(scope="session")
def hive_session(
    hive_metastore: HiveMetastore,
    peer_jar: Path,
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
    listener = {k: v for k, v in peer_conf(peer_jar, events).items() if k != "spark.jars"}
    session = open_session(
        "lineage-operators-hive-tests", [peer_jar], listener, work, overrides=hive_spark_conf(hive_metastore)
    )
    workspace = HiveWorkspace(hive_metastore, work)
    try:
        workspace.prepare(session)
        yield session, EventFile(events), workspace
    finally:
        session.stop()


@pytest.fixture(scope="session")
def hive_run(hive_session: tuple[Any, EventFile, HiveWorkspace]) -> HiveRun:
    spark, events, workspace = hive_session
    return HiveRun({job.name: run_job(spark, job, workspace, events) for job in HIVE_JOBS})  # type: ignore[arg-type]
