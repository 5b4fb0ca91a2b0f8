"""Running a DAG with ``dag.test()`` and collecting the OpenLineage events the provider emitted.

Nothing here imports Airflow at module level: the pytest plugin imports this module at
start-up, and Airflow reads its home and database URL when first imported, which must happen
inside the temporary home of :mod:`lineage_operators.testing.airflow_home`.

Process-wide state that leaks between runs in one process, and how it is reset:

- ``airflow.providers.openlineage.conf`` getters are ``functools.cache``-d outside pytest
  (the provider disables the cache when ``PYTEST_VERSION`` is set): ``cache_clear()`` each;
- the listener (a cached singleton) keeps a ``ProcessPoolExecutor`` for DAG-level events;
  its forked workers keep an adapter, client and transport built from the configuration
  they saw (``_get_process_adapter`` is cached per worker), so the pool is shut down after
  each run, which also waits for the queued DAG events to be written;
- the listener's own adapter caches its ``OpenLineageClient``: dropped;
- the hook-lineage collector: see :mod:`lineage_operators.testing.hook_lineage_state`.

Size: running a DAG (``dag.test()``, ``airflow dags test``) and collecting the events of
both runs share Airflow's set-up, isolation and clean-up.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any
from unittest import mock

from lineage_operators.testing.airflow_home import IsolatedAirflow
from lineage_operators.testing.backend import is_backend_url
from lineage_operators.testing.event_store import requested_dag_ids
from lineage_operators.testing.events import Events, load_events
from lineage_operators.testing.hook_lineage_state import reading_hook_lineage, reset_hook_lineage_collector
from lineage_operators.testing.provider_defaults import parent_namespace_of_this_run
from lineage_operators.testing.task_output import TaskOutput, describe_failures, task_label

__all__ = [
    "DagRunResult",
    "LineageTransport",
    "ensure_airflow_db",
    "flush_openlineage",
    "reset_hook_lineage_collector",
    "reset_openlineage_state",
    "run_dag",
]

_LISTENER_MODULE = "airflow.providers.openlineage.plugins.listener"


def ensure_airflow_db() -> None:
    """Kept for callers of older versions: the DB now lives in the isolated home ``run_dag`` creates."""


def flush_openlineage(timeout: float = 60.0) -> bool:
    """Wait for DAG-level events queued on the listener's process pool, then drop the pool.

    DAG START/COMPLETE/FAIL are emitted from a ``ProcessPoolExecutor``; returning before it
    drains loses them.  The pool is detached first (as the listener's ``before_stopping``
    does) so the next event builds a fresh pool that reads the current configuration.
    Returns ``False`` if the pool did not drain within ``timeout`` seconds.
    """
    module = sys.modules.get(_LISTENER_MODULE)
    if module is None:
        return True
    listener = module.get_openlineage_listener()
    executor = getattr(listener, "_executor", None)
    if executor is None:
        return True
    listener._executor = None
    worker = threading.Thread(target=executor.shutdown, kwargs={"wait": True}, daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        warnings.warn(
            f"OpenLineage DAG event executor did not drain within {timeout}s; DAG events may be missing",
            RuntimeWarning,
            stacklevel=2,
        )
        executor.shutdown(wait=False, cancel_futures=True)
        return False
    return True


def reset_openlineage_state() -> None:
    """Drop every process-wide OpenLineage cache so the next run reads the current configuration."""
    flush_openlineage()
    conf = sys.modules.get("airflow.providers.openlineage.conf")
    for name in dir(conf) if conf is not None else ():
        clear = getattr(getattr(conf, name), "cache_clear", None)
        if callable(clear):
            clear()
    listener_module = sys.modules.get(_LISTENER_MODULE)
    if listener_module is not None:
        process_adapter = getattr(listener_module, "_get_process_adapter", None)
        if process_adapter is not None and hasattr(process_adapter, "cache_clear"):
            process_adapter.cache_clear()
        adapter = getattr(listener_module.get_openlineage_listener(), "adapter", None)
        if adapter is not None and hasattr(adapter, "_client"):
            adapter._client = None
    reset_hook_lineage_collector()


@contextlib.contextmanager
def _environ(values: Mapping[str, str | None]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    try:
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        yield
    finally:
        for name, old in saved.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old


BACKEND_ENDPOINT = "api/v1/lineage"
"""Where OpenLineage's HTTP transport posts on Marquez (and on backends that follow its API)."""


