"""An operator a DAG adds as its last task: it checks the lineage the DAG run's tasks really emitted.

For system tests run as DAGs on a real deployment (a scheduler, an executor, each task in its own
process, the real transport): the run's events reach it through
:class:`~lineage_operators.testing.store_transport.EventStoreTransport`, configured next to the
deployment's transport, or, on a deployment with no shared folder, from the lineage backend itself
(``backend=``: Marquez's raw-events endpoint, filtered to the DAG run), and it compares them
with an expected-events file, this library's golden format or Airflow's own
(:mod:`.expected_file`), failing with the differences the pytest harness prints. Parsing a DAG
that uses it imports no OpenLineage, provider or Spark module.
"""

from __future__ import annotations

import datetime
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from airflow.sdk import BaseOperator

from lineage_operators.testing.backend import BackendError, MarquezRun
from lineage_operators.testing.event_store import EventStore, request_events
from lineage_operators.testing.events import Events
from lineage_operators.testing.expected_file import read_expected_file

__all__ = ["AssertLineageOperator", "after_keys", "wait_for_events"]

STORE_SETUP = (
    'add {"type": "lineage_operators.testing.EventStoreTransport", "directory": "<a folder every Airflow '
    'process can write>"} to [openlineage] transport (inside a "composite" transport next to your own)'
)


def after_keys(dag_id: str, task_id: str) -> set[str]:
    """Event keys that can only exist after this task ends: its own end and its DAG run's end."""
    task_keys = {f"{dag_id}.{task_id}.event.{kind}" for kind in ("complete", "fail", "abort")}
    return task_keys | {f"{dag_id}.event.{kind}" for kind in ("complete", "fail", "abort")}


