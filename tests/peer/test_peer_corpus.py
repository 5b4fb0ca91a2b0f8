"""openlineage-spark and our capture on the same jobs: every difference is fixed or reviewed.

Each corpus job is one test: it fails on any difference that ``known_differences.toml`` does not
explain for this Spark line, printing both sides.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.peer.conftest import dump
from tests.peer.corpus import JOBS
from tests.peer.known import explain, load
from tests.peer.report import spark_line
from tests.peer.runner import Outcome


@pytest.mark.parametrize("name", [job.name for job in JOBS])
def test_both_listeners_report_the_same_lineage(
    name: str, corpus_outcomes: dict[str, Outcome], peer_session: Any
) -> None:
    outcome = corpus_outcomes[name]
    assert outcome.jar_event_types, (
        f"openlineage-spark emitted nothing for {name}: the comparison would prove nothing"
    )
    line = spark_line(peer_session[0].version)
    unexplained = [d for d, entry in explain(outcome.differences, load(), line) if entry is None]
    assert not unexplained, "\n".join(
        [f"{d.dataset} {d.facet}:\n  ours: {d.ours}\n  jar:  {d.jar}" for d in unexplained] + [dump(outcome)]
    )


def test_every_accepted_difference_is_still_seen(
    corpus_outcomes: dict[str, Outcome], peer_session: Any
) -> None:
    """A reviewed entry that covers nothing any more (the difference was fixed) is removed, not kept."""
    line = spark_line(peer_session[0].version)
    known = load()
    used = {
        id(entry)
        for o in corpus_outcomes.values()
        for _, entry in explain(o.differences, known, line)
        if entry
    }
    stale = [entry for entry in known if id(entry) not in used and (not entry.lines or line in entry.lines)]
    assert not stale, f"entries of known_differences.toml that explain nothing on {line}: {stale}"