def transport_env(
    events_path: str | os.PathLike[str],
    namespace: str | None = None,
    store_dir: str | os.PathLike[str] | None = None,
    backend: str | None = None,
) -> dict[str, str | None]:
    """Env vars sending the provider's events to ``events_path`` (JSON lines, appended), to an
    event store in ``store_dir`` for assertion tasks, and to a lineage backend's HTTP API
    (``backend``: its base URL, e.g. Marquez's ``http://host:5000``), when given.

    A user's ``config_path``/``config_conn_id`` would take precedence over ``transport``, so
    they are blanked for the run.
    """
    transports: dict[str, Any] = {
        "file": {"type": "file", "log_file_path": os.fspath(events_path), "append": True}
    }
    if store_dir is not None:
        store = {"type": "lineage_operators.testing.EventStoreTransport", "directory": os.fspath(store_dir)}
        transports["assertions"] = store
    if backend is not None:
        transports["backend"] = {"type": "http", "url": backend, "endpoint": BACKEND_ENDPOINT}
    transport = (
        transports["file"] if len(transports) == 1 else {"type": "composite", "transports": transports}
    )
    env: dict[str, str | None] = {
        "AIRFLOW__OPENLINEAGE__TRANSPORT": json.dumps(transport),
        "AIRFLOW__OPENLINEAGE__CONFIG_PATH": "",
        "AIRFLOW__OPENLINEAGE__CONFIG_CONN_ID": "",
    }
    if namespace is not None:
        env["AIRFLOW__OPENLINEAGE__NAMESPACE"] = namespace
    return env


