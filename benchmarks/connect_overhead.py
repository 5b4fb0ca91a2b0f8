"""Benchmark: the same PySpark task over Spark Connect, capture on vs off, alternating in one run.

A real Spark Connect server (pyspark's own jars, 127.0.0.1, a free port) runs for the whole
benchmark. Both sides are ``LineageAwarePySparkOperator(master="sc://...")``, one with
``capture_lineage=False``; each side's time is ``execute`` plus ``get_openlineage_facets_on_complete``.
The workload is the overhead benchmark's task (``benchmarks.task_workload``) at a smaller size.
Figure: median capture-on time / median capture-off time; target <= 1.05.

The capture's own cost is measured inside each run too: the time on the task's thread in
``SparkConnectLineageCapture.start`` / ``stop`` (which waits for the plans still unresolved) and in
the interceptor's request hook, and the number of server round trips the capture made.
"""

from __future__ import annotations

import contextlib
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from benchmarks import task_workload
from benchmarks.alternation import alternate, median, progress, ratio
from benchmarks.figures import Figure, Target
from benchmarks.settings import Settings
from benchmarks.task_context import build_task, minimal_context

NAME = "connect_overhead"
DAG_ID = "bench_connect_overhead"
OFF, ON = "capture_off", "capture_on"
FULL_ROUNDS = 5
FULL = task_workload.TaskWorkloadSize(tables=4, rows=100_000)


def connect_job(spark: Any, base_dir: str, tables: int, rows: int) -> int:
    spark.sql("DROP TABLE IF EXISTS bench_ctas")  # the server's catalog outlives each run
    return task_workload.task_workload(spark, base_dir, tables, rows)


