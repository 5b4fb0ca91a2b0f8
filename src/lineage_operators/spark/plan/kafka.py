"""Kafka topics as datasets: what Spark's Kafka source and sink (the ``spark-sql-kafka-0-10`` connector)
read and write, named as openlineage-spark names them (:func:`lineage_operators.naming.name_kafka`:
``kafka://<first bootstrap server>`` and the topic).

Where the connector keeps what names a topic, and why it is read the way it is:

* a batch read is a ``LogicalRelation`` over a ``KafkaRelation``: its options (servers, ``subscribe``,
  ``assign``) are a private field, ``sourceOptions``, so the leaf record reads it by reflection
  (commons-lang3's ``FieldUtils``, on every Spark line's classpath). A ``subscribePattern`` read names
  no topic there: nothing is reported (the topics it matched are not in the plan).
* a streaming read is a micro-batch's stream relation over a ``KafkaMicroBatchStream``
  (``StreamingDataSourceV2ScanRelation`` from Spark 4, ``StreamingDataSourceV2Relation`` before): the servers
  are in the stream's consumer parameters (private ``executorKafkaParams``), the topics in the
  micro-batch's start offset (``{"topic": {"partition": offset}}``): the topics a pattern matched, too.
* a batch write is a ``SaveIntoDataSourceCommand`` (command_table.py): its ``topic`` option; rows that
  carry their own ``topic`` column name no dataset.

Nothing here runs when the connector is not on the classpath (:func:`leaf_field` is a constant then).
"""

from __future__ import annotations

import json
from typing import Any

from lineage_operators._logging import get_logger
from lineage_operators.spark.facts import RelationFacts
from lineage_operators.spark.jvm.spark_classes import CI_MAP, LR
from lineage_operators.spark.jvm.text import NONE, SEP3
from lineage_operators.spark.plan.records import field_at, sub_fields

log = get_logger(__name__)

KAFKA_RELATION = "org.apache.spark.sql.kafka010.KafkaRelation"
KAFKA_STREAM = "org.apache.spark.sql.kafka010.KafkaMicroBatchStream"
KAFKA_PROVIDER = "org.apache.spark.sql.kafka010.KafkaSourceProvider"
_V2 = "org.apache.spark.sql.execution.datasources.v2"
#: A micro-batch's relation over a stream, with the stream and the batch's offsets: Spark 4 adds a scan
#: relation for it (its ``StreamingDataSourceV2Relation`` then holds neither), Spark 3.5 has the relation.
STREAM_RELATIONS = (f"{_V2}.StreamingDataSourceV2ScanRelation", f"{_V2}.StreamingDataSourceV2Relation")
_OFFSET = "org.apache.spark.sql.connector.read.streaming.Offset"
_FIELD_UTILS = "org.apache.commons.lang3.reflect.FieldUtils"
#: The options of a batch read that name its servers and topics, in the record's order.
_BATCH_OPTIONS = ("kafka.bootstrap.servers", "subscribe", "topic", "assign")
_BATCH, _STREAM = "batch", "stream"


def _private(t: Any, name: str) -> Any:
    """A handle reading the private field ``name`` of its argument."""
    params = ["java.lang.Object", "java.lang.String", "boolean"]
    return t.static(_FIELD_UTILS, "readDeclaredField", params, name, True)


def leaf_field(t: Any) -> Any:
    """A leaf-record field: a Kafka batch relation as ``batch`` + :data:`_BATCH_OPTIONS`, a stream
    relation as ``stream`` + its Kafka servers (:data:`NONE` for another source) + its start and end
    offsets' JSON, joined with :data:`SEP3`; :data:`NONE` for every other leaf or without the connector."""
    if not t.has_class(KAFKA_RELATION):
        return t.constant(NONE)
    try:
        options = _private(t, "sourceOptions")

        def option(key: str) -> Any:
            return t.opt(t.chain(options, (CI_MAP, "get", ("java.lang.String", key))))

        batch = t.record([t.constant(_BATCH), *(option(key) for key in _BATCH_OPTIONS)], SEP3)
        relation = (LR, "relation")
        streams = _stream_records(t)
    except Exception as exc:  # a connector whose classes differ: every other leaf is read as before
        log.debug("lineage capture: Kafka relations are not read: %s", exc)
        return t.constant(NONE)
    otherwise = None
    for cls, stream in streams:
        otherwise = t.when(cls, stream, otherwise)
    return t.when(
        LR,
        t.chain(relation, t.when(KAFKA_RELATION, batch)),
        otherwise,
    )


def _stream_records(t: Any) -> list[tuple[str, Any]]:
    """(class, its record handle) of each stream relation of :data:`STREAM_RELATIONS` that holds the stream
    and its offsets on this Spark line."""
    kafka_servers = t.when(
        KAFKA_STREAM,
        t.chain(
            _private(t, "executorKafkaParams"),
            ("java.util.Map", "get", ("java.lang.Object", "bootstrap.servers")),
        ),
    )
    found = []
    for cls in STREAM_RELATIONS:
        if not t.has_class(cls):
            continue
        try:
            servers = t.chain((cls, "stream"), kafka_servers)
            offsets = [
                t.option_map(t.step(cls, getter), t.step(_OFFSET, "json"))
                for getter in ("startOffset", "endOffset")
            ]
        except Exception:  # this line's class of that name holds no stream (Spark 4's relation)
            continue
        found.append((cls, t.record([t.constant(_STREAM), servers, *offsets], SEP3)))
    return found


def topics_of_options(subscribe: str | None, topic: str | None, assign: str | None) -> list[str]:
    """The topics a batch read's options name: ``subscribe`` (a comma-separated list), ``topic``,
    and the keys of ``assign`` (``{"topicA": [0, 1]}``); in that order, each once."""
    found = [name.strip() for name in (subscribe or "").split(",")]
    found.append((topic or "").strip())
    if assign:
        try:
            parsed = json.loads(assign)
        except ValueError:
            parsed = {}
        if isinstance(parsed, dict):
            found.extend(str(name) for name in parsed)
    return [name for name in dict.fromkeys(found) if name]


def topics_of_offset(offset_json: str | None) -> list[str]:
    """The topics of a Kafka source offset's JSON (``{"topic": {"0": 23}}``), sorted."""
    if not offset_json:
        return []
    try:
        parsed = json.loads(offset_json)
    except ValueError:
        return []
    return sorted(str(name) for name in parsed) if isinstance(parsed, dict) else []


def relation_facts(field: str | None, schema: str | None) -> list[RelationFacts]:
    """The topics a leaf's Kafka field (:func:`leaf_field`) stands for, each a dataset."""
    values = sub_fields(field, SEP3)
    kind, servers = field_at(values, 0), field_at(values, 1)
    if not servers:
        return []
    if kind == _BATCH:
        topics = topics_of_options(field_at(values, 2), field_at(values, 3), field_at(values, 4))
    elif kind == _STREAM:
        topics = topics_of_offset(field_at(values, 2)) or topics_of_offset(field_at(values, 3))
    else:
        return []
    return [RelationFacts(kafka=(servers, topic), schema_text=schema) for topic in topics]


def write_facts(servers: str | None, topic: str | None, schema: str | None) -> list[RelationFacts]:
    """A batch write's topic (its ``topic`` option); none when each row names its own topic."""
    if not servers or not topic:
        log.info("lineage capture: a Kafka write without a `topic` option names no dataset")
        return []
    return [RelationFacts(kafka=(servers, topic), schema_text=schema)]
