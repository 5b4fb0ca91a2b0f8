"""Turning command-line sources (event files, folders, golden files, a Marquez URL) into a stream of events.

Bad content never raises: every skipped value is counted by reason in a :class:`Skips`, which
the commands print, so a user sees what was left out and why.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lineage_operators.testing.backend import BackendError, MarquezSource, in_namespace, is_backend_url
from lineage_operators.testing.events import event_files, stream_event_file

__all__ = ["GOLDEN_PRODUCER", "Skips", "SourceError", "golden_events", "is_golden_file", "read_sources"]

GOLDEN_PRODUCER = "lineage-operators golden file"
_KEY_SUFFIX = re.compile(r"\.(event\.[a-z_]+|job_event|dataset_event)$")
_GOLDEN_KEY = re.compile(r"^.+" + _KEY_SUFFIX.pattern)
_DAG_JOB_TYPE = {"integration": "AIRFLOW", "jobType": "DAG", "processingType": "BATCH"}
_GOLDEN_MAX_BYTES = 32 * 1024 * 1024
#: A golden file keeps no event times and lists its keys sorted (``.event.complete`` before
#: ``.event.start``): its events are read in the order a run emits them, so the latest is the last.
_LIFECYCLE_ORDER = {"START": 0, "RUNNING": 1}


class SourceError(Exception):
    """A source named on the command line cannot be read at all (missing, unreadable)."""


@dataclass
class Skips:
    """What was left out, by reason, with the first place each reason was seen."""

    counts: Counter[str] = field(default_factory=Counter)
    first_seen: dict[str, str] = field(default_factory=dict)
    events_read: int = 0

    def add(self, reason: str, where: str) -> None:
        self.counts[reason] += 1
        self.first_seen.setdefault(reason, where)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def describe(self) -> str:
        """One line per reason, most frequent first; empty when nothing was skipped."""
        if not self.counts:
            return ""
        lines = [f"skipped {self.total} value(s) of {self.events_read + self.total} read:"]
        for reason, count in self.counts.most_common():
            where = self.first_seen[reason]
            lines.append(f"  {count} {reason}" + (f" (first at {where})" if where else ""))
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "reasons": [
                {"reason": r, "count": c, "first_at": self.first_seen[r]}
                for r, c in self.counts.most_common()
            ],
        }


def is_golden_file(path: Path) -> bool:
    """A harness golden file: YAML, or one JSON mapping of event keys (``<job>.event.<type>``)."""
    if path.suffix in (".yaml", ".yml"):
        return True
    if path.suffix != ".json" or not path.is_file() or path.stat().st_size > _GOLDEN_MAX_BYTES:
        return False
    with path.open(encoding="utf-8", errors="replace") as stream:
        head = stream.read(4096).lstrip()
    if not head.startswith("{"):
        return False
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return False
    return isinstance(doc, Mapping) and bool(doc) and all(_GOLDEN_KEY.match(str(k)) for k in doc)


def _plain(value: Any) -> Any:
    """A golden value with its matchers resolved as far as a diff can: list matchers become their
    items, other matchers (uuid, datetime, regex, type) become ``None``."""
    if isinstance(value, Mapping):
        if "$match" in value:
            items = value.get("items")
            return [_plain(i) for i in items] if isinstance(items, list) else None
        if "$placeholder" in value:
            return "${" + str(value["$placeholder"]) + "}"
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _load_golden(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix in (".yaml", ".yml"):
        import yaml

        return yaml.safe_load(text)
    return json.loads(text)


def _key_type(key: object) -> str:
    return str(key).rsplit(".", 1)[-1].upper()


def _dag_jobs(doc: Mapping[Any, Any]) -> set[str]:
    """The DAG-level jobs of a golden file. One of the lineage alone keeps no facet saying so
    (``jobType``, ``airflowDagRun``), but Airflow names a task's job ``<dag_id>.<task_id>``: a job
    with no dataset of its own whose name, and a dot, begins other jobs' names is their DAG."""
    touched: dict[str, bool] = {}
    for key, raw in doc.items():
        name = _KEY_SUFFIX.sub("", str(key))
        items = raw if isinstance(raw, list) else [raw]
        datasets = any(isinstance(i, Mapping) and (i.get("inputs") or i.get("outputs")) for i in items)
        touched[name] = touched.get(name, False) or datasets
    return {n for n, t in touched.items() if not t and any(m.startswith(n + ".") for m in touched)}