@dataclass
class CaptureClock:
    """Time spent in the capture's methods on the task's thread, and its server round trips."""

    seconds: float = 0.0
    server_calls: int = 0
    executions: int = 0
    _patched: list[tuple[Any, str, Any]] = field(default_factory=list)

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        from lineage_operators.spark.connect.capture import SparkConnectLineageCapture as Capture

        for name in ("start", "stop", "on_request"):
            original = getattr(Capture, name)
            setattr(Capture, name, self._timed(original, name == "stop"))
            self._patched.append((Capture, name, original))
        try:
            yield
        finally:
            for owner, name, original in reversed(self._patched):
                setattr(owner, name, original)
            self._patched.clear()

    def _timed(self, method: Callable[..., Any], is_stop: bool) -> Callable[..., Any]:
        clock = self

        def timed(capture: Any, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            result = None
            try:
                result = method(capture, *args, **kwargs)
                return result
            finally:
                clock.seconds += time.perf_counter() - started
                if is_stop and result is not None:
                    clock.server_calls += capture.server_calls
                    clock.executions += result.executions

        return timed

    def reset(self) -> None:
        self.seconds, self.server_calls, self.executions = 0.0, 0, 0


_LOOKUPS = ("schema", "input_files", "table", "describe", "current_database", "database_location")


@dataclass
class LookupClock:
    """Server round trips of the capture's lookups by kind: count and seconds (any thread).

    Cache hits are not counted. ``table_schema`` is an ``AnalyzePlan`` schema too (of a table).
    """

    seconds: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    _lock: Any = field(default_factory=threading.Lock)

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        from lineage_operators.spark.connect.server import ServerLookups

        originals = {name: getattr(ServerLookups, name) for name in _LOOKUPS}
        for name, original in originals.items():
            setattr(ServerLookups, name, self._timed(name, original))
        try:
            yield
        finally:
            for name, original in originals.items():
                setattr(ServerLookups, name, original)

    def _timed(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        clock = self

        def timed(lookups: Any, *args: Any, **kwargs: Any) -> Any:
            before, started = lookups.calls, time.perf_counter()
            try:
                return method(lookups, *args, **kwargs)
            finally:
                if lookups.calls > before:  # a round trip, not a cache hit
                    with clock._lock:
                        clock.seconds[name] = clock.seconds.get(name, 0.0) + time.perf_counter() - started
                        clock.counts[name] = clock.counts.get(name, 0) + lookups.calls - before

        return timed

    def take(self) -> dict[str, tuple[int, float]]:
        with self._lock:
            taken = {k: (self.counts[k], round(self.seconds[k], 3)) for k in self.counts}
            self.counts, self.seconds = {}, {}
        return taken


@dataclass
class Outcome:
    seconds: float
    capture_seconds: float
    server_calls: int
    executions: int
    outputs: int
    lookups: dict[str, tuple[int, float]] = field(default_factory=dict)


def _operator(url: str, capture: bool, job_kwargs: dict[str, Any]) -> Any:
    from lineage_operators import LineageAwarePySparkOperator

    return LineageAwarePySparkOperator(
        task_id="task", python_callable=connect_job, op_kwargs=job_kwargs, master=url, capture_lineage=capture
    )


def run(settings: Settings) -> list[Figure]:
    from tests.support.connect_server import ConnectServer

    size = task_workload.TINY if settings.tiny else FULL
    scratch = settings.scratch(NAME)
    clock = CaptureClock()
    lookups = LookupClock()
    server = ConnectServer().start()
    try:
        with clock.installed(), lookups.installed():

            def one(side: str, number: int) -> Outcome:
                run_dir = scratch / f"{number}-{side}"
                kwargs = {"base_dir": str(run_dir), "tables": size.tables, "rows": size.rows}
                task = build_task(DAG_ID, lambda: _operator(server.url, side == ON, kwargs))
                context = minimal_context(task)
                clock.reset()
                lookups.take()
                started = time.perf_counter()
                try:
                    task.execute(context)  # type: ignore[arg-type]
                    lineage = task.get_openlineage_facets_on_complete(context["ti"])  # type: ignore[attr-defined]
                finally:
                    shutil.rmtree(run_dir, ignore_errors=True)
                seconds = time.perf_counter() - started
                outputs = len(lineage.outputs or []) if lineage is not None else 0
                return Outcome(
                    seconds, clock.seconds, clock.server_calls, clock.executions, outputs, lookups.take()
                )

            runs = alternate(
                NAME,
                settings.rounds_or(FULL_ROUNDS),
                one,
                warmup_rounds=settings.warmup_rounds(),
                sides=(OFF, ON),
                seconds_of=lambda outcome: outcome.seconds,
            )
    finally:
        server.stop()
    return figures(runs, size)


def figures(runs: dict[str, list[Outcome]], size: task_workload.TaskWorkloadSize) -> list[Figure]:
    off = [o.seconds for o in runs[OFF]]
    on = [o.seconds for o in runs[ON]]
    capture = [o.capture_seconds for o in runs[ON]]
    last = runs[ON][-1]
    details: dict[str, Any] = {
        "workload": {"tables": size.tables, "rows": size.rows, "spark_actions": size.actions},
        "capture_off_seconds": off,
        "capture_on_seconds": on,
        "median_paired_ratio": median([ratio(b, a) for a, b in zip(off, on, strict=True)]),
        "capture_seconds": capture,
        "server_round_trips_per_task": last.server_calls,
        "executions_per_task": last.executions,
        "outputs_per_task": last.outputs,
        "lookups_per_task": {"by_kind (count, seconds)": last.lookups},
        "lookup_seconds_per_task": [round(sum(s for _, s in o.lookups.values()), 3) for o in runs[ON]],
    }
    overhead = Figure(f"{NAME}_ratio", ratio(median(on), median(off)), Target("<=", 1.05), details)
    share = Figure(
        f"{NAME}_capture_fraction",
        ratio(median(capture), median(on)),
        None,
        {
            "meaning": "time in the capture on the task's thread (start, request hook with its flushes, "
            "stop with the lookups still pending) over task time; finished actions are resolved on a "
            "worker thread beside the task"
        },
    )
    progress(f"{NAME}: {last.server_calls} server round trips for {last.executions} executions")
    progress(f"{NAME}: lookups of the last capture-on run (count, seconds): {last.lookups}")
    return [overhead, share]
