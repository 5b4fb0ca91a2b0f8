"""The reviewed list of accepted differences from openlineage-spark (``known_differences.toml``).

Each entry names the jobs, datasets and facet it covers (shell patterns), optionally the Spark lines,
and says why: ``kind = "jar-bug"`` (the jar is wrong; ``issue`` gives its number where one exists),
``kind = "our-choice"`` (a deliberate difference docs/comparison.md states) or ``kind = "ours-to-fix"``
(our defect, whose fix belongs to code another change owns: its reason starts "ours, to fix:"). Some
differences are never acceptable, whatever the file says: a dataset the jar reports and we miss, and
column lineage the jar has and we lack; :func:`load` refuses entries that would cover them.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomllib
from tests.peer.comparison import COLUMN_LINEAGE, ON_DISK, Difference

KNOWN_FILE = Path(__file__).with_name("known_differences.toml")
#: The lakehouse corpus's entries (tests/peer/lakehouse): Delta Lake and Iceberg jobs.
LAKEHOUSE_KNOWN_FILE = Path(__file__).with_name("known_differences_lakehouse.toml")
KINDS = ("jar-bug", "our-choice", "ours-to-fix")


@dataclass(frozen=True)
class Known:
    jobs: tuple[str, ...]
    datasets: tuple[str, ...]
    facet: str
    kind: str
    reason: str
    lines: tuple[str, ...] = ()
    issue: int | None = None
    #: seen in some runs only (the jar's output varies): not reported as stale when unused
    sometimes: bool = False

    def covers(self, difference: Difference, line: str) -> bool:
        return (
            difference.facet == self.facet
            and any(fnmatch.fnmatchcase(difference.job, p) for p in self.jobs)
            and any(fnmatch.fnmatchcase(difference.dataset, p) for p in self.datasets)
            and (not self.lines or line in self.lines)
            and not never_acceptable(difference, self.kind)
        )


def never_acceptable(difference: Difference, kind: str = "our-choice") -> bool:
    """What no entry may cover: our file count against the disk; column lineage only the jar has;
    a dataset only the jar reports, unless the jar is wrong to report it (``kind = "jar-bug"``).
    ``kind = "ours-to-fix"`` (our defect, in code another change owns, listed to be fixed after it
    lands) may cover the last two: it says we are wrong, it does not accept it."""
    if difference.facet == ON_DISK:
        return True
    if kind == "ours-to-fix":
        return False
    if difference.facet == "dataset":
        return bool(difference.jar) and not difference.ours and kind != "jar-bug"
    if difference.facet == COLUMN_LINEAGE:
        return difference.ours is None and difference.jar is not None
    return False


def _entry(raw: dict[str, Any], where: str) -> Known:
    missing = {"jobs", "facet", "kind", "reason"} - set(raw)
    if missing:
        raise ValueError(f"{where}: missing {sorted(missing)}")
    if raw["kind"] not in KINDS:
        raise ValueError(f"{where}: kind must be one of {KINDS}, got {raw['kind']!r}")
    if not str(raw["reason"]).strip():
        raise ValueError(f"{where}: an accepted difference needs its reason")
    if raw["kind"] == "ours-to-fix" and not str(raw["reason"]).strip().startswith("ours, to fix:"):
        raise ValueError(f'{where}: an "ours-to-fix" reason starts "ours, to fix:" and says what to fix')
    return Known(
        jobs=tuple(raw["jobs"]),
        datasets=tuple(raw.get("datasets", ["*"])),
        facet=raw["facet"],
        kind=raw["kind"],
        reason=" ".join(str(raw["reason"]).split()),
        lines=tuple(raw.get("lines", ())),
        issue=raw.get("issue"),
        sometimes=bool(raw.get("sometimes", False)),
    )


def load(path: Path = KNOWN_FILE) -> list[Known]:
    data = tomllib.loads(path.read_text())
    return [_entry(raw, f"{path.name} entry {i + 1}") for i, raw in enumerate(data.get("difference", []))]


def load_lakehouse() -> list[Known]:
    """The lakehouse corpus's entries, then the main file's entries for every job (``jobs = ["*"]``:
    what we add on every dataset, e.g. ``storage`` on file datasets), in that order."""
    return load(LAKEHOUSE_KNOWN_FILE) + [entry for entry in load() if entry.jobs == ("*",)]


def explain(
    differences: Iterable[Difference], known: list[Known], line: str
) -> list[tuple[Difference, Known | None]]:
    """Each difference with the first entry that covers it (None: unexplained)."""
    return [(d, next((k for k in known if k.covers(d, line)), None)) for d in differences]