class LineageTransport:
    """A directory the provider's FileTransport writes into; one JSON-lines file per run."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / "events.jsonl"
        self._counter = itertools.count(1)

    def new_path(self) -> Path:
        """A fresh file for one run, so a run's result holds only that run's events."""
        return self.directory / f"run-{next(self._counter)}.jsonl"

    def events(self) -> Events:
        """Every event written into the directory so far, keyed."""
        return load_events(self.directory, missing_ok=True)


def _ensure_listener_registered() -> None:
    """Register the OpenLineage listener even if Airflow's plugins loaded while it was disabled.

    The provider plugin decides at import whether to register its listener; if plugins
    were loaded before a transport was configured, nothing would be emitted.
    """
    from airflow.providers.openlineage.plugins.listener import get_openlineage_listener

    listener = get_openlineage_listener()
    for module_name in ("airflow.listeners.listener", "airflow.sdk.listener"):
        try:
            module = __import__(module_name, fromlist=["get_listener_manager"])
        except ImportError:
            continue
        module.get_listener_manager().add_listener(listener)


def _bundle_for(dag_file: Path, home: Path) -> Path:
    """A dags folder holding only a link to ``dag_file``, inside the temporary Airflow home.

    ``dag.test()`` re-parses the configured dags folder to serialise the DAG; pointing it at the
    DAG's own directory would import every sibling file (test modules included), so a
    one-file folder is used instead, stable per DAG file.
    """
    folder = home / "dag-bundles" / hashlib.sha1(str(dag_file).encode()).hexdigest()[:16]
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / dag_file.name
    if not (link.is_symlink() and link.resolve() == dag_file.resolve()):
        if link.exists() or link.is_symlink():
            link.unlink()
        link.symlink_to(dag_file)
    return folder


@contextlib.contextmanager
def _dags_folder(folder: Path) -> Iterator[None]:
    """Point both the config and ``airflow.settings.DAGS_FOLDER`` (computed at import) at ``folder``."""
    from airflow import settings

    saved = settings.DAGS_FOLDER
    with _environ({"AIRFLOW__CORE__DAGS_FOLDER": str(folder)}):
        settings.DAGS_FOLDER = str(folder)
        try:
            yield
        finally:
            settings.DAGS_FOLDER = saved


@contextlib.contextmanager
def _dag_test_patches(emit_dag_start: bool, output: TaskOutput) -> Iterator[None]:
    """Make ``dag.test()`` closer to a scheduler run.

    - DAG START: only the scheduler emits it (``notify_dagrun_state_changed(msg="started")``
      when it moves a queued run to running); ``dag.test()`` creates the run already running,
      so the listener never hears of it.  The created run is announced the same way.
    - Tasks run in this one process, so the hook-lineage collector is cleared before each,
      and each task's console output is kept to explain a failure.
    """
    import airflow.models.dagrun as dagrun_module
    from airflow.sdk.execution_time import supervisor

    with contextlib.ExitStack() as stack:
        if emit_dag_start and hasattr(dagrun_module, "get_or_create_dagrun"):
            original_create: Callable[..., Any] = dagrun_module.get_or_create_dagrun

            def get_or_create_dagrun(*args: Any, **kwargs: Any) -> Any:
                dag_run = original_create(*args, **kwargs)
                if str(getattr(dag_run.state, "value", dag_run.state)) == "running":
                    dag_run.notify_dagrun_state_changed(msg="started")
                return dag_run

            stack.enter_context(
                mock.patch.object(dagrun_module, "get_or_create_dagrun", get_or_create_dagrun)
            )
        if hasattr(supervisor, "run_task_in_process"):
            original_run: Callable[..., Any] = supervisor.run_task_in_process

            def run_task_in_process(ti: Any, *args: Any, **kwargs: Any) -> Any:
                reset_hook_lineage_collector()
                with output.capture(task_label(ti)):
                    return original_run(ti, *args, **kwargs)

            stack.enter_context(mock.patch.object(supervisor, "run_task_in_process", run_task_in_process))
        yield


class DagRunResult(dict[str, list[dict[str, Any]]]):
    """The run's events keyed like :func:`load_events`, plus how the run ended.

    Being a dict, it is passed straight to ``assert_events_match`` and friends.
    """

    def __init__(
        self,
        events: Events,
        *,
        dag_id: str,
        run_id: str,
        state: str,
        task_states: dict[str, str],
        events_path: Path,
        failures: str = "",
        namespace: str | None = None,
    ) -> None:
        super().__init__(events)
        self.failures = failures
        self.namespace = namespace
        self.dag_id = dag_id
        self.run_id = run_id
        self.state = state
        self.task_states = task_states
        self.events_path = events_path

    @property
    def events(self) -> Events:
        return dict(self)

    @property
    def succeeded(self) -> bool:
        return self.state == "success"

    def __repr__(self) -> str:
        return f"DagRunResult(dag_id={self.dag_id!r}, state={self.state!r}, keys={sorted(self)!r})"


def _state(value: Any) -> str:
    return str(getattr(value, "value", value))


def _task_states(dag_run: Any) -> dict[str, str]:
    """``task_id`` (``task_id[i]`` for mapped instances) -> final state, for messages and asserts."""
    try:
        instances = dag_run.get_task_instances()
    except Exception:  # informative only; never hide the events because of it
        return {}
    return {task_label(ti): _state(ti.state) for ti in instances}


def _error_messages(events: Events, dag_id: str, task_states: Mapping[str, str]) -> dict[str, str]:
    """``task label -> errorMessage`` of the task's FAIL event (the provider records the exception)."""
    messages: dict[str, str] = {}
    for label in task_states:
        task_id = label.split("[", 1)[0]
        for event in events.get(f"{dag_id}.{task_id}.event.fail", [])[-1:]:
            facet = event.get("run", {}).get("facets", {}).get("errorMessage", {})
            if isinstance(facet, Mapping) and facet.get("message"):
                messages[label] = str(facet["message"])
    return messages


