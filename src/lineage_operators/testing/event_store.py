"""Where the events of a live DAG run wait for its assertion task: one JSON-lines file per DAG run.

Every process of a deployment (the scheduler emitting DAG events, each task's process) sends its
events through :class:`~lineage_operators.testing.store_transport.EventStoreTransport`, which hands
them to an :class:`EventStore` on a directory all of them can read and write. An event is kept only
when an assertion task asked for its DAG's events:

- a process that parsed a DAG file holding an assertion task knows it (the operator registers its
  DAG id when the file is parsed: :func:`request_events`); that is every task process of the DAG;
- the scheduler, which emits DAG events without parsing DAG files, reads it from the DAG START
  event itself: the provider lists every task's operator class in its ``airflow`` job facet.

Files are keyed by ``(dag_id, run_id)`` from the provider's ``airflow``/``airflowDagRun`` run
facets, so two runs of one DAG never mix; the DAG run's final event (COMPLETE/FAIL) deletes its
file, so nothing outlives the run that asked for it. Events without those facets (child jobs other
integrations emit on their own) are not kept. The scheduler knows the operator by its class path, so
for a subclass of it the DAG START event is not kept. Nothing here imports OpenLineage or Airflow.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lineage_operators.testing.events import Events, group_events, read_event_text

__all__ = [
    "ASSERTION_OPERATORS",
    "EventStore",
    "RunRef",
    "asks_for_events",
    "is_final_dag_event",
    "request_events",
    "requested_dag_ids",
    "run_of",
]

ASSERTION_OPERATORS = frozenset({"lineage_operators.testing.assertion.AssertLineageOperator"})
"""Operator class paths whose presence in a DAG START event's task list asks for the run's events."""

_FINAL_DAG_EVENTS = frozenset({"COMPLETE", "FAIL", "ABORT"})
_requested: set[str] = set()


def request_events(dag_id: str) -> None:
    """Called when a DAG with an assertion task is parsed: keep this DAG's events in this process."""
    _requested.add(dag_id)


def requested_dag_ids() -> frozenset[str]:
    return frozenset(_requested)


@dataclass(frozen=True)
class RunRef:
    """The Airflow DAG run an event belongs to, and whether it is the DAG's own event."""

    dag_id: str
    run_id: str
    dag_event: bool


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def run_of(event: Mapping[str, Any]) -> RunRef | None:
    """The DAG run of a provider event (DAG or task event), from its Airflow run facets; else None."""
    facets = _mapping(_mapping(event.get("run")).get("facets"))
    for facet_name, dag_event in (("airflowDagRun", True), ("airflow", False)):
        facet = _mapping(facets.get(facet_name))
        dag_run = _mapping(facet.get("dagRun"))
        dag_id = _mapping(facet.get("dag")).get("dag_id") or dag_run.get("dag_id")
        run_id = dag_run.get("run_id")
        if isinstance(dag_id, str) and isinstance(run_id, str) and dag_id and run_id:
            return RunRef(dag_id, run_id, dag_event)
    return None


def _lists_assertion_task(event: Mapping[str, Any]) -> bool:
    tasks = _mapping(_mapping(_mapping(_mapping(event.get("job")).get("facets")).get("airflow")).get("tasks"))
    return any(_mapping(task).get("operator") in ASSERTION_OPERATORS for task in tasks.values())


def asks_for_events(event: Mapping[str, Any], ref: RunRef) -> bool:
    """Whether an assertion task asked for this event's DAG run (see the module docstring)."""
    return ref.dag_id in _requested or (ref.dag_event and _lists_assertion_task(event))


def is_final_dag_event(event: Mapping[str, Any], ref: RunRef) -> bool:
    return ref.dag_event and str(event.get("eventType", "")).upper() in _FINAL_DAG_EVENTS


def _name(text: str) -> str:
    """A file name for a DAG or run id (run ids hold ``:`` and ``+``)."""
    return quote(text, safe="")


def _lock(fd: int, *, shared: bool) -> None:
    """Advisory lock released when ``fd`` closes; without flock (Windows, some network filesystems)
    writers still append whole lines with one ``write`` each."""
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
    except (ImportError, OSError):
        pass


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[int]:
    """An append-only descriptor holding an exclusive lock, so lines of concurrent writers never mix."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        _lock(fd, shared=False)
        yield fd
    finally:
        os.close(fd)


class EventStore:
    """A directory of ``<dag_id>/<run_id>.jsonl`` files, one per live DAG run that asked for events."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def path_for(self, dag_id: str, run_id: str) -> Path:
        return self.directory / _name(dag_id) / f"{_name(run_id)}.jsonl"

    def handle(self, event: Mapping[str, Any]) -> bool:
        """Keep or drop one event (a final DAG event deletes its run's file); True when kept."""
        ref = run_of(event)
        if ref is None:
            return False
        if is_final_dag_event(event, ref):
            self.discard(ref.dag_id, ref.run_id)
            return False
        if not asks_for_events(event, ref):
            return False
        self.add(ref.dag_id, ref.run_id, event)
        return True

    def add(self, dag_id: str, run_id: str, event: Mapping[str, Any]) -> None:
        path = self.path_for(dag_id, run_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        line = (json.dumps(event, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
        with _locked(path) as fd:
            os.write(fd, line)

    def events(self, dag_id: str, run_id: str) -> Events:
        """The run's events so far, keyed like :func:`~lineage_operators.testing.events.load_events`."""
        path = self.path_for(dag_id, run_id)
        if not path.is_file():
            return {}
        with open(path, encoding="utf-8") as stream:
            _lock(stream.fileno(), shared=True)  # a writer's line is never read half-written
            text = stream.read()
        return group_events(read_event_text(text, str(path)))

    def discard(self, dag_id: str, run_id: str) -> None:
        path = self.path_for(dag_id, run_id)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        with contextlib.suppress(OSError):  # only when no other run of the DAG is live
            path.parent.rmdir()