def golden_events(path: Path, skips: Skips) -> Iterator[dict[str, Any]]:
    """The partial events of a golden file as plain events: the job name comes from the event or
    its key, ``${name}`` placeholders stay in (see :mod:`lineage_operators.cli.placeholders`); a
    job's START first and its end last, as a run emits them; a DAG-level job says it is one."""
    try:
        doc = _load_golden(path)
    except (ValueError, ImportError) as exc:
        skips.add(f"unreadable golden file ({exc.__class__.__name__})", str(path))
        return
    if not isinstance(doc, Mapping):
        skips.add("golden file is not a mapping of event keys", str(path))
        return
    dags = _dag_jobs(doc)
    for key, raw in sorted(doc.items(), key=lambda item: _LIFECYCLE_ORDER.get(_key_type(item[0]), 2)):
        job_name = _KEY_SUFFIX.sub("", str(key))
        event_type = _key_type(key)
        for index, item in enumerate(raw if isinstance(raw, list) else [raw]):
            event = _plain(item)
            if not isinstance(event, dict):
                skips.add("golden entry is not an event", f"{path}:{key}")
                continue
            job: dict[str, Any] = dict(event["job"]) if isinstance(event.get("job"), dict) else {}
            if not isinstance(job.get("name"), str):
                job["name"] = job_name
            if not isinstance(job.get("namespace"), str):
                job["namespace"] = "golden"
            facets: dict[str, Any] = job["facets"] if isinstance(job.get("facets"), dict) else {}
            if job_name in dags and not isinstance(facets.get("jobType"), Mapping):
                job["facets"] = {**facets, "jobType": dict(_DAG_JOB_TYPE)}
            event["job"] = job
            run: dict[str, Any] = dict(event["run"]) if isinstance(event.get("run"), dict) else {}
            event["run"] = {**run, "runId": f"golden:{job_name}:{index}"}
            if not isinstance(event.get("eventType"), str):
                event["eventType"] = event_type
            event["producer"] = GOLDEN_PRODUCER
            event["eventTime"] = event.get("eventTime") if isinstance(event.get("eventTime"), str) else None
            yield event


def backend_events(url: str, skips: Skips, namespace: str | None) -> Iterator[dict[str, Any]]:
    """The events a Marquez server stored (its raw-events endpoint), those of jobs in ``namespace``
    (or whose parent job is) when one is given; an unreadable server is a :class:`SourceError`."""
    try:
        for event in MarquezSource(url).events():
            if namespace is None or in_namespace(event, namespace):
                yield event
            else:
                skips.add(f"job outside namespace {namespace}", url)
    except BackendError as exc:
        raise SourceError(str(exc)) from exc


def read_sources(
    sources: Iterable[str | os.PathLike[str]], skips: Skips, *, namespace: str | None = None
) -> Iterator[dict[str, Any]]:
    """Every event of every source, streamed; raises :class:`SourceError` only for a source that
    names nothing readable, before reading the next one. An ``http(s)://`` source is a Marquez
    server's API, read with ``namespace`` (see :func:`backend_events`)."""
    for source in sources:
        if isinstance(source, str) and is_backend_url(source):
            yield from backend_events(source, skips, namespace)
            continue
        path = Path(source)
        if is_golden_file(path):
            yield from golden_events(path, skips)
            continue
        files = event_files(path)
        if not files:
            raise SourceError(f"{path}: no such file, folder, or FileTransport output ({path}-*.json)")
        for file in files:
            try:
                yield from stream_event_file(file, skips.add)
            except OSError as exc:
                raise SourceError(f"{file}: cannot read: {exc.strerror or exc}") from exc
