"""Listener hooks, in the task's process: arm capture before ``execute``, finish it after.

The finishing hooks run ``tryfirst`` so that capture is complete before the OpenLineage
provider's own hooks fork the child that calls extractors. A task with an ``AssetAlias`` outlet
has capture finished earlier, in its ``post_execute`` (:mod:`lineage_operators.plugin.outlets`),
while its asset events can still be added. For tasks that are not configured the hooks cost one
set look-up.

The plugin loads in every Airflow process, so the modules its hooks use (the automatic capture, fork
safety, assets, hook lineage) are imported inside the hooks, by the tasks that need them: an unarmed
task imports nothing of ``lineage_operators.spark`` (tests/unit/test_capture_plugin.py), and whether
the automatic capture was ever imported is how a task's end knows it was armed.
"""

from __future__ import annotations

import sys
from typing import Any

import pluggy

from lineage_operators._logging import get_logger
from lineage_operators.plugin import outlets, settings, store

log = get_logger(__name__)

#: Airflow's listener hooks are pluggy hooks of the project "airflow" (``airflow.listeners.hookimpl``).
hookimpl = pluggy.HookimplMarker("airflow")


class ForkGuardListener:
    """Runs before the OpenLineage provider's hooks, for every DAG run and task.

    The provider forks an emitter per event; a Spark session the process opened before (a module
    global of the DAG file, parsed by ``dag.test()`` or the task runner) would have its py4j
    connection reset by the first child (:mod:`lineage_operators.spark.session.fork_safety`), and py4j
    would log the reset with tracebacks. Costs a dictionary look-up where py4j is not loaded.
    """

    @hookimpl(tryfirst=True)
    def on_dag_run_running(self, dag_run: Any, msg: str) -> None:
        _protect_py4j_connections(getattr(dag_run, "dag_id", "?"))

    @hookimpl(tryfirst=True)
    def on_task_instance_running(self, previous_state: Any, task_instance: Any) -> None:
        _protect_py4j_connections(_label(task_instance))


def _protect_py4j_connections(label: str) -> None:
    if "py4j.clientserver" not in sys.modules and "py4j.java_gateway" not in sys.modules:
        return
    try:
        from lineage_operators.spark.session import protect_py4j_connections_from_forks

        protect_py4j_connections_from_forks()
    except Exception as error:
        log.warning("%s: py4j connections not protected from forks: %s", label, error)


class TaskCaptureListener:
    """Registered by :class:`~lineage_operators.plugin.LineageCapturePlugin`."""

    @hookimpl
    def on_task_instance_running(self, previous_state: Any, task_instance: Any) -> None:
        try:
            if _task_type(task_instance) not in settings.configured_operators():
                return
            from lineage_operators.spark.capture import automatic

            automatic.arm(_label(task_instance))
            _emit_assets_after_execute(task_instance)
        except Exception as error:
            log.warning("Task %s: Spark lineage capture not armed: %s", _label(task_instance), error)

    @hookimpl(tryfirst=True)
    def on_task_instance_success(self, previous_state: Any, task_instance: Any) -> None:
        _finish(task_instance)

    @hookimpl(tryfirst=True)
    def on_task_instance_failed(self, previous_state: Any, task_instance: Any, error: Any = None) -> None:
        _finish(task_instance)

    @hookimpl(tryfirst=True)
    def on_task_instance_skipped(self, previous_state: Any, task_instance: Any) -> None:
        """A task that skips itself (``AirflowSkipException``) also leaves capture armed otherwise."""
        _finish(task_instance)


def _emit_assets_after_execute(task_instance: Any) -> None:
    from lineage_operators.assets import asset_aliases

    task = getattr(task_instance, "task", None)
    aliases = asset_aliases(getattr(task, "outlets", None))
    if aliases:
        outlets.install(task, aliases, lambda: _finish_capture(task_instance), _label(task_instance))


def _finish_capture(task_instance: Any) -> Any:
    """Stop capture and keep its result for the extractor; ``None`` when nothing was captured."""
    from lineage_operators.spark.capture import automatic

    result = automatic.finish()
    store.put(task_instance, result)
    return result


def _finish(task_instance: Any) -> None:
    had_outlets_hook = outlets.restore(getattr(task_instance, "task", None))
    # Arming imports capture.automatic: a process that never armed it (every task when the plugin is
    # not configured) has nothing to finish and is spared its import (~1 ms) at each task's end.
    auto_capture = sys.modules.get("lineage_operators.spark.capture.automatic")
    armed = auto_capture is not None and auto_capture.is_armed()
    if not armed and not had_outlets_hook:
        return
    try:
        result = _finish_capture(task_instance) if armed else store.get(task_instance)
        if result is not None and not settings.extractor_configured():
            # the collector is the channel only where no extractor of ours reports the task
            from lineage_operators.hook_lineage import report_to_hook_lineage

            task = getattr(task_instance, "task", None)
            report_to_hook_lineage(result, task, _label(task_instance), store.task_key(task_instance))
    except Exception as error:
        log.warning("Task %s: Spark lineage capture failed: %s", _label(task_instance), error)


class TaskCleanupListener:
    """Runs after every other listener (the provider's included) once a task ended: what the
    plugin kept for the task's events (the stored result, hook lineage it reported) is removed,
    so the next task of the same process (``dag.test()``, ``airflow dags test``) starts clean."""

    @hookimpl(trylast=True)
    def on_task_instance_success(self, previous_state: Any, task_instance: Any) -> None:
        _clean_up(task_instance)

    @hookimpl(trylast=True)
    def on_task_instance_failed(self, previous_state: Any, task_instance: Any, error: Any = None) -> None:
        _clean_up(task_instance)

    @hookimpl(trylast=True)
    def on_task_instance_skipped(self, previous_state: Any, task_instance: Any) -> None:
        _clean_up(task_instance)


def _clean_up(task_instance: Any) -> None:
    if "lineage_operators.hook_lineage" not in sys.modules and not store.holds(task_instance):
        return  # nothing was captured in this process: one look-up
    try:
        from lineage_operators.hook_lineage import withdraw

        withdraw(store.task_key(task_instance))
        store.drop(task_instance)
    except Exception as error:
        log.warning("Task %s: Spark lineage clean-up failed: %s", _label(task_instance), error)


def _task_type(task_instance: Any) -> str | None:
    task = getattr(task_instance, "task", None)
    return getattr(task, "task_type", None) or (type(task).__name__ if task is not None else None)


def _label(task_instance: Any) -> str:
    return f"{getattr(task_instance, 'dag_id', '?')}.{getattr(task_instance, 'task_id', '?')}"
