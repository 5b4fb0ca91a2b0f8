"""Reading the events a lineage backend stored: Marquez's raw-events endpoint, filtered to a DAG run.

A deployment whose task processes share no folder still sends every event to its backend, so the
backend is the one place where a DAG run's whole lineage can be checked. Marquez keeps each event it
accepted and serves them back, oldest first when asked, from ``GET /api/v1/events/lineage``
(``after``/``before`` bound the event time, ``limit`` the page; the answer is ``{"events": [...]}``, in
event-time order alone: see :meth:`MarquezSource.events` for how pages are cut). An event stored twice
(a retried POST) comes back once. The endpoint cannot filter by run, so the filtering to one DAG run
happens here, on plain dicts:

- the DAG run's own events and its task events carry the provider's ``airflowDagRun``/``airflow``
  run facets with the dag_id and run_id (:func:`~lineage_operators.testing.event_store.run_of`);
- child runs (a Spark task's actions, a query job) carry only a ``parent`` run facet; they belong
  to the DAG run when their parent (or the parent's ``root``) is one of its runs, at any depth.

Marquez re-serialises the events it stored (its own model; absent fields stay absent), so what comes
back is what a user of the backend sees. Nothing here imports OpenLineage or Airflow; HTTP is the
standard library's, so a test deployment needs no extra package.
"""

from __future__ import annotations

import datetime as _dt
import json
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from lineage_operators.testing.event_store import run_of
from lineage_operators.testing.events import Events, group_events

__all__ = [
    "BackendError",
    "MarquezRun",
    "MarquezSource",
    "dag_run_events",
    "in_namespace",
    "is_backend_url",
]

EVENTS_PATH = "api/v1/events/lineage"
PAGE_SIZE = 200
FAR_FUTURE = "9999-12-31T00:00:00+00:00"
"""Marquez's default upper bound on event time is 2030-01-01: read everything."""
MAX_EVENTS = 100_000
"""Reading stops there: a backend holding more events than this needs a narrower ``after``."""


class BackendError(Exception):
    """The backend could not be read (unreachable, an HTTP error, an answer that is not its API)."""


def is_backend_url(text: str) -> bool:
    """Whether a command-line source names a backend (an http(s) URL) rather than a file."""
    return urllib.parse.urlsplit(str(text)).scheme in ("http", "https")


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _iso(moment: _dt.datetime) -> str:
    if moment.tzinfo is None:  # Airflow's dates are aware; a naive one is taken as UTC
        moment = moment.replace(tzinfo=_dt.timezone.utc)
    return moment.isoformat()


