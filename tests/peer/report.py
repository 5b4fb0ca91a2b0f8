"""The peer comparison report: every difference, job by job, with the reviewed reason or "unexplained".

Written by ``make peer`` as ``peer-<line>.md`` and ``peer-<line>.json`` (job, dataset, facet, ours,
the jar's, and the accepted reason if any).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.peer.known import Known, explain, load
from tests.peer.runner import Outcome


def spark_line(version: str) -> str:
    return ".".join(version.split(".")[:2])


def rows(outcomes: dict[str, Outcome], line: str, known: list[Known] | None = None) -> list[dict[str, Any]]:
    known = load() if known is None else known
    found = []
    for outcome in outcomes.values():
        for difference, entry in explain(outcome.differences, known, line):
            row = difference.as_dict()
            row["accepted"] = (
                None if entry is None else {"kind": entry.kind, "reason": entry.reason, "issue": entry.issue}
            )
            found.append(row)
    return found


def _cell(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    return text.replace("|", "\\|")


def markdown(outcomes: dict[str, Outcome], version: str, found: list[dict[str, Any]]) -> str:
    unexplained = [r for r in found if r["accepted"] is None]
    same = [name for name, o in outcomes.items() if not o.differences]
    lines = [
        f"# openlineage-spark beside lineage-operators, Spark {version}",
        "",
        f"{len(outcomes)} jobs; {len(same)} identical in every compared facet; "
        f"{len(found) - len(unexplained)} accepted differences; **{len(unexplained)} unexplained**.",
        "",
        "| job | dataset | facet | ours | openlineage-spark | accepted because |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in found:
        accepted = row["accepted"]
        why = "**unexplained**" if accepted is None else f"{accepted['kind']}: {accepted['reason']}"
        lines.append(
            f"| {row['job']} | {row['dataset']} | {row['facet']} "
            f"| {_cell(row['ours'])} | {_cell(row['jar'])} | {why} |"
        )
    lines += ["", "Jobs identical on both sides: " + ", ".join(sorted(same)), ""]
    return "\n".join(lines)


def write_report(
    directory: Path,
    outcomes: dict[str, Outcome],
    version: str,
    prefix: str = "peer",
    known: list[Known] | None = None,
) -> list[dict[str, Any]]:
    """``<prefix>-<line>.md`` and ``.json`` in ``directory`` (the lakehouse corpus: ``peer-lakehouse``,
    explained by its own ``known`` entries)."""
    line = spark_line(version)
    found = rows(outcomes, line, known)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{prefix}-{line}.md").write_text(markdown(outcomes, version, found))
    (directory / f"{prefix}-{line}.json").write_text(
        json.dumps(
            {"spark": version, "jobs": len(outcomes), "differences": found},
            indent=1,
            sort_keys=True,
            default=str,
        )
    )
    return found