def wait_for_events(
    read: Callable[[], Events],
    required: Mapping[str, int],
    timeout: float,
    *,
    interval: float = 0.5,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Events:
    """Read until every key has its required number of events, or ``timeout`` passed (then the
    comparison says what is missing). DAG START comes from the scheduler's own pool, possibly late."""
    deadline = clock() + timeout
    while True:
        events = read()
        if all(len(events.get(key, ())) >= count for key, count in required.items()):
            return events
        if clock() >= deadline:
            return events
        sleep(interval)


class AssertLineageOperator(BaseOperator):
    """Fail unless the events this DAG run emitted so far match ``expected`` (a file path, templated).

    :param expected: a golden file of this library (JSON/YAML mapping of event keys) or one of
        Airflow's expected-event files (JSON array), detected from the content; a relative path
        is taken from the DAG file's folder.
    :param placeholders: values of ``${name}`` in a golden file (``${namespace}`` is known).
    :param allow_extra_keys: golden files are snapshots: by default an event key they do not list
        fails. Airflow's files check only the keys they list.
    :param timeout: seconds to wait for the events the file expects to arrive.
    :param directory: the event store's folder; by default the one configured for
        ``EventStoreTransport`` in the OpenLineage transport.
    :param backend: a Marquez API URL (templated) to read the run's events from instead of the
        event store: what the backend stored is checked, with no store transport configured.
        Empty (a template that rendered to nothing) reads the event store.
        Events are read from the DAG run's start less ``backend_skew`` seconds (clocks of hosts).

    Keys that can only exist after this task (its own COMPLETE, the DAG run's COMPLETE) are not
    checked. It does not retry unless told to: the events would not change.
    """

    template_fields: Sequence[str] = ("expected", "placeholders", "backend")
    ui_color = "#e8f4ea"

    def __init__(
        self,
        *,
        expected: str | os.PathLike[str],
        placeholders: Mapping[str, str] | None = None,
        allow_extra_keys: bool = False,
        timeout: float = 60.0,
        directory: str | os.PathLike[str] | None = None,
        backend: str | None = None,
        backend_skew: float = 300.0,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("retries", 0)
        super().__init__(**kwargs)
        if not isinstance(expected, (str, os.PathLike)):
            raise TypeError(f"{type(self).__name__}: expected= is the path of an expected-events file")
        self.expected = os.fspath(expected)
        self.placeholders = dict(placeholders or {})
        self.allow_extra_keys = allow_extra_keys
        self.timeout = timeout
        self.directory = os.fspath(directory) if directory is not None else None
        if backend is not None and not isinstance(backend, str):
            raise TypeError(f"{type(self).__name__}: backend= is a Marquez API URL (http://host:port)")
        self.backend = backend
        self.backend_skew = backend_skew
        if self.has_dag() and backend is None:
            request_events(self.dag.dag_id)

    def expected_path(self) -> Path:
        """``expected``; a relative path is taken from the DAG file's folder."""
        path = Path(self.expected)
        fileloc = getattr(self.dag, "fileloc", None) if self.has_dag() else None
        if path.is_absolute() or not fileloc:
            return path
        return Path(fileloc).parent / path

    def execute(self, context: Any) -> None:
        dag_run = context["dag_run"]
        expected = read_expected_file(self.expected_path())
        skipped = after_keys(dag_run.dag_id, self.task_id)
        expected = expected.without(skipped)
        reader = self._reader(dag_run)
        events = wait_for_events(reader, expected.required_counts(), self.timeout)
        if isinstance(reader, _BackendReader) and reader.failure is not None:
            raise AssertionError(
                f"the lineage backend could not be read for {self.timeout}s: {reader.failure}"
            )
        checked = {key: value for key, value in events.items() if key not in skipped}
        mismatches = expected.mismatches(
            checked,
            placeholders=self.placeholders,
            namespace=_namespace(),
            allow_extra_keys=self.allow_extra_keys,
        )
        if mismatches:
            raise AssertionError(expected.report(mismatches, actual_empty=not checked))
        self.log.info(
            "OpenLineage events of run %s (read from %s) match %s (%d event keys checked)",
            dag_run.run_id,
            self.backend or "the event store",
            expected.path,
            len(expected.expectations),
        )

    def _reader(self, dag_run: Any) -> Callable[[], Events]:
        """Reads the run's events so far: from the backend when one is named, else the event store."""
        if not self.backend:
            store = EventStore(self.directory or _configured_directory())
            return lambda: store.events(dag_run.dag_id, dag_run.run_id)
        start = getattr(dag_run, "start_date", None) or getattr(dag_run, "queued_at", None)
        after = start - datetime.timedelta(seconds=self.backend_skew) if start is not None else None
        return _BackendReader(MarquezRun(self.backend, dag_run.dag_id, dag_run.run_id, after=after), self.log)


class _BackendReader:
    """Reads a DAG run's events from the backend; a failed read (a backend restarting) counts as no
    events yet, so the wait reads again until its timeout, and :attr:`failure` says why it failed."""

    def __init__(self, run: MarquezRun, log: Any) -> None:
        self.run = run
        self.log = log
        self.failure: BackendError | None = None

    def __call__(self) -> Events:
        try:
            events = self.run.events()
        except BackendError as exc:
            if self.failure is None:
                self.log.warning("cannot read lineage events from the backend yet: %s", exc)
            self.failure = exc
            return {}
        self.failure = None
        return events


def _configured_directory() -> str:
    """The folder of the EventStoreTransport in the OpenLineage client this deployment configured."""
    from airflow.providers.openlineage.plugins.adapter import OpenLineageAdapter

    from lineage_operators.testing.store_transport import find_store_directory

    transport = OpenLineageAdapter().get_or_create_openlineage_client().transport
    directory = find_store_directory(transport)
    if directory is None:
        raise RuntimeError(f"no event store to read this run's OpenLineage events from: {STORE_SETUP}")
    return directory


def _namespace() -> str:
    from airflow.providers.openlineage.conf import namespace

    return str(namespace())
