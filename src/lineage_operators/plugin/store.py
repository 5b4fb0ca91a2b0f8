"""What the plugin captured, per task instance, for the extractor to read.

The provider runs extractors in a child forked from the task process after our listener hook
finished: the child inherits this module's memory, so a plain dictionary is enough. In
``dag.test()`` every task runs in one process, hence the key; a task's entry is dropped once
every listener handled its end (:class:`~lineage_operators.plugin.listener.TaskCleanupListener`).
"""

from __future__ import annotations

from typing import Any

KEY_FIELDS = ("dag_id", "task_id", "run_id", "map_index", "try_number")
_results: dict[tuple[Any, ...], Any] = {}


def task_key(task_instance: Any) -> tuple[Any, ...]:
    return tuple(
        getattr(task_instance, name, None)
        for name in ("dag_id", "task_id", "run_id", "map_index", "try_number")
    )


def put(task_instance: Any, result: Any) -> None:
    _results[task_key(task_instance)] = result


def get(task_instance: Any) -> Any:
    """The ``CaptureResult`` of this task instance, or ``None``."""
    if task_instance is None:
        return None
    return _results.get(task_key(task_instance))


def holds(task_instance: Any) -> bool:
    return task_instance is not None and task_key(task_instance) in _results


def drop(task_instance: Any) -> None:
    if task_instance is not None:
        _results.pop(task_key(task_instance), None)
