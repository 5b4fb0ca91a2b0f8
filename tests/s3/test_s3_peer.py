"""openlineage-spark and our capture on the same S3 jobs, in the same session: every difference is fixed
or reviewed in ``known_differences_s3.toml`` (same fields and rules as tests/peer/known_differences.toml).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from s3_jobs import S3_JOBS, S3Run
from tests.peer.conftest import dump
from tests.peer.known import explain, load
from tests.peer.report import spark_line

KNOWN_S3 = Path(__file__).with_name("known_differences_s3.toml")
pytestmark = pytest.mark.timeout(1200)


def _known() -> list[Any]:
    """This file's entries, then the main peer file's entries for every job (``jobs = ["*"]``)."""
    return load(KNOWN_S3) + [entry for entry in load() if entry.jobs == ("*",)]


@pytest.mark.parametrize("name", [job.name for job in S3_JOBS])
def test_both_listeners_name_the_s3_datasets_alike(name: str, s3_run: S3Run, s3_session: Any) -> None:
    outcome = s3_run.outcomes[name]
    assert outcome.error is None, f"{name} failed: {outcome.error}"
    assert outcome.jar_event_types, (
        f"openlineage-spark emitted nothing for {name}: the comparison proves nothing"
    )
    line = spark_line(s3_session[0].version)
    unexplained = [d for d, entry in explain(outcome.differences, _known(), line) if entry is None]
    assert not unexplained, "\n".join(
        [f"{d.dataset} {d.facet}:\n  ours: {d.ours}\n  jar:  {d.jar}" for d in unexplained] + [dump(outcome)]
    )


def test_every_accepted_s3_difference_is_still_seen(s3_run: S3Run, s3_session: Any) -> None:
    """A reviewed entry that covers nothing any more (the difference was fixed) is removed, not kept."""
    line = spark_line(s3_session[0].version)
    known, own = _known(), load(KNOWN_S3)
    used = {
        entry for o in s3_run.outcomes.values() for _, entry in explain(o.differences, known, line) if entry
    }
    stale = [e for e in own if e not in used and not e.sometimes and (not e.lines or line in e.lines)]
    assert not stale, f"entries of known_differences_s3.toml that explain nothing on {line}: {stale}"
