"""The two checks every suite of jobs beside openlineage-spark makes against its own reviewed list
(tests/s3, tests/hive, tests/kafka): each job's differences are all explained, and each entry of the
list still explains something on this line. The list's entries come first, then the main peer file's
entries for every job (``jobs = ["*"]``)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tests.peer.conftest import dump
from tests.peer.known import explain, load
from tests.peer.report import spark_line


def known(own_file: Path) -> list[Any]:
    return load(own_file) + [entry for entry in load() if entry.jobs == ("*",)]


def assert_explained(name: str, outcome: Any, own_file: Path, spark_version: str) -> None:
    """The job ran, the jar emitted, and every difference is fixed or reviewed in ``own_file``."""
    assert outcome.error is None, f"{name} failed: {outcome.error}"
    assert outcome.jar_event_types, (
        f"openlineage-spark emitted nothing for {name}: the comparison proves nothing"
    )
    line = spark_line(spark_version)
    unexplained = [d for d, entry in explain(outcome.differences, known(own_file), line) if entry is None]
    assert not unexplained, "\n".join(
        [f"{d.dataset} {d.facet}:\n  ours: {d.ours}\n  jar:  {d.jar}" for d in unexplained] + [dump(outcome)]
    )


def assert_every_entry_seen(outcomes: Iterable[Any], own_file: Path, spark_version: str) -> None:
    """A reviewed entry that covers nothing any more (the difference was fixed) is removed, not kept."""
    line = spark_line(spark_version)
    entries = known(own_file)
    used = {entry for o in outcomes for _, entry in explain(o.differences, entries, line) if entry}
    own = load(own_file)
    stale = [e for e in own if e not in used and not e.sometimes and (not e.lines or line in e.lines)]
    assert not stale, f"entries of {own_file.name} that explain nothing on {line}: {stale}"
