"""One task in its own process, for the memory benchmark; prints one JSON line.

Run as ``python -m benchmarks.memory_child SIDE WORK_DIR TABLES ROWS``. The task runs through the
side's operator exactly as in the overhead benchmark (:mod:`benchmarks.sides`). Afterwards, with
the JVM still up (pyspark keeps it until the interpreter exits), the child reads the kernel's
high-water mark of resident memory (``VmHWM``) for itself and every descendant: the driver's
Python and the Spark JVM. Their sum bounds the tree's peak from above without sampling.

The wall time since the process was created is reported too: a real task is a fresh process, so
it includes the imports, JVM start and one-time set-up the in-process benchmark amortizes away.

Both sides are task processes of the same deployment, one with OpenLineage enabled (the library
reports nothing otherwise): before its task, each loads the OpenLineage provider's plugin, whose
listener, adapter and client Airflow's task runner loads into every task process, a plain
``PythonOperator``'s included, and creates the client as the listener does for the task's START
event. The lineage side also loads this package's capture plugin, which Airflow loads in every task
process once the package is installed. The memory those take is reported (``VmRSS`` before and
after), so the comparison without the provider (the baseline before 2026-11-25) stays visible.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

RESULT_PREFIX = "MEMORY_RESULT "


def main(argv: list[str]) -> None:
    side, work_dir, tables, rows = argv[0], Path(argv[1]), int(argv[2]), int(argv[3])
    from benchmarks.environment import configure_process_environment

    configure_process_environment()
    # Airflow, the PythonOperator and pyspark first (both sides import them for the task anyway):
    # the memory measured next is the plugins' share alone.
    import airflow.providers.standard.operators.python  # noqa: F401
    import pyspark.sql  # noqa: F401

    from benchmarks.sides import run_task_workload
    from benchmarks.task_workload import TaskWorkloadSize

    before = vm_bytes("VmRSS", os.getpid())
    load_task_process_plugins(side)
    plugins_rss_bytes = vm_bytes("VmRSS", os.getpid()) - before

    outcome = run_task_workload(side, "bench_memory", TaskWorkloadSize(tables, rows), work_dir)
    import psutil

    wall = time.time() - psutil.Process().create_time()
    peaks = process_tree_peaks(os.getpid())
    report = {
        "side": side,
        "task_seconds": outcome.seconds,
        "process_seconds": wall,
        "peak_rss_bytes": sum(peaks.values()),
        "peaks_by_process": peaks,
        "plugins_rss_bytes": plugins_rss_bytes,
    }
    print(RESULT_PREFIX + json.dumps(report), flush=True)


def load_task_process_plugins(side: str) -> None:
    """What Airflow's task runner loads before a task in a deployment with OpenLineage enabled (see
    the module docstring): the provider's plugin (its module creates the listener) and the client."""
    from airflow.providers.openlineage.plugins.openlineage import OpenLineageProviderPlugin

    from benchmarks.sides import LINEAGE

    for listener in OpenLineageProviderPlugin.listeners:
        listener.adapter.get_or_create_openlineage_client()
    if side == LINEAGE:
        import lineage_operators.plugin  # noqa: F401  (the entry point Airflow loads)


def process_tree_peaks(pid: int) -> dict[str, int]:
    """``VmHWM`` in bytes of ``pid`` and all its descendants, keyed ``"<pid> <name>"``."""
    import psutil

    root = psutil.Process(pid)
    peaks = {}
    for process in [root, *root.children(recursive=True)]:
        try:
            peaks[f"{process.pid} {process.name()}"] = vm_bytes("VmHWM", process.pid)
        except (OSError, psutil.Error):
            continue
    return peaks


def vm_bytes(field: str, pid: int) -> int:
    """A memory field of ``/proc/<pid>/status`` (``VmHWM``: peak resident, ``VmRSS``: resident now)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    raise OSError(f"no {field} for {pid}")


if __name__ == "__main__":
    main(sys.argv[1:])
