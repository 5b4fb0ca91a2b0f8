"""openlineage-spark and our capture on the same Kafka jobs, in the same session: every difference is fixed
or reviewed in ``known_differences_kafka.toml`` (same fields and rules as tests/peer/known_differences.toml;
the checks: tests/peer/suite_checks.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kafka_jobs import KAFKA_JOBS
from tests.peer.runner import Outcome
from tests.peer.suite_checks import assert_every_entry_seen, assert_explained

KNOWN = Path(__file__).with_name("known_differences_kafka.toml")
pytestmark = pytest.mark.timeout(1200)


@pytest.mark.parametrize("name", [job.name for job in KAFKA_JOBS])
def test_both_listeners_name_the_kafka_datasets_alike(
    name: str, kafka_run: dict[str, Outcome], kafka_session: Any
) -> None:
    assert_explained(name, kafka_run[name], KNOWN, kafka_session[0].version)


def test_every_accepted_kafka_difference_is_still_seen(
    kafka_run: dict[str, Outcome], kafka_session: Any
) -> None:
    assert_every_entry_seen(kafka_run.values(), KNOWN, kafka_session[0].version)
