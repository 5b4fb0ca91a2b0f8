"""Reading the events a lineage backend stored: Marquez's raw-events endpoint, filtered to a DAG run.

A deployment whose task processes share no folder still sends every event to its backend, so the
backend is the one place where a DAG run's whole lineage can be checked. Marquez keeps each event it
accepted and serves them back, oldest first when asked, from ``GET /api/v1/events/lineage``
(``after``/``before`` bound the event time, ``limit``/``offset`` page; the answer is
``{"events": [...], "totalCount": n}``). The endpoint cannot filter by run, so the filtering to one
DAG run happens here, on plain dicts:

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

    def _page(self, offset: int, after: _dt.datetime | None) -> tuple[list[dict[str, Any]], int]:
        query = {"sortDirection": "asc", "limit": str(self.page_size), "offset": str(offset)}
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
        total = _mapping(body).get("totalCount")
        if not isinstance(events, list) or not isinstance(total, int):
            raise BackendError(f"{self.url}: {EVENTS_PATH} answered no events list (is this Marquez?)")
        return [e for e in events if isinstance(e, dict)], total

    def events(self, *, after: _dt.datetime | None = None) -> Iterator[dict[str, Any]]:
        """Every stored run event (with event time at or after ``after``), oldest first, page by page.

        Raises :class:`BackendError` when a page cannot be read; stops after ``max_events``."""
        offset = 0
        while offset < self.max_events:
            page, total = self._page(offset, after)
            yield from page
            offset += len(page)
            if not page or len(page) < self.page_size or offset >= total:
                return


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
