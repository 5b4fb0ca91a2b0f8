"""Time the lineage capture from the outside, without touching its code.

Where ``ExecutionReader.java`` cannot be compiled, the capture registers a py4j
``QueryExecutionListener``: Spark calls its ``onSuccess`` / ``onFailure`` on the listener-bus
thread, asynchronously, while the task's own thread goes on.
The probe wraps, on their classes, ``SparkLineageCapture.start/stop/snapshot`` and the callbacks
of every listener class it can find (module-level classes of ``lineage_operators`` that define
them, and the objects a started capture holds), and records each call as a wall-clock interval.

Where executions are queued JVM-side (no callbacks), the work each execution costs runs on the
capture's reader thread: JVM-side in the call that takes it from the queue, then in
``PlanReader.read``: the probe times that call from the start of the JVM-side read (which the reply
reports), with the py4j round trips of each read (:mod:`benchmarks.execution_costs`).

``busy_seconds`` is the length of the union of those intervals: the wall time during which any
capture code was running (callbacks, reads, start/stop). Summing them would count twice the time
``stop()`` spends waiting for a callback still running (it drains the listener bus), and nested
calls.
"""

from __future__ import annotations

import functools
import importlib
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from benchmarks.execution_costs import ExecutionCostProbe, distribution, summary

CAPTURE_MODULE = "lineage_operators.spark.capture.classic"
CAPTURE_CLASS = "SparkLineageCapture"
LIFECYCLE_METHODS = ("start", "stop", "snapshot")
CALLBACK_METHODS = ("onSuccess", "onFailure")
READ_METHOD = "PlanReader.read"
_MARK = "__benchmark_probe_original__"
# Counters ``CaptureResult`` may carry about the capture itself; reported when present.
RESULT_COUNTERS = ("executions", "capture_ms", "complete")


@dataclass
class Interval:
    method: str
    started: float
    ended: float
    thread: str


@dataclass
class ProbeReport:
    """What one run's capture cost: busy wall time, per-method sums and call counts."""

    busy_seconds: float
    #: Union of ``start``/``stop``/``snapshot`` intervals: capture time on the task's own thread.
    lifecycle_seconds: float = 0.0
    seconds_by_method: dict[str, float] = field(default_factory=dict)
    calls_by_method: dict[str, int] = field(default_factory=dict)
    callback_threads: list[str] = field(default_factory=list)
    capture_results: list[dict[str, Any]] = field(default_factory=list)
    #: Listener callbacks on Spark's listener-bus thread (ms each): median / p90 / max / sum.
    callback_ms: dict[str, float] = field(default_factory=dict)
    #: Per-execution processing on the reader thread, writes and other executions apart: ms and
    #: py4j round trips, median / p90 / max / sum (:func:`benchmarks.execution_costs.distribution`).
    executions: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "callback_ms": self.callback_ms,
            "executions": self.executions,
            "busy_seconds": self.busy_seconds,
            "lifecycle_seconds": self.lifecycle_seconds,
            "seconds_by_method": self.seconds_by_method,
            "calls_by_method": self.calls_by_method,
            "callback_threads": self.callback_threads,
            "capture_results": self.capture_results,
        }


def _jvm_read_seconds(args: tuple[Any, ...], kwargs: dict[str, Any]) -> float:
    """The JVM-side read a ``PlanReader.read`` call was given (its ``reply``), in seconds: it ran
    on the same thread right before the call, in the call that took the execution from the queue."""
    for value in (*args, *kwargs.values()):
        jvm_ms = getattr(value, "jvm_ms", None)
        if isinstance(jvm_ms, float):
            return jvm_ms / 1000
    return 0.0


def capture_available() -> bool:
    """True once ``SparkLineageCapture`` exists (it is being written alongside these benchmarks)."""
    try:
        module = importlib.import_module(CAPTURE_MODULE)
    except Exception:
        return False
    return isinstance(getattr(module, CAPTURE_CLASS, None), type)


