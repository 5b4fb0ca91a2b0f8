"""openlineage-spark and our capture on Delta Lake and Iceberg jobs: every difference fixed or reviewed.

Each lakehouse job, local or on S3 (tests/peer/corpus_lakehouse_s3.py), is one test: it fails on any
difference that ``known_differences_lakehouse.toml`` does not explain for this Spark line (job, dataset
and facet matched), printing both sides.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.peer.conftest import dump
from tests.peer.corpus_lakehouse import BROKEN, LAKE_JOBS
from tests.peer.corpus_lakehouse_s3 import LAKE_S3_JOBS
from tests.peer.known import LAKEHOUSE_KNOWN_FILE, explain, load, load_lakehouse
from tests.peer.report import spark_line
from tests.peer.runner import Outcome

#: The first test runs the whole corpus (its fixture): Delta's first writes are slow on a loaded machine.
pytestmark = pytest.mark.timeout(1800)
#: The corpus's Delta MERGE jobs (SQL, Delta's own API, SQL into a path on S3): their reviewed column-lineage
#: difference, exactly.
DELTA_MERGES = ("delta_merge_sql", "delta_table_merge_api", "s3_delta_path_merge")


@pytest.mark.parametrize("name", [job.name for job in (*LAKE_JOBS, *LAKE_S3_JOBS)])
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


def _inputs(facet: dict[str, Any], column: str | None) -> set[tuple[str, str, tuple[Any, ...]]]:
    entries = facet.get("dataset", []) if column is None else facet["fields"].get(column, [])
    return {(e["dataset"], e["field"], tuple(map(tuple, e["transformations"]))) for e in entries}


@pytest.mark.parametrize("name", DELTA_MERGES)
def test_a_delta_merge_adds_to_the_jars_column_lineage_only_the_rows_no_clause_touches(
    name: str, corpus_outcomes: dict[str, Outcome], peer_session: Any
) -> None:
    """Issue 49, reviewed (docs/comparison.md): the jar takes a Delta MERGE's column lineage from its WHEN
    clauses' actions alone; the target rows no clause matches are written back as they were, so ours also
    gives every column its own target column (IDENTITY), and the merge condition as dataset-wide JOIN. Both
    sides agree on everything else, which the columnLineage entry of the reviewed list cannot say alone."""
    if (name, spark_line(peer_session[0].version)) in BROKEN:
        pytest.skip(f"{name} cannot run on this line (BROKEN)")
    outcome = corpus_outcomes[name]
    (key,) = [k for k in outcome.ours if k.startswith("output ")]
    target = key.removeprefix("output ")
    (source,) = {k.removeprefix("input ") for k in outcome.ours if k.startswith("input ")} - {target}
    ours, jar = outcome.ours[key]["columnLineage"], outcome.jar[key]["columnLineage"]
    identity = (("DIRECT", "IDENTITY", False),)
    assert set(ours["fields"]) == set(jar["fields"])
    for column in ours["fields"]:
        assert _inputs(ours, column) == _inputs(jar, column) | {(target, column, identity)}, column
    assert _inputs(ours, None) == {
        (table, "id", (("INDIRECT", "JOIN", False),)) for table in (target, source)
    }
    assert not _inputs(jar, None)