def run_dag(
    dag: Any,
    *,
    logical_date: datetime | None = None,
    run_conf: dict[str, Any] | None = None,
    events_path: str | os.PathLike[str] | None = None,
    dags_folder: str | os.PathLike[str] | None = None,
    namespace: str | None = None,
    emit_dag_start: bool = True,
    expect_state: str | None = None,
    flush_timeout: float = 60.0,
    backend: str | None = None,
) -> DagRunResult:
    """Run ``dag`` with ``dag.test()`` and return the OpenLineage events it produced.

    Airflow runs in a temporary home and SQLite DB created for the call (or the pytest
    fixture's), never in the ``AIRFLOW_HOME`` of the shell.  Events go to ``events_path``
    through the provider's FileTransport (by default a file inside that temporary home, removed
    with it: the result holds the events).  The DAG must be defined at module level of
    ``dag.fileloc``: ``dag.test()`` re-parses it; ``dags_folder`` uses a whole folder instead
    (e.g. for DAGs it triggers).  A failing task does not raise unless ``expect_state`` is given;
    ``result.failures`` then names each failed task with its exception and last log lines.
    ``backend`` (a lineage backend's base URL, e.g. Marquez's) receives the same events over the
    provider's HTTP transport, as a deployment sends them: read them back with
    :class:`~lineage_operators.testing.MarquezRun` (``result.dag_id``, ``result.run_id``).
    """
    if backend is not None and not is_backend_url(backend):
        raise ValueError(f"backend= is a lineage backend's base URL (http://host:port), got {backend!r}")
    with IsolatedAirflow() as home:
        return _run_dag_in(
            home,
            dag,
            logical_date=logical_date,
            run_conf=run_conf,
            events_path=events_path,
            dags_folder=dags_folder,
            namespace=namespace,
            emit_dag_start=emit_dag_start,
            expect_state=expect_state,
            flush_timeout=flush_timeout,
            backend=backend,
        )


def _run_dag_in(
    home: Path,
    dag: Any,
    *,
    logical_date: datetime | None,
    run_conf: dict[str, Any] | None,
    events_path: str | os.PathLike[str] | None,
    dags_folder: str | os.PathLike[str] | None,
    namespace: str | None,
    emit_dag_start: bool,
    expect_state: str | None,
    flush_timeout: float,
    backend: str | None = None,
) -> DagRunResult:
    events_file = Path(events_path) if events_path is not None else home / "events" / "events.jsonl"
    events_file.parent.mkdir(parents=True, exist_ok=True)
    if dags_folder is None:
        fileloc = getattr(dag, "fileloc", None)
        if not fileloc or not Path(fileloc).is_file():
            raise ValueError(
                f"DAG {dag.dag_id!r} has no file (fileloc={fileloc!r}); dag.test() must parse it: "
                "load it with lineage_operators.testing.load_dag(path)"
            )
        folder = _bundle_for(Path(fileloc), home)
    else:
        folder = Path(dags_folder)

    output = TaskOutput()
    # a DAG with an assertion task reads its run's events from a store, as in a deployment
    store_dir = home / "event-store" if dag.dag_id in requested_dag_ids() else None
    with _environ(transport_env(events_file, namespace, store_dir, backend)):
        reset_openlineage_state()
        from airflow.providers.openlineage import conf as ol_conf

        if ol_conf.is_disabled():
            raise RuntimeError(
                "OpenLineage is disabled ([openlineage] disabled / OPENLINEAGE_DISABLED); "
                "no events would be emitted"
            )
        _ensure_listener_registered()
        try:
            with (
                _dags_folder(folder),
                reading_hook_lineage(),
                parent_namespace_of_this_run(),
                _dag_test_patches(emit_dag_start, output),
            ):
                try:
                    kwargs: dict[str, Any] = {"run_conf": run_conf}
                    if logical_date is not None:
                        kwargs["logical_date"] = logical_date
                    dag_run = dag.test(**kwargs)
                except Exception as exc:
                    if "not serialized" in str(exc):
                        raise RuntimeError(
                            f"dag.test() could not find DAG {dag.dag_id!r} when parsing {folder}: it must be "
                            f"defined at module level of {getattr(dag, 'fileloc', '?')}"
                        ) from exc
                    raise
        finally:
            flush_openlineage(flush_timeout)
            reset_openlineage_state()

    events = load_events(events_file, missing_ok=True)
    task_states = _task_states(dag_run)
    result = DagRunResult(
        events,
        dag_id=dag.dag_id,
        run_id=str(dag_run.run_id),
        state=_state(dag_run.state),
        task_states=task_states,
        events_path=events_file,
        failures=describe_failures(task_states, output, _error_messages(events, dag.dag_id, task_states)),
        namespace=namespace or os.environ.get("AIRFLOW__OPENLINEAGE__NAMESPACE") or "default",
    )
    if expect_state is not None and result.state != expect_state:
        details = f"\n{result.failures}" if result.failures else ""
        raise AssertionError(
            f"DAG run {result.dag_id} ended {result.state!r}, expected {expect_state!r}; "
            f"task states: {result.task_states}{details}"
        )
    return result
