"""One task in its own process, for the memory benchmark; prints one JSON line.

Run as ``python -m benchmarks.memory_child SIDE WORK_DIR TABLES ROWS``. The task runs through the
side's operator exactly as in the overhead benchmark (:mod:`benchmarks.sides`). Afterwards, with
the JVM still up (pyspark keeps it until the interpreter exits), the child reads the kernel's
high-water mark of resident memory (``VmHWM``) for itself and every descendant: the driver's
Python and the Spark JVM. Their sum bounds the tree's peak from above without sampling.

The wall time since the process was created is reported too: a real task is a fresh process, so
it includes the imports, JVM start and one-time set-up the in-process benchmark amortizes away.
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
    from benchmarks.sides import run_side
    from benchmarks.task_workload import task_workload

    outcome = run_side(
        side,
        "bench_memory",
        task_workload,
        {"base_dir": str(work_dir / "data"), "tables": tables, "rows": rows},
        warehouse_dir=str(work_dir / "warehouse"),
    )
    import psutil

    wall = time.time() - psutil.Process().create_time()
    peaks = process_tree_peaks(os.getpid())
    report = {
        "side": side,
        "task_seconds": outcome.seconds,
        "process_seconds": wall,
        "peak_rss_bytes": sum(peaks.values()),
        "peaks_by_process": peaks,
    }
    print(RESULT_PREFIX + json.dumps(report), flush=True)


def process_tree_peaks(pid: int) -> dict[str, int]:
    """``VmHWM`` in bytes of ``pid`` and all its descendants, keyed ``"<pid> <name>"``."""
    import psutil

    root = psutil.Process(pid)
    peaks = {}
    for process in [root, *root.children(recursive=True)]:
        try:
            peaks[f"{process.pid} {process.name()}"] = vm_hwm_bytes(process.pid)
        except (OSError, psutil.Error):
            continue
    return peaks


def vm_hwm_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise OSError(f"no VmHWM for {pid}")


if __name__ == "__main__":
    main(sys.argv[1:])
