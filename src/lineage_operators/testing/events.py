"""Reading OpenLineage events written by the FileTransport and keying them for comparison.

Keys are ``<dag_id>.<task_id>.event.<type>`` for task events and
``<dag_id>.event.<type>`` for DAG events, the layout Airflow's own system tests use,
so expectations read like the DAG.  Events of other producers (child query jobs,
Spark) are keyed by their job name the same way.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from lineage_operators.testing.matchers import parse_iso_datetime

__all__ = [
    "MAX_EVENT_BYTES",
    "Events",
    "event_files",
    "event_key",
    "group_events",
    "load_events",
    "read_event_file",
    "read_event_text",
    "stream_event_file",
]

Event = dict[str, Any]
Events = dict[str, list[Event]]
"""Events keyed by :func:`event_key`, each list in emission order."""


def _airflow_job_name(job: Mapping[str, Any], run_facets: Mapping[str, Any]) -> str | None:
    """The Airflow job name, from the provider's facets rather than by splitting on dots.

    A dag_id may contain dots, so ``job.name`` alone cannot say where the dag_id ends;
    the provider's ``airflowDagRun`` (DAG events) and ``airflow`` (task events) run
    facets carry dag_id and task_id separately.
    """
    dag_run_facet = run_facets.get("airflowDagRun")
    if isinstance(dag_run_facet, Mapping):
        dag_id = (dag_run_facet.get("dag") or {}).get("dag_id") or (dag_run_facet.get("dagRun") or {}).get(
            "dag_id"
        )
        if isinstance(dag_id, str):
            return dag_id
    task_facet = run_facets.get("airflow")
    if isinstance(task_facet, Mapping):
        task = task_facet.get("task") or {}
        dag_id = (task_facet.get("dag") or {}).get("dag_id") or (task_facet.get("dagRun") or {}).get("dag_id")
        task_id = task.get("task_id") if isinstance(task, Mapping) else None
        if isinstance(dag_id, str) and isinstance(task_id, str):
            return f"{dag_id}.{task_id}"
    job_type = (job.get("facets") or {}).get("jobType")
    if isinstance(job_type, Mapping) and job_type.get("jobType") in ("DAG", "TASK"):
        name = job.get("name")
        return name if isinstance(name, str) else None
    return None


def event_key(event: Mapping[str, Any]) -> str:
    """``<dag_id>[.<task_id>].event.<type>`` for a run event (type lower-case).

    Job events are keyed ``<job name>.job_event`` and dataset events
    ``<namespace>:<name>.dataset_event``: the provider emits neither, but a file may hold them.
    """
    job = event.get("job") if isinstance(event.get("job"), Mapping) else None
    run = event.get("run") if isinstance(event.get("run"), Mapping) else None
    if job is None:
        dataset = event.get("dataset") or {}
        return f"{dataset.get('namespace')}:{dataset.get('name')}.dataset_event"
    if run is None:
        return f"{job.get('name')}.job_event"
    run_facets = run.get("facets") or {}
    name = _airflow_job_name(job, run_facets) or str(job.get("name"))
    event_type = str(event.get("eventType") or "other").lower()
    return f"{name}.event.{event_type}"


def _iter_json_values(text: str, origin: str) -> Iterable[Any]:
    """Every JSON value in ``text``: JSON lines, one pretty-printed object, or several in a row.

    The FileTransport writes compact lines, but pretty-prints (indent=2) in debug mode,
    also when appending, so a line-based reader is not enough.
    """
    decoder = json.JSONDecoder()
    pos, end = 0, len(text)
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            return
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            line = text.count("\n", 0, exc.pos) + 1
            raise ValueError(f"{origin}:{line}: not valid JSON: {exc.msg}") from exc
        yield value


def read_event_file(path: str | os.PathLike[str]) -> list[Event]:
    """The events in one file, in file order; a top-level JSON array is flattened."""
    return read_event_text(Path(path).read_text(encoding="utf-8"), os.fspath(path))


def read_event_text(text: str, origin: str) -> list[Event]:
    """The events in a file's text (``origin`` names it in errors)."""
    events: list[Event] = []
    for value in _iter_json_values(text, origin):
        items = value if isinstance(value, list) else [value]
        for item in items:
            if not isinstance(item, dict):
                raise ValueError(f"{origin}: expected JSON objects (events), found {type(item).__name__}")
            events.append(item)
    return events


MAX_EVENT_BYTES = 64 * 1024 * 1024
"""Largest single event :func:`stream_event_file` reads; larger ones are skipped, not loaded."""

SkipReporter = Callable[[str, str], None]
"""Called with (reason, where) for every value a streaming read skips."""

_CHUNK = 1024 * 1024


