"""One process of the task-overhead benchmark: both sides alternating in one JVM; prints one JSON line.

Run as ``python -m benchmarks.task_overhead_child WORK_DIR ROUNDS WARMUP_ROUNDS TINY [FIRST_SIDE]``
(``TINY`` is ``1`` or ``0``; ``FIRST_SIDE``, ``plain`` by default, runs first in even rounds).
The parent (:mod:`benchmarks.task_overhead`) starts several of these and compares their figures:
see there why one process is not enough, and why the first side turns between them.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

RESULT_PREFIX = "TASK_OVERHEAD_RESULT "


def measure(
    work_dir: Path, rounds: int, warmup_rounds: int, tiny: bool, first_side: str = "plain"
) -> dict[str, Any]:
    """Alternate the sides in this process; per run, the seconds the parent's figures need."""
    from benchmarks import task_workload
    from benchmarks.alternation import alternate, progress
    from benchmarks.probe import CaptureProbe
    from benchmarks.sides import LINEAGE, SIDES, run_task_workload

    size = task_workload.TINY if tiny else task_workload.FULL
    probe = CaptureProbe()
    last: dict[str, Any] = {}
    with probe.installed() as capture_landed:
        if not capture_landed:
            progress("task_overhead: no SparkLineageCapture; the library side runs without capture")

        def one(side: str, number: int) -> dict[str, float]:
            run_dir = work_dir / f"{number}-{side}"
            probe.reset()
            try:
                outcome = run_task_workload(side, "bench_task_overhead", size, run_dir)
            finally:
                shutil.rmtree(run_dir, ignore_errors=True)
            measured = {"seconds": outcome.seconds, "facets_seconds": outcome.facets_seconds}
            if side == LINEAGE:
                capture = probe.report()
                measured |= {
                    "busy_seconds": capture.busy_seconds,
                    "lifecycle_seconds": capture.lifecycle_seconds,
                }
                last["capture"] = capture.as_json()
                last["datasets"] = _dataset_counts(outcome.lineage)
            return measured

        runs = alternate(
            "task_overhead",
            rounds,
            one,
            warmup_rounds=warmup_rounds,
            sides=SIDES if first_side == SIDES[0] else tuple(reversed(SIDES)),
            seconds_of=lambda measured: measured["seconds"],
        )
    return {
        "first_side": first_side,
        "capture_landed": capture_landed,
        "workload": {"tables": size.tables, "rows": size.rows, "spark_actions": size.actions},
        "runs": runs,
        "last_capture": last.get("capture"),
        "last_datasets": last.get("datasets"),
    }


def _dataset_counts(lineage: Any) -> dict[str, int]:
    if lineage is None:
        return {"inputs": 0, "outputs": 0}
    return {"inputs": len(lineage.inputs or []), "outputs": len(lineage.outputs or [])}


def main(argv: list[str]) -> None:
    from benchmarks.environment import configure_process_environment

    configure_process_environment()
    work_dir, rounds, warmup, tiny = Path(argv[0]), int(argv[1]), int(argv[2]), argv[3] == "1"
    first_side = argv[4] if len(argv) > 4 else "plain"
    if first_side not in ("plain", "lineage"):
        raise SystemExit(f"FIRST_SIDE must be plain or lineage, not {first_side!r}")
    report = measure(work_dir, rounds, warmup, tiny, first_side)
    print(RESULT_PREFIX + json.dumps(report), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
