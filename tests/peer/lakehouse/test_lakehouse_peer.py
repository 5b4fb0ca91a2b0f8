"""openlineage-spark and our capture on Delta Lake and Iceberg jobs: every difference fixed or reviewed.

Each lakehouse job is one test: it fails on any difference that ``known_differences_lakehouse.toml``
does not explain for this Spark line (job, dataset and facet matched), printing both sides.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.peer.conftest import dump
from tests.peer.corpus_lakehouse import BROKEN, LAKE_JOBS
from tests.peer.known import LAKEHOUSE_KNOWN_FILE, explain, load, load_lakehouse
from tests.peer.report import spark_line
from tests.peer.runner import Outcome

#: The first test runs the whole corpus (its fixture): Delta's first writes are slow on a loaded machine.
pytestmark = pytest.mark.timeout(1800)


@pytest.mark.parametrize("name", [job.name for job in LAKE_JOBS])
def test_both_listeners_report_the_same_lakehouse_lineage(
    name: str, corpus_outcomes: dict[str, Outcome], peer_session: Any
) -> None:
    outcome = corpus_outcomes[name]
    line = spark_line(peer_session[0].version)
    if (name, line) in BROKEN:
        assert BROKEN[name, line] in (outcome.error or ""), (
            f"{name} no longer fails so on {line}: re-enable it"
        )
        return
    assert outcome.error is None, f"{name} failed: {outcome.error}"
    assert outcome.jar_event_types, (
        f"openlineage-spark emitted nothing for {name}: the comparison would prove nothing"
    )
    unexplained = [d for d, entry in explain(outcome.differences, load_lakehouse(), line) if not entry]
    assert not unexplained, "\n".join(
        [f"{d.dataset} {d.facet}:\n  ours: {d.ours}\n  jar:  {d.jar}" for d in unexplained] + [dump(outcome)]
    )


def test_every_accepted_lakehouse_difference_is_still_seen(
    corpus_outcomes: dict[str, Outcome], peer_session: Any
) -> None:
    """A reviewed entry that covers nothing any more (the difference was fixed) is removed, not kept."""
    line = spark_line(peer_session[0].version)
    known, own = load_lakehouse(), load(LAKEHOUSE_KNOWN_FILE)
    used = {
        entry for o in corpus_outcomes.values() for _, entry in explain(o.differences, known, line) if entry
    }
    stale = [
        entry
        for entry in own
        if entry not in used and not entry.sometimes and (not entry.lines or line in entry.lines)
    ]
    assert not stale, f"entries of known_differences_lakehouse.toml that explain nothing on {line}: {stale}"
