"""Asset events for unmodified tasks that declare an ``AssetAlias`` outlet.

Airflow's task runner serialises ``context["outlet_events"]`` into the success message before the
listener's success hook runs, so events added there arrive too late. The last point where a task
can still add them is its ``post_execute``, which the runner calls after ``execute`` with the
same outlet-event accessors. The plugin's running hook therefore gives the task instance being
run (Airflow's own per-run copy of the operator) an instance-level ``post_execute`` that finishes
capture, adds one event per written dataset to each alias, then calls the operator's own
``post_execute``. The finishing hooks take it away again. Only tasks that are captured and have an
alias outlet are touched; nothing here raises into the task.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from types import MethodType
from typing import Any

from lineage_operators._logging import get_logger

log = get_logger(__name__)

METHOD = "post_execute"
#: Set on our instance-level ``post_execute`` so that only ours is ever removed.
_MARKER = "__lineage_operators_outlets__"


def install(task: Any, aliases: list[Any], finish: Callable[[], Any], task_label: str) -> bool:
    """Give ``task`` (this run's operator copy) a ``post_execute`` that turns what ``finish()``
    returns (a ``CaptureResult`` or ``None``) into asset events on ``aliases``."""
    if not aliases or task is None or _ours(task):
        return False
    original = getattr(task, METHOD)

    def add_events(context: Any) -> None:
        from lineage_operators.assets import add_asset_events

        try:
            result = finish()
            if result is not None:
                added = add_asset_events(context["outlet_events"], aliases, result.outputs, task_label)
                log.info("Task %s: %d asset event(s) from Spark outputs", task_label, added * len(aliases))
        except Exception as error:
            log.warning("Task %s: asset events from Spark capture failed: %s", task_label, error)

    if inspect.isgeneratorfunction(original):  # the runner drains a generator post_execute

        def post_execute_gen(self: Any, context: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
            add_events(context)
            return (yield from original(context, *args, **kwargs))

        method = post_execute_gen
    else:

        def post_execute(self: Any, context: Any, *args: Any, **kwargs: Any) -> Any:
            add_events(context)
            return original(context, *args, **kwargs)

        method = post_execute  # type: ignore[assignment]
    setattr(method, _MARKER, True)
    # object.__setattr__: an instance attribute, past BaseOperator's own attribute bookkeeping
    object.__setattr__(task, METHOD, MethodType(method, task))
    return True


def restore(task: Any) -> bool:
    """Remove our ``post_execute`` from ``task``; ``True`` when it was there."""
    if task is None or not _ours(task):
        return False
    try:
        object.__delattr__(task, METHOD)
    except AttributeError:
        return False
    return True


def _ours(task: Any) -> bool:
    attributes = getattr(task, "__dict__", {})
    method = attributes.get(METHOD)
    return getattr(getattr(method, "__func__", None), _MARKER, False)
