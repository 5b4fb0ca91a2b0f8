"""Issue 52, item 4: the Kafka broker stopped mid-stream (tests/kafka/dags/kafka_faults.py).

Our task and the same code without us run in one DAG run (``dag.test()``, the provider's file transport)
on this directory's session, healthy first, then each meeting the fault: a Structured Streaming query from
a topic into files whose broker is stopped after the first batch. Both end alike (the query fails once
Kafka's client gives up, and the task with it), ours no longer than the plain one beyond what the healthy
pair cost us plus tests/support/faults.py's bound, and ours reports in its final event the topic and the
file sink. None of our log lines warns or speaks of a retry.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.fault_tasks import FOLDER_ENV
from tests.support.faults import our_warnings, run_outage
from tests.support.kafka_broker import KafkaBroker, create_topics
from tests.support.table_format_session import load_dag_module

from lineage_operators.testing import DagRunResult, load_dag

DAG_FILE = Path(__file__).parent / "dags" / "kafka_faults.py"


@pytest.fixture
def topic(kafka_session: tuple[Any, ...], kafka_broker: KafkaBroker) -> Iterator[str]:
    """The topic the sides stream, with its first records; the broker running again after the test,
    whatever it did (the suite's other tests use it)."""
    spark = kafka_session[0]
    name = load_dag_module(DAG_FILE, "kafka_faults_dag").TOPIC
    create_topics(spark, kafka_broker.bootstrap, [name])
    records = spark.createDataFrame([(str(i), f"order {i}") for i in range(10)], "key string, value string")
    records.write.format("kafka").option("kafka.bootstrap.servers", kafka_broker.bootstrap).option(
        "topic", name
    ).save()
    try:
        yield name
    finally:
        kafka_broker.resume()


def test_kafka_stopped_mid_stream_ends_our_task_as_it_ends_without_us(
    *,
    run_dag: Callable[..., DagRunResult],
    kafka_session: tuple[Any, ...],
    kafka_broker: KafkaBroker,
    topic: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    faults = tmp_path / "faults"
    faults.mkdir()
    monkeypatch.setenv(FOLDER_ENV, str(faults))
    monkeypatch.setenv("LINEAGE_TEST_KAFKA_BOOTSTRAP", kafka_broker.bootstrap)
    caplog.set_level(logging.INFO)
    outage = run_outage(
        run_dag,
        load_dag(DAG_FILE),
        kafka_session[0],
        faults,
        service="kafka",
        server=kafka_broker,
        java_error="org.apache.kafka.common.errors.TimeoutException",
    )
    namespace = f"kafka://{kafka_broker.bootstrap}"
    for outcome, name in ((outage.healthy[0], "ours_healthy"), (outage.ours, "ours_stopped")):
        assert outcome.datasets("inputs") == [(namespace, topic)], outcome.event
        assert outcome.datasets("outputs") == [("file", str(faults / "out" / name))], outcome.event
    assert our_warnings(caplog.records) == []
