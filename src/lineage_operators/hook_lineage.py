"""Fallback where no extractor is configured: captured datasets go to Airflow's hook-lineage
collector, which the OpenLineage provider reads for any task (datasets only, no facets).

The collector is one per process and Airflow never empties it: in a task's own process that is
harmless, but ``dag.test()`` and ``airflow dags test`` run every task in one process, and what one
task put there would reach the events of every later task. So the plugin reports through the
collector only where it is the channel (no extractor of this package handles the task), and
withdraws exactly what it added once the provider has emitted the task's final event
(:func:`withdraw`). Airflow has no public API to remove collected assets: the withdrawal touches the
collector's dictionaries, guarded, and does nothing where they look different.
"""

from __future__ import annotations

import threading
from typing import Any

from lineage_operators._logging import get_logger
from lineage_operators.assets import asset_uri

log = get_logger(__name__)

_lock = threading.Lock()
#: task key -> (collector, {("_inputs"|"_outputs", entry id): times added})
Counts = dict[tuple[str, str], int]
_reported: dict[Any, tuple[Any, Counts]] = {}

_SIDES = (("_inputs", "_input_counts"), ("_outputs", "_output_counts"))


def report_to_hook_lineage(result: Any, context: Any, task_label: str, key: Any = None) -> None:
    """Add the captured inputs and outputs to the collector, each once; never raises.

    ``key``: the task instance's key, to :func:`withdraw` them after the task's events.
    """
    try:
        from airflow.sdk.lineage import get_hook_lineage_collector

        collector = get_hook_lineage_collector()
        before = _counts(collector)
        for datasets, add in (
            (result.inputs, collector.add_input_asset),
            (result.outputs, collector.add_output_asset),
        ):
            for uri in dict.fromkeys(asset_uri(d.namespace, d.name) for d in datasets):
                if uri is not None:
                    add(context=context, uri=uri)
        if key is not None:
            added = _added(before, _counts(collector))
            if added:
                with _lock:
                    _reported[key] = (collector, added)
    except Exception as error:
        log.warning("Task %s: hook lineage from Spark capture failed: %s", task_label, error)


def withdraw(key: Any) -> None:
    """Remove from the collector what :func:`report_to_hook_lineage` added for ``key``; never raises."""
    with _lock:
        reported = _reported.pop(key, None)
    if reported is None:
        return
    collector, added = reported
    try:
        for (side, entry), times in added.items():
            entries = getattr(collector, side)
            counts = getattr(collector, dict(_SIDES)[side])
            left = counts.get(entry, 0) - times
            if left > 0:
                counts[entry] = left
            else:
                entries.pop(entry, None)
                counts.pop(entry, None)
    except Exception as error:
        log.warning("Hook lineage of a finished task could not be withdrawn: %s", error)


def _counts(collector: Any) -> Counts:
    """Pure read: how often each collected entry was added (empty where the collector differs)."""
    counts: Counts = {}
    for side, count_side in _SIDES:
        entries = getattr(collector, side, None)
        numbers = getattr(collector, count_side, None)
        if not isinstance(entries, dict) or not isinstance(numbers, dict):
            return {}
        for entry in entries:
            counts[(side, entry)] = int(numbers.get(entry, 0))
    return counts


def _added(
    before: dict[tuple[str, str], int], after: dict[tuple[str, str], int]
) -> dict[tuple[str, str], int]:
    """Pure: the entries (and times) added between two :func:`_counts`."""
    return {key: count - before.get(key, 0) for key, count in after.items() if count > before.get(key, 0)}
