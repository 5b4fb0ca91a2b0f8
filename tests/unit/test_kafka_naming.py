"""Kafka topics named as openlineage-spark names them (``KafkaBootstrapServerResolver``: the first server of
``kafka.bootstrap.servers``, host and port as written, a listener prefix dropped; the topic as name), and
the topics a Kafka read's options and offsets stand for. The real broker's runs are in tests/kafka."""

from __future__ import annotations

import pytest

from lineage_operators.model import DatasetName
from lineage_operators.naming import name_kafka
from lineage_operators.spark.jvm.text import NONE, SEP3
from lineage_operators.spark.plan.kafka import (
    relation_facts,
    topics_of_offset,
    topics_of_options,
    write_facts,
)


@pytest.mark.parametrize(
    ("servers", "namespace"),
    [
        pytest.param("127.0.0.1:9092", "kafka://127.0.0.1:9092", id="one"),
        pytest.param("b2:9093,b1:9092", "kafka://b2:9093", id="the-first-of-several"),
        pytest.param(" Broker-1.Example:9092 , b2:9092", "kafka://Broker-1.Example:9092", id="as-written"),
        pytest.param("SASL_SSL://b1:9094,SASL_SSL://b2:9094", "kafka://b1:9094", id="listener-prefix"),
        pytest.param("[::1]:9092", "kafka://[::1]:9092", id="ipv6"),
    ],
)
def test_the_namespace_is_the_first_bootstrap_server(servers: str, namespace: str) -> None:
    assert name_kafka(servers, "orders") == DatasetName(namespace, "orders")


@pytest.mark.parametrize(("servers", "topic"), [("", "t"), (",b:1", "t"), ("b:1", ""), ("b:1", "  ")])
def test_no_server_or_no_topic_is_no_name(servers: str, topic: str) -> None:
    with pytest.raises(ValueError, match="no Kafka"):
        name_kafka(servers, topic)


def test_a_batch_read_names_every_topic_its_options_list_once() -> None:
    assert topics_of_options("a, b,", None, None) == ["a", "b"]
    assert topics_of_options(None, "t", None) == ["t"]
    assert topics_of_options(None, None, '{"x": [0, 1], "y": [2]}') == ["x", "y"]
    assert topics_of_options("a", None, '{"a": [0]}') == ["a"]
    assert topics_of_options(None, None, "not json") == []


def test_a_stream_names_the_topics_of_its_offset() -> None:
    assert topics_of_offset('{"events.b": {"0": 5}, "events.a": {"0": 5, "1": 0}}') == [
        "events.a",
        "events.b",
    ]
    assert topics_of_offset(None) == []
    assert topics_of_offset("[1]") == []


def _field(*values: str | None) -> str:
    return SEP3.join(NONE if v is None else v for v in values)


def test_leaf_fields_become_one_dataset_per_topic() -> None:
    batch = relation_facts(_field("batch", "h:1,h:2", "a,b", None, None), "{}")
    assert [r.kafka for r in batch] == [("h:1,h:2", "a"), ("h:1,h:2", "b")]
    assert all(r.schema_text == "{}" for r in batch)
    stream = relation_facts(_field("stream", "h:1", None, '{"t": {"0": 3}}'), None)
    assert [r.kafka for r in stream] == [("h:1", "t")]
    # a pattern read in batch: no topic in its options; a stream of another source: no servers
    assert relation_facts(_field("batch", "h:1", None, None, None), None) == []
    assert relation_facts(_field("stream", None, '{"t": {"0": 3}}', None), None) == []
    assert relation_facts(None, None) == []


def test_a_write_without_a_topic_option_names_nothing() -> None:
    assert [r.kafka for r in write_facts("h:1", "t", None)] == [("h:1", "t")]
    assert write_facts("h:1", None, None) == []