def _size(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit % (1024 * 1024) == 0 else f"{limit} characters"


def _skip_rest_of_line(stream: Any) -> None:
    while True:
        chunk = stream.readline(_CHUNK)
        if not chunk or chunk.endswith("\n"):
            return


def _pretty_block(stream: Any, first: str, max_bytes: int) -> tuple[str | None, int]:
    """Lines of one pretty-printed value opened by ``first`` (``{`` or ``[`` alone on a line), up to
    the closing bracket at column 0; ``None`` when it exceeds ``max_bytes`` (the rest is consumed)."""
    parts, size, lines = [first], len(first), 0
    closing = "}" if first.strip() == "{" else "]"
    while True:
        line = stream.readline(_CHUNK)
        if not line:
            break
        lines += 1
        if size <= max_bytes:
            parts.append(line)
            size += len(line)
        if line.rstrip() == closing:
            break
    return ("".join(parts) if size <= max_bytes else None), lines


def stream_event_file(
    path: str | os.PathLike[str], on_skip: SkipReporter, *, max_event_bytes: int = MAX_EVENT_BYTES
) -> Iterator[Event]:
    """The events in one file, read a line at a time so memory stays bounded by one event.

    Unlike :func:`read_event_file` it never raises on bad content: malformed JSON, values that
    are not objects and events over ``max_event_bytes`` are reported to ``on_skip`` and skipped.
    Reads JSON lines, pretty-printed objects (debug mode, closing bracket at column 0) and arrays.
    """
    origin = os.fspath(path)
    with open(path, encoding="utf-8", errors="replace") as stream:
        number = 0
        while True:
            line = stream.readline(max_event_bytes + 1)
            if not line:
                return
            number += 1
            where = f"{origin}:{number}"
            too_large = f"event larger than {_size(max_event_bytes)} (not loaded)"
            if len(line) > max_event_bytes and not line.endswith("\n"):
                _skip_rest_of_line(stream)
                on_skip(too_large, where)
                continue
            text = line.strip()
            if not text:
                continue
            if text in ("{", "["):
                block, consumed = _pretty_block(stream, line, max_event_bytes)
                number += consumed
                if block is None:
                    on_skip(too_large, where)
                    continue
                text = block
            try:
                value = json.loads(text)
            except ValueError:
                on_skip("malformed JSON", where)
                continue
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, dict):
                    yield item
                else:
                    on_skip("not a JSON object", where)


def event_files(source: str | os.PathLike[str]) -> list[Path]:
    """The event files FileTransport output at ``source`` consists of (see :func:`load_events`)."""
    return _event_files(Path(source))


def _event_files(source: Path) -> list[Path]:
    """The files holding events for ``source``, whichever way the FileTransport was configured.

    - a file: ``append: true`` output (or any single file);
    - a directory: every ``*.json`` / ``*.jsonl`` file in it;
    - neither: ``source`` is the configured ``log_file_path`` with ``append: false``, where the
      transport writes ``<log_file_path>-<YYYYmmdd-HHMMSS.ffffff>.json`` (debug mode adds
      ``-<job>-<type>``) next to it.
    Names sort chronologically for the last two, so name order is emission order.
    """
    files: list[Path] = []
    if source.is_dir():
        files.extend(sorted(p for p in source.iterdir() if p.is_file() and p.suffix in (".json", ".jsonl")))
        return files
    if source.is_file():
        files.append(source)
    if source.parent.is_dir():
        files.extend(sorted(source.parent.glob(f"{source.name}-*.json")))
    return files


def _sort_key(indexed: tuple[int, Event]) -> tuple[int, Any, int]:
    index, event = indexed
    raw = event.get("eventTime")
    parsed = parse_iso_datetime(raw) if isinstance(raw, str) else None
    if parsed is None:
        return (1, 0, index)
    if parsed.tzinfo is None:  # naive times are taken as UTC so they compare with aware ones
        parsed = parsed.replace(tzinfo=_dt.timezone.utc)
    return (0, parsed.timestamp(), index)


def group_events(events: Iterable[Mapping[str, Any]]) -> Events:
    """Key events by :func:`event_key`, ordered by eventTime, ties in the given order."""
    ordered = sorted(enumerate(dict(e) for e in events), key=_sort_key)
    grouped: Events = {}
    for _, event in ordered:
        grouped.setdefault(event_key(event), []).append(event)
    return grouped


def load_events(
    source: str | os.PathLike[str] | Iterable[Mapping[str, Any]], *, missing_ok: bool = False
) -> Events:
    """Read FileTransport output (or take event dicts) and key the events by :func:`event_key`.

    ``source`` is the transport's ``log_file_path`` (either ``append`` mode), a directory of
    event files, or an iterable of event dicts.  Events are ordered by ``eventTime`` then by
    file order, because separate processes (task fork, DAG executor) write them.
    With ``missing_ok`` a source with no files yields ``{}`` instead of ``FileNotFoundError``.
    """
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        files = _event_files(path)
        if not files:
            if missing_ok:
                return {}
            raise FileNotFoundError(f"no OpenLineage event files at {path} (nor {path}-*.json)")
        events: list[Event] = []
        for file in files:
            events.extend(read_event_file(file))
        return group_events(events)
    if isinstance(source, Mapping):
        raise TypeError("load_events takes a path or an iterable of events, not a mapping")
    return group_events(source)
