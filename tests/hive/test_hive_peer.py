"""openlineage-spark and our capture on the same Hive jobs, in the same session: every difference is fixed
or reviewed in ``known_differences_hive.toml`` (same fields and rules as tests/peer/known_differences.toml;
the checks: tests/peer/suite_checks.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hive_jobs import HiveRun
from hive_s3_jobs import EVERY_JOB
from tests.peer.suite_checks import assert_every_entry_seen, assert_explained

KNOWN = Path(__file__).with_name("known_differences_hive.toml")
pytestmark = pytest.mark.timeout(1200)


@pytest.mark.parametrize("name", [job.name for job in EVERY_JOB])
def test_both_listeners_name_the_hive_tables_alike(name: str, hive_run: HiveRun, hive_session: Any) -> None:
    assert_explained(name, hive_run.outcomes[name], KNOWN, hive_session[0].version)


def test_every_accepted_hive_difference_is_still_seen(hive_run: HiveRun, hive_session: Any) -> None:
    assert_every_entry_seen(hive_run.outcomes.values(), KNOWN, hive_session[0].version)
