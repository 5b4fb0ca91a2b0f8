"""Capture for Spark sessions that a task creates or uses without this package's operator.

The plugin calls :func:`arm` before the task's ``execute`` and :func:`finish` after it, in the
task's own process. While armed, every session the task uses is captured with the capture that
fits it (:class:`~lineage_operators.spark.capture.classic.SparkLineageCapture`, or the Spark Connect one for
a session from ``SparkSession.builder.remote("sc://...")``):

* a session already active when the task starts is captured at once;
* a session the task gets from ``SparkSession.builder.getOrCreate()`` is captured as soon as the
  builder returns it, before the task can run a query on it. This wraps that one public entry
  point (once per process, inert while nothing is armed); tests/unit/test_auto_capture.py fails
  if pyspark changes it.

A task that never imports pyspark pays for one dictionary look-up: when pyspark is not imported
yet, a meta-path finder waits for ``pyspark.sql.session`` to be imported and only then wraps the
builder. Nothing here raises into the task.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.capture_settings import capture_timeout
from lineage_operators.column_lineage.settings import resolve_settings
from lineage_operators.model import sorted_datasets
from lineage_operators.spark.capture.chooser import LineageCapture, new_capture
from lineage_operators.spark.facts import CaptureResult

log = get_logger(__name__)

SESSION_MODULE = "pyspark.sql.session"
_WRAPPED_MARKER = "__lineage_operators_wrapped__"


@dataclass
class _Armed:
    task_label: str
    captures: dict[int, LineageCapture] = field(default_factory=dict)  # by id(session)
    sessions: list[Any] = field(default_factory=list)  # keeps ids valid while armed


_lock = threading.Lock()
_armed: _Armed | None = None


def arm(task_label: str) -> None:
    """Start watching sessions for the task about to run (replaces a previous, unfinished arm)."""
    global _armed
    try:
        with _lock:
            _armed = _Armed(task_label)
        module = sys.modules.get(SESSION_MODULE)
        if module is None:
            _install_import_hook()
            return
        _wrap_builder(module)
        active = module.SparkSession.getActiveSession()
        if active is not None:
            observe_session(active)
    except Exception as error:
        log.warning("Task %s: Spark lineage capture was not armed: %s", task_label, describe(error))


def is_armed() -> bool:
    return _armed is not None


def observe_session(session: Any) -> None:
    """Capture ``session`` for the armed task (once per session), classic or Spark Connect
    (``builder.remote("sc://...").getOrCreate()`` returns a Connect session through this builder;
    :func:`~lineage_operators.spark.capture.chooser.new_capture` picks the capture that fits)."""
    armed = _armed
    if armed is None or session is None:
        return
    try:
        with _lock:
            if id(session) in armed.captures:
                return
            capture = _new_capture(session)
            armed.captures[id(session)] = capture
            armed.sessions.append(session)
        capture.start()
    except Exception as error:
        log.warning("Task %s: Spark lineage capture did not start: %s", armed.task_label, describe(error))


def _new_capture(session: Any) -> LineageCapture:
    """The capture the operator would start: same column-lineage settings and time budget."""
    settings = resolve_settings()
    return new_capture(session, timeout=capture_timeout(), column_lineage=settings)


def finish() -> CaptureResult | None:
    """Stop every capture of the armed task and return their merged ``CaptureResult``
    (``None`` when nothing was armed or no session was used). Disarms."""
    global _armed
    with _lock:
        armed, _armed = _armed, None
    if armed is None:
        return None
    captures = [capture for capture in armed.captures.values() if capture is not None]
    if not captures:
        return None
    try:
        return merge_results([capture.stop() for capture in captures])
    except Exception as error:
        log.warning("Task %s: Spark lineage capture failed: %s", armed.task_label, describe(error))
        return None


def merge_results(results: Sequence[CaptureResult]) -> CaptureResult:
    """One result for a task that used several sessions: datasets merged, first session's facets."""
    merged = CaptureResult()
    for result in results:
        merged.inputs = sorted_datasets([*merged.inputs, *result.inputs])
        merged.outputs = sorted_datasets([*merged.outputs, *result.outputs])
        merged.run_facets = {**result.run_facets, **merged.run_facets}
        merged.job_facets = {**result.job_facets, **merged.job_facets}
        merged.executions += result.executions
        merged.capture_ms += result.capture_ms
        merged.complete = merged.complete and result.complete
    return merged


# -- the builder entry point ----------------------------------------------------------------------


def _wrap_builder(module: ModuleType) -> None:
    builder_class = module.SparkSession.Builder
    original = builder_class.getOrCreate
    if getattr(original, _WRAPPED_MARKER, False):
        return

    def getOrCreate(self: Any) -> Any:
        session = original(self)
        if _armed is not None:
            observe_session(session)
        return session

    getOrCreate.__doc__ = original.__doc__
    getOrCreate.__wrapped__ = original  # type: ignore[attr-defined]
    setattr(getOrCreate, _WRAPPED_MARKER, True)
    builder_class.getOrCreate = getOrCreate


class _SessionModuleFinder(importlib.abc.MetaPathFinder):
    """Wraps the builder right after ``pyspark.sql.session`` is first imported."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> Any:
        if fullname != SESSION_MODULE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _WrappingLoader(spec.loader)
        return spec


class _WrappingLoader(importlib.abc.Loader):
    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        _remove_import_hook()
        try:
            _wrap_builder(module)
        except Exception as error:
            log.warning("Spark lineage capture could not watch new sessions: %s", describe(error))


_finder = _SessionModuleFinder()


def _install_import_hook() -> None:
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def _remove_import_hook() -> None:
    while _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
