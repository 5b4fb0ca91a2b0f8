"""openlineage-spark and our capture on the same S3 jobs, in the same session: every difference is fixed
or reviewed in ``known_differences_s3.toml`` (same fields and rules as tests/peer/known_differences.toml;
the checks: tests/peer/suite_checks.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from s3_jobs import S3_JOBS, S3Run
from tests.peer.suite_checks import assert_every_entry_seen, assert_explained

KNOWN = Path(__file__).with_name("known_differences_s3.toml")
pytestmark = pytest.mark.timeout(1200)


@pytest.mark.parametrize("name", [job.name for job in S3_JOBS])
def test_both_listeners_name_the_s3_datasets_alike(name: str, s3_run: S3Run, s3_session: Any) -> None:
    assert_explained(name, s3_run.outcomes[name], KNOWN, s3_session[0].version)


def test_every_accepted_s3_difference_is_still_seen(s3_run: S3Run, s3_session: Any) -> None:
    assert_every_entry_seen(s3_run.outcomes.values(), KNOWN, s3_session[0].version)
