"""CPU seconds per JVM thread group and py4j round trips per Python thread, for each side of a task.

``python -m benchmarks.thread_cpu [--rounds N] [--sides plain,lineage,no_ids]`` runs the
task-overhead workload (:mod:`benchmarks.task_workload`, full size) in this process, alternating
sides as ``task_overhead`` does, and prints one line per run, ``thread_cpu: `` and a JSON object:

* ``jvm_cpu``: user + system CPU of the driver JVM during the run (``/proc/<pid>/stat``, which
  keeps the time of threads that ended); ``groups``: the same per thread name with trailing
  numbers dropped (``C2 CompilerThre``, ``GC Thread``, ``spark-listener-`` ...). Threads that end
  during a run are counted from a 50 ms sampler, so a group may miss up to 50 ms.
* ``py_cpu``: this process's user + system CPU; ``trips``: py4j round trips per Python thread.
* side ``no_ids``: the library side without the ``ExecutionIds`` listener (Spark lines before
  4.2 register it; attribution then uses its time window for executions older than the capture).

Unlike a wall-clock ratio, these figures do not need a quiet machine: CPU seconds of one thread
group and round-trip counts hardly change when other processes share the cores. The first JVM
run is a warm-up and is not printed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import tempfile
import threading
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from benchmarks.environment import configure_process_environment

configure_process_environment()

from benchmarks import task_workload  # noqa: E402
from benchmarks.sides import LINEAGE, PLAIN, run_task_workload  # noqa: E402

NO_IDS = "no_ids"
TICKS = os.sysconf("SC_CLK_TCK")


def thread_cpu(pid: int) -> dict[int, tuple[str, float]]:
    """Thread id -> (name, user + system CPU seconds) of process ``pid``."""
    found = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as stat:
                text = stat.read()
        except OSError:
            continue  # the thread ended
        fields = text[text.rindex(")") + 2 :].split()
        found[int(tid)] = (
            text[text.index("(") + 1 : text.rindex(")")],
            (int(fields[11]) + int(fields[12])) / TICKS,
        )
    return found


def process_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        text = stat.read()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def descendants_cpu(pid: int) -> float:
    """CPU seconds of every live descendant of process ``pid`` (the Spark JVM a driver started, the
    Python workers that JVM started), each with its own ended children's; ``pid``'s own not included."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                text = stat.read()
        except OSError:
            continue  # the process ended
        parents[int(entry)] = int(text[text.rindex(")") + 2 :].split()[1])
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found.extend(children)
        frontier = children
    total = 0.0
    for child in found:
        try:
            with open(f"/proc/{child}/stat") as stat:
                text = stat.read()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        total += sum(int(value) for value in fields[11:15]) / TICKS  # utime stime cutime cstime
    return total


class ThreadSampler:
    """Keeps the last CPU time seen of every thread of the JVM, including threads that ended."""

    def __init__(self, pid: int, interval_s: float = 0.05) -> None:
        self.pid = pid
        self._last: dict[int, tuple[str, float]] = {}
        self._stop = threading.Event()
        self._interval = interval_s
        threading.Thread(target=self._run, name="thread-cpu-sampler", daemon=True).start()

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self.snapshot()

    def snapshot(self) -> dict[int, tuple[str, float]]:
        self._last.update(thread_cpu(self.pid))
        return dict(self._last)

    def close(self) -> None:
        self._stop.set()


def count_round_trips() -> Counter[str]:
    """Count py4j round trips (``send_command``) per Python thread name, numbers dropped."""
    from py4j import clientserver, java_gateway

    counts: Counter[str] = Counter()
    for cls in (clientserver.ClientServerConnection, java_gateway.GatewayConnection):
        original = cls.send_command

        def counted(self: Any, *args: Any, _original: Callable[..., Any] = original, **kwargs: Any) -> Any:
            counts[_group(threading.current_thread().name)] += 1
            return _original(self, *args, **kwargs)

        cls.send_command = counted  # type: ignore[method-assign]
    return counts


def _group(name: str) -> str:
    return re.sub(r"[#\-]?\d+( \(.*\))?$", "", name)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.thread_cpu", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sides", default=f"{PLAIN},{LINEAGE},{NO_IDS}")
    arguments = parser.parse_args(argv)
    from lineage_operators.spark.listen import execution_ids

    record_ids = execution_ids.start_recording
    trips = count_round_trips()
    size = task_workload.FULL
    scratch = tempfile.mkdtemp(prefix="thread-cpu-")
    sampler: ThreadSampler | None = None
    try:
        for number in range(arguments.rounds + 1):
            for side in arguments.sides.split(","):
                run_dir = f"{scratch}/{number}-{side}"
                execution_ids.start_recording = (lambda *_a, **_k: None) if side == NO_IDS else record_ids  # type: ignore[assignment]
                before = sampler.snapshot() if sampler else {}
                jvm_before = process_cpu(sampler.pid) if sampler else 0.0
                py_before, trips_before = os.times(), Counter(trips)
                run = run_task_workload(
                    PLAIN if side == PLAIN else LINEAGE, "bench_thread_cpu", size, run_dir
                )
                py_after = os.times()
                shutil.rmtree(run_dir, ignore_errors=True)
                if sampler is None:  # the JVM's first run: warm-up
                    from pyspark import SparkContext

                    jvm = SparkContext._jvm
                    assert jvm is not None
                    sampler = ThreadSampler(int(jvm.java.lang.ProcessHandle.current().pid()))
                    continue
                after = sampler.snapshot()
                groups: dict[str, float] = defaultdict(float)
                for tid, (name, seconds) in after.items():
                    groups[_group(name)] += seconds - before.get(tid, (name, 0.0))[1]
                line = {
                    "round": number,
                    "side": side,
                    "wall": round(run.seconds, 2),
                    "jvm_cpu": round(process_cpu(sampler.pid) - jvm_before, 2),
                    "py_cpu": round(py_after.user + py_after.system - py_before.user - py_before.system, 2),
                    "groups": {
                        k: round(v, 2) for k, v in sorted(groups.items(), key=lambda kv: -kv[1]) if v >= 0.02
                    },
                    "trips": dict(trips - trips_before),
                }
                print("thread_cpu:", json.dumps(line), flush=True)
    finally:
        execution_ids.start_recording = record_ids  # type: ignore[assignment]
        if sampler is not None:
            sampler.close()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
