"""openlineage-spark and our capture on the same Hive jobs, in the same session: every difference is fixed
or reviewed in ``known_differences_hive.toml`` (same fields and rules as tests/peer/known_differences.toml).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hive_jobs import HiveRun
from hive_s3_jobs import EVERY_JOB
from tests.peer.conftest import dump
from tests.peer.known import explain, load
from tests.peer.report import spark_line

KNOWN_HIVE = Path(__file__).with_name("known_differences_hive.toml")
pytestmark = pytest.mark.timeout(1200)


def _known() -> list[Any]:
    """This file's entries, then the main peer file's entries for every job (``jobs = ["*"]``)."""
    return load(KNOWN_HIVE) + [entry for entry in load() if entry.jobs == ("*",)]


@pytest.mark.parametrize("name", [job.name for job in EVERY_JOB])
def test_both_listeners_name_the_hive_tables_alike(name: str, hive_run: HiveRun, hive_session: Any) -> None:
    outcome = hive_run.outcomes[name]
    assert outcome.error is None, f"{name} failed: {outcome.error}"
    assert outcome.jar_event_types, (
        f"openlineage-spark emitted nothing for {name}: the comparison proves nothing"
    )
    line = spark_line(hive_session[0].version)
    unexplained = [d for d, entry in explain(outcome.differences, _known(), line) if entry is None]
    assert not unexplained, "\n".join(
        [f"{d.dataset} {d.facet}:\n  ours: {d.ours}\n  jar:  {d.jar}" for d in unexplained] + [dump(outcome)]
    )


def test_every_accepted_hive_difference_is_still_seen(hive_run: HiveRun, hive_session: Any) -> None:
    """A reviewed entry that covers nothing any more (the difference was fixed) is removed, not kept."""
    line = spark_line(hive_session[0].version)
    known, own = _known(), load(KNOWN_HIVE)
    used = {
        entry for o in hive_run.outcomes.values() for _, entry in explain(o.differences, known, line) if entry
    }
    stale = [e for e in own if e not in used and not e.sometimes and (not e.lines or line in e.lines)]
    assert not stale, f"entries of known_differences_hive.toml that explain nothing on {line}: {stale}"