class CaptureProbe:
    """Install around a block with ``with probe.installed():``; ``reset()`` between runs."""

    def __init__(self, profiler_factory: Callable[[], Any] | None = None) -> None:
        self._intervals: list[Interval] = []
        self._lock = threading.Lock()
        self._patched: list[tuple[type, str, bool, Any]] = []
        self._results: list[dict[str, Any]] = []
        self._profiler_factory = profiler_factory
        self._profiling = threading.local()
        self.profiles: list[Any] = []
        self.execution_costs = ExecutionCostProbe()

    # -- installation --------------------------------------------------------------------------

    @contextmanager
    def installed(self) -> Iterator[bool]:
        """Yields whether the capture exists; always restores the original methods."""
        available = self.install()
        try:
            yield available
        finally:
            self.uninstall()

    def install(self) -> bool:
        if not capture_available():
            return False
        capture_class = getattr(sys.modules[CAPTURE_MODULE], CAPTURE_CLASS)
        self._wrap(capture_class, "start", after=self._discover_from)
        self._wrap(capture_class, "stop", after=self._remember_result)
        self._wrap(capture_class, "snapshot")
        self._discover_listener_classes()
        self.execution_costs.install()
        reader_class = getattr(
            importlib.import_module("lineage_operators.spark.plan.reader"), "PlanReader", None
        )
        if isinstance(reader_class, type):
            self._wrap(reader_class, "read")
        return True

    def uninstall(self) -> None:
        for owner, name, owned, original in reversed(self._patched):
            if owned:
                setattr(owner, name, original)
            else:
                delattr(owner, name)
        self._patched.clear()
        self.execution_costs.uninstall()  # after: the read wrapped above wraps its wrapper

    def _discover_listener_classes(self) -> None:
        for module_name, module in list(sys.modules.items()):
            if not module_name.startswith("lineage_operators") or module is None:
                continue
            for value in list(vars(module).values()):
                if isinstance(value, type) and value.__module__ == module_name:
                    self._wrap_callbacks(value)

    def _remember_result(self, capture: Any, result: Any) -> None:
        """Keep the counters the capture reports about itself (executions, its own callback time)."""
        with self._lock:
            self._results.append(
                {name: getattr(result, name) for name in RESULT_COUNTERS if hasattr(result, name)}
            )

    def _discover_from(self, capture: Any, result: Any) -> None:
        """After ``start()``: wrap listener classes imported lazily, or held by the capture object."""
        self._discover_listener_classes()
        for value in _attribute_values(capture):
            if hasattr(value, CALLBACK_METHODS[0]) or hasattr(value, CALLBACK_METHODS[1]):
                self._wrap_callbacks(type(value))

    def _wrap_callbacks(self, cls: type) -> None:
        for name in CALLBACK_METHODS:
            if name in cls.__dict__ and callable(cls.__dict__[name]):
                self._wrap(cls, name)

    def _wrap(self, cls: type, name: str, after: Callable[[Any, Any], None] | None = None) -> None:
        original = getattr(cls, name, None)
        if original is None or not callable(original) or hasattr(original, _MARK):
            return
        probe = self
        method = f"{cls.__name__}.{name}"

        @functools.wraps(original)
        def timed(instance: Any, *args: Any, **kwargs: Any) -> Any:
            with probe._timing(method, _jvm_read_seconds(args, kwargs)):
                result = original(instance, *args, **kwargs)
            if after is not None:
                after(instance, result)
            return result

        setattr(timed, _MARK, original)
        self._patched.append((cls, name, name in cls.__dict__, cls.__dict__.get(name)))
        setattr(cls, name, timed)

    # -- measuring -----------------------------------------------------------------------------

    @contextmanager
    def _timing(self, method: str, earlier_s: float = 0.0) -> Iterator[None]:
        """``earlier_s``: work the call stands for that ran just before it (a JVM-side read)."""
        profiler = self._start_profiler()
        started = time.perf_counter() - earlier_s
        try:
            yield
        finally:
            ended = time.perf_counter()
            if profiler is not None:
                self._stop_profiler(profiler)
            with self._lock:
                self._intervals.append(Interval(method, started, ended, threading.current_thread().name))

    def _start_profiler(self) -> Any:
        if self._profiler_factory is None or getattr(self._profiling, "active", False):
            return None
        profiler = self._profiler_factory()
        self._profiling.active = True
        profiler.start()
        return profiler

    def _stop_profiler(self, profiler: Any) -> None:
        try:
            session = profiler.stop()
        finally:
            self._profiling.active = False
        with self._lock:
            self.profiles.append(session)

    def reset(self) -> None:
        with self._lock:
            self._intervals.clear()
            self._results.clear()
        self.execution_costs.reset()

    def report(self) -> ProbeReport:
        with self._lock:
            intervals = list(self._intervals)
            results = list(self._results)
        seconds: dict[str, float] = {}
        calls: Counter[str] = Counter()
        threads: set[str] = set()
        for interval in intervals:
            seconds[interval.method] = seconds.get(interval.method, 0.0) + interval.ended - interval.started
            calls[interval.method] += 1
            if interval.method.endswith(CALLBACK_METHODS):
                threads.add(interval.thread)
        return ProbeReport(
            busy_seconds=union_length((i.started, i.ended) for i in intervals),
            lifecycle_seconds=union_length(
                (i.started, i.ended)
                for i in intervals
                if not i.method.endswith(CALLBACK_METHODS) and i.method != READ_METHOD
            ),
            seconds_by_method=seconds,
            calls_by_method=dict(calls),
            callback_threads=sorted(threads),
            capture_results=results,
            callback_ms=summary(
                [(i.ended - i.started) * 1000 for i in intervals if i.method.endswith(CALLBACK_METHODS)]
            ),
            executions=distribution(self.execution_costs.costs()),
        )


def union_length(intervals: Iterable[tuple[float, float]]) -> float:
    """Total length covered by possibly overlapping ``(start, end)`` intervals."""
    total = 0.0
    current_start = current_end = None
    for start, end in sorted(intervals):
        if current_end is None or start > current_end:
            if current_end is not None and current_start is not None:
                total += current_end - current_start
            current_start, current_end = start, end
        else:
            current_end = max(current_end, end)
    if current_end is not None and current_start is not None:
        total += current_end - current_start
    return total


def _attribute_values(instance: Any) -> list[Any]:
    values = list(getattr(instance, "__dict__", {}).values())
    for slot in getattr(type(instance), "__slots__", ()):
        if hasattr(instance, slot):
            values.append(getattr(instance, slot))
    return values
