"""openlineage-spark's events for one job of the corpus, read from its file transport.

The jar writes one JSON event per line to the file named by ``spark.openlineage.transport.location``.
The harness remembers the file's length before a job and reads what was appended after Spark's
listener bus is empty (the jar emits from the bus's thread), so each job gets exactly its own events.
The application's own START and COMPLETE (job type ``APPLICATION``) carry no dataset and are left out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class PeerEvents:
    """The jar's events of one job, in the order it wrote them."""

    events: list[dict[str, Any]] = field(default_factory=list)

    def datasets(self, direction: str) -> list[dict[str, Any]]:
        """Every ``inputs`` or ``outputs`` record of every event, in order (the union over actions).

        A later action's facet wins, statistics too: the jar reports a write's ``outputStatistics``
        per action, where we report the task's (a task appending twice wrote both appends); such
        jobs are listed in ``known_differences.toml``. Summing the jar's runs is no answer: a CTAS
        is two runs (the command and its nested insert) reporting the same write.
        """
        return [dataset for event in self.events for dataset in event.get(direction) or []]

    def job_facets(self) -> dict[str, Any]:
        """The ``sql`` job facet and the ``processing_engine`` run facet, the last one seen of each."""
        facets: dict[str, Any] = {}
        for event in self.events:
            if "sql" in event["job"].get("facets", {}):
                facets["sql"] = event["job"]["facets"]["sql"]
            if "processing_engine" in event["run"].get("facets", {}):
                facets["processing_engine"] = event["run"]["facets"]["processing_engine"]
        return facets

    def event_types(self) -> list[str]:
        return [event.get("eventType", "") for event in self.events]

    def parent_runs(self) -> set[tuple[str, str, str]]:
        """(namespace, job name, run id) of every parent facet, as the jar nests its runs."""
        parents = set()
        for event in self.events:
            parent = event["run"].get("facets", {}).get("parent")
            if parent:
                parents.add((parent["job"]["namespace"], parent["job"]["name"], parent["run"]["runId"]))
        return parents


def is_application_event(event: Mapping[str, Any]) -> bool:
    job_type = (event.get("job", {}).get("facets", {}).get("jobType") or {}).get("jobType")
    return job_type == "APPLICATION"


def parse_lines(lines: Iterable[str]) -> PeerEvents:
    events = [json.loads(line) for line in lines if line.strip()]
    return PeerEvents([event for event in events if not is_application_event(event)])


class EventFile:
    """The jar's transport file, read a job at a time from where the last job ended."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def mark(self) -> None:
        """Forget what was written so far (the corpus's setup, an earlier job)."""
        self.offset = self.path.stat().st_size if self.path.exists() else 0

    def take(self) -> PeerEvents:
        """The events appended since the last mark or take, complete lines only."""
        if not self.path.exists():
            return PeerEvents()
        with self.path.open("rb") as stream:
            stream.seek(self.offset)
            data = stream.read()
        complete = data[: data.rfind(b"\n") + 1]
        self.offset += len(complete)
        return parse_lines(complete.decode("utf-8").splitlines())