@dataclass(frozen=True)
class MarquezSource:
    """A Marquez server's API (``url`` is its base, e.g. ``http://127.0.0.1:5000``)."""

    url: str
    timeout: float = 10.0
    page_size: int = PAGE_SIZE
    max_events: int = MAX_EVENTS

    def __post_init__(self) -> None:
        if not is_backend_url(self.url):
            raise ValueError(f"a Marquez URL starts with http:// or https://, got {self.url!r}")

    def _page(self, after: _dt.datetime | None, limit: int) -> list[dict[str, Any]]:
        query = {"sortDirection": "asc", "limit": str(limit), "before": FAR_FUTURE}
        if after is not None:
            query["after"] = _iso(after)
        address = f"{self.url.rstrip('/')}/{EVENTS_PATH}?{urllib.parse.urlencode(query)}"
        request = urllib.request.Request(address, headers={"Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            raise BackendError(f"{self.url}: HTTP {exc.code} from {EVENTS_PATH}") from exc
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise BackendError(f"{self.url}: cannot reach the backend ({reason})") from exc
        except ValueError as exc:
            raise BackendError(f"{self.url}: {EVENTS_PATH} did not answer JSON") from exc
        events = _mapping(body).get("events")
        if not isinstance(events, list):
            raise BackendError(f"{self.url}: {EVENTS_PATH} answered no events list (is this Marquez?)")
        return [e for e in events if isinstance(e, dict)]

    def events(self, *, after: _dt.datetime | None = None) -> Iterator[dict[str, Any]]:
        """Every stored run event (with event time at or after ``after``), oldest first, page by page.

        Marquez orders by event time alone, so events of the same time come in any order from one
        query to the next, and pages cut by offset would skip some and repeat others. Each page
        starts instead at the time of the last event read (``after`` is inclusive there), asks for
        as many more events as it has already read of that time, and keeps what it had not read.
        Raises :class:`BackendError` when a page cannot be read; stops after ``max_events``."""
        read: set[str] = set()
        times: Counter[_dt.datetime] = Counter()
        boundary, count, wider = after, 0, 0
        while count < self.max_events:
            limit = self.page_size + wider + (times[boundary] if boundary is not None else 0)
            page = self._page(boundary, limit)
            fresh = 0
            for event in page:
                identity = json.dumps(event, sort_keys=True)
                if identity in read:
                    continue
                read.add(identity)
                moment = _event_time(event)
                if moment is not None:
                    times[moment] += 1
                fresh += 1
                yield event
            count += fresh
            if len(page) < limit:
                return
            last = _event_time(page[-1])
            if last is None:
                return
            # a full page with nothing new is a run of identical events stored more than once
            wider = wider + self.page_size if fresh == 0 else 0
            boundary = last


def _event_time(event: Mapping[str, Any]) -> _dt.datetime | None:
    text = event.get("eventTime")
    try:
        moment = _dt.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=_dt.timezone.utc)


def _parent_run_ids(event: Mapping[str, Any]) -> set[str]:
    """The run ids an event names as its parent and its parent's root."""
    parent = _mapping(_mapping(_mapping(event.get("run")).get("facets")).get("parent"))
    ids = set()
    for link in (parent, _mapping(parent.get("root"))):
        run_id = _mapping(link.get("run")).get("runId")
        if isinstance(run_id, str):
            ids.add(run_id)
    return ids


def _run_id(event: Mapping[str, Any]) -> str | None:
    run_id = _mapping(event.get("run")).get("runId")
    return run_id if isinstance(run_id, str) else None


def dag_run_events(events: Iterable[Mapping[str, Any]], dag_id: str, run_id: str) -> list[dict[str, Any]]:
    """The events of one Airflow DAG run: its DAG and task events and, at any depth, their child runs'."""
    pool = [dict(e) for e in events]
    members: set[str] = set()
    for event in pool:
        ref = run_of(event)
        if ref is not None and (ref.dag_id, ref.run_id) == (dag_id, run_id):
            own = _run_id(event)
            if own is not None:
                members.add(own)
    grew = True
    while grew:  # children of children (a Spark action under a task under the DAG run)
        grew = False
        for event in pool:
            own = _run_id(event)
            if own is not None and own not in members and _parent_run_ids(event) & members:
                members.add(own)
                grew = True
    return [e for e in pool if _run_id(e) in members]


def in_namespace(event: Mapping[str, Any], namespace: str) -> bool:
    """Whether an event's job, or the job of its parent run, is in ``namespace``."""
    if _mapping(event.get("job")).get("namespace") == namespace:
        return True
    parent = _mapping(_mapping(_mapping(event.get("run")).get("facets")).get("parent"))
    return _mapping(parent.get("job")).get("namespace") == namespace


@dataclass(frozen=True)
class MarquezRun:
    """The events of one DAG run as Marquez stored them: pass it wherever the harness takes events
    (``assert_events_match_file(MarquezRun(url, dag_id, run_id), golden)``).

    ``after`` (the DAG run's start, less any clock skew between hosts) keeps the read to the events
    of recent runs; without it every stored event is read and filtered."""

    url: str
    dag_id: str
    run_id: str
    after: _dt.datetime | None = None
    timeout: float = 10.0

    def events(self) -> Events:
        """Keyed like :func:`~lineage_operators.testing.events.load_events`; :class:`BackendError`
        when the backend cannot be read."""
        source = MarquezSource(self.url, timeout=self.timeout)
        return group_events(dag_run_events(source.events(after=self.after), self.dag_id, self.run_id))
