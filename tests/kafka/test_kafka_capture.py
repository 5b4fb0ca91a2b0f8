"""Our capture beside a real Kafka broker: every job names exactly the datasets openlineage-spark's rule
gives (``kafka://<first bootstrap server>`` + topic, files by their path), with their key facets.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from kafka_jobs import KAFKA_JOBS, KafkaWorkspace, expected
from tests.peer.runner import Outcome

#: The first test runs the whole Kafka corpus (its fixture): streams start slowly on 2 cores.
pytestmark = pytest.mark.timeout(1200)

#: The columns of every Kafka read (Spark's fixed source schema).
KAFKA_COLUMNS = ["key", "value", "topic", "partition", "offset", "timestamp", "timestampType"]


@pytest.mark.parametrize("name", [job.name for job in KAFKA_JOBS])
def test_kafka_datasets_are_named_as_openlineage_spark_names_them(
    name: str, kafka_run: dict[str, Outcome], kafka_session: tuple[Any, Any, KafkaWorkspace]
) -> None:
    outcome = kafka_run[name]
    assert outcome.error is None, f"{name} failed: {outcome.error}"
    wanted = expected(kafka_session[2], kafka_session[0])[name]
    assert sorted(outcome.ours) == sorted(wanted), json.dumps(outcome.ours, indent=1, default=str)
    for key, facets in wanted.items():
        view = outcome.ours[key]
        direction, _, dataset = key.partition(" ")
        namespace = dataset.rpartition(":")[0]
        assert view["dataSource"] == {"name": namespace, "uri": namespace}, key
        assert view.get("schema"), f"{key} has no schema"
        if namespace.startswith("kafka://") or facets["storage"] is None:
            assert "storage" not in view, key
        else:
            assert view["storage"] == {"storageLayer": "file", "fileFormat": facets["storage"]}, key
        if direction == "input" and namespace.startswith("kafka://"):
            assert [f["name"] for f in view["schema"]] == KAFKA_COLUMNS, key
        if direction == "output":
            lifecycle = facets.get("lifecycle")
            state = {"lifecycleStateChange": lifecycle} if lifecycle else None
            assert view.get("lifecycleStateChange") == state, key


def test_a_kafka_write_is_named_by_its_topic_with_the_written_columns(kafka_run: dict[str, Outcome]) -> None:
    outputs = [view for key, view in kafka_run["kafka_batch_write"].ours.items() if key.startswith("output")]
    assert [[f["name"] for f in view["schema"]] for view in outputs] == [["key", "value"]]
