"""One Spark session beside a real Kafka broker (tests/support/kafka_broker.py) for this directory, in its
own pytest process per Spark line (``make test-kafka-3.5``, ``make test-kafka-newest``).

Spark's Kafka connector (pinned for the line) and openlineage-spark (the peer, pinned) must be on the
classpath when the JVM starts, and the peer's listener registered then: a process whose JVM another
session started fails here with that reason.

:func:`kafka_run` runs every job of :mod:`kafka_jobs` once under both listeners (the first test to ask
pays for all), so the tests can assert on our capture and compare it with the jar's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kafka_jobs import KAFKA_JOBS, KafkaWorkspace
from tests.peer.peer_events import EventFile
from tests.peer.runner import Outcome, peer_conf, run_job
from tests.support.kafka_broker import KafkaBroker, KafkaUnavailable, kafka_broker, spark_kafka_jars
from tests.support.table_format_session import open_session

__all__ = ["kafka_broker"]  # the session fixture, shared by this directory


@pytest.fixture(scope="session")
def kafka_jars() -> list[Path]:
    """[openlineage-spark, Spark's Kafka connector for this line]; one that cannot be had fails the tests."""
    import pyspark
    from tests.support.maven_jars import JarUnavailable, fetch, openlineage_spark_jar_name

    failure = None
    try:
        return [fetch(openlineage_spark_jar_name(pyspark.__version__)), *spark_kafka_jars()]
    except (JarUnavailable, KafkaUnavailable) as error:
        failure = str(error)
    pytest.fail(f"the Kafka tests' jars could not be had: {failure}", pytrace=False)


@pytest.fixture(scope="session")
def kafka_session(
    kafka_broker: KafkaBroker,
    kafka_jars: list[Path],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Any, EventFile, KafkaWorkspace]]:
    """(the session, the jar's event file, the workspace with its topics filled)."""
    from pyspark import SparkContext

    if SparkContext._jvm is not None:
        pytest.fail(
            "tests/kafka needs a JVM of its own (the connector and the peer's listener are set at its start)"
        )
    work = tmp_path_factory.mktemp("kafka")
    events = work / "openlineage-spark.jsonl"
    listener = {k: v for k, v in peer_conf(kafka_jars[0], events).items() if k != "spark.jars"}
    conf = {
        **listener,
    }
    session = open_session("lineage-operators-kafka-tests", kafka_jars, conf, work, classpath=kafka_jars)
    workspace = KafkaWorkspace(kafka_broker, work / "jobs")
    try:
        workspace.prepare(session)
        yield session, EventFile(events), workspace
    finally:
        for query in session.streams.active:
            query.stop()
        session.stop()


@pytest.fixture(scope="session")
def kafka_run(kafka_session: tuple[Any, EventFile, KafkaWorkspace]) -> dict[str, Outcome]:
    spark, events, workspace = kafka_session
    return {job.name: run_job(spark, job, workspace, events) for job in KAFKA_JOBS}  # type: ignore[arg-type]
