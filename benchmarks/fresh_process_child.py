"""One small task in a fresh process, for the fresh-process benchmark; prints one JSON line.

Run as ``python -m benchmarks.fresh_process_child SIDE WORK_DIR``. Everything a real task process
pays is inside the measured time: the interpreter's start, the imports (Airflow, the operator and
this library, pyspark), the JVM's start, the capture's one-time set-up (JVM-side functions,
compiled classes) and the job, through the side's operator (:mod:`benchmarks.sides`) with the
lineage call on the library side. The wall time is taken from the process's creation time.

Both sides are task processes of a deployment with OpenLineage enabled, as in the memory benchmark
(:func:`benchmarks.memory_child.load_task_process_plugins`): each loads the provider's plugin and
client, which Airflow's task runner loads into every task process; the lineage side also loads this
package's capture plugin. So the lineage side's extra time is this library's: its imports beyond
the provider's, its plugin, the capture and its one-time set-up.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

RESULT_PREFIX = "FRESH_PROCESS_RESULT "


def small_job(spark, base_dir: str) -> int:  # type: ignore[no-untyped-def]
    """Read two small Parquet tables, join, aggregate, write: the issue's small job."""
    from pyspark.sql import functions as F

    orders, customers, out = (f"{base_dir}/{name}" for name in ("orders", "customers", "totals"))
    spark.range(2000).selectExpr("id", "id % 50 AS customer", "CAST(id AS DOUBLE) AS amount").write.mode(
        "overwrite"
    ).parquet(orders)
    spark.range(50).selectExpr("id AS customer", "concat('c', id) AS name").write.mode("overwrite").parquet(
        customers
    )
    joined = spark.read.parquet(orders).join(spark.read.parquet(customers), "customer")
    joined.groupBy("name").agg(F.sum("amount").alias("total")).write.mode("overwrite").parquet(out)
    return int(spark.read.parquet(out).count())


def main(argv: list[str]) -> None:
    side, work_dir = argv[0], Path(argv[1])
    from benchmarks.environment import configure_process_environment

    configure_process_environment()
    started = time.perf_counter()
    from benchmarks.memory_child import load_task_process_plugins
    from benchmarks.sides import LINEAGE, run_side

    load_task_process_plugins(side)
    imported = time.perf_counter()
    probe = None
    if side == LINEAGE:  # where the capture's time goes (wrapping costs microseconds per call)
        from benchmarks.probe import CaptureProbe

        probe = CaptureProbe()
        probe.install()
    outcome = run_side(
        side,
        "bench_fresh_process",
        small_job,
        {"base_dir": str(work_dir / "data")},
        warehouse_dir=str(work_dir / "warehouse"),
    )
    import psutil

    wall = time.time() - psutil.Process().create_time()
    report = {
        "side": side,
        "process_seconds": wall,
        "task_seconds": outcome.seconds,
        "import_seconds": imported - started,
        "facets_seconds": outcome.facets_seconds,
    }
    if probe is not None:
        captured = probe.report()
        costs = probe.execution_costs.costs()
        report["capture"] = {
            "busy_seconds": captured.busy_seconds,
            "lifecycle_seconds": captured.lifecycle_seconds,
            "seconds_by_method": captured.seconds_by_method,
            "first_read_ms": costs[0].ms if costs else None,
            "first_read_round_trips": costs[0].round_trips if costs else None,
            "reads_ms": [c.ms for c in costs],
        }
    print(RESULT_PREFIX + json.dumps(report), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
