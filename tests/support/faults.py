"""The test side of the data systems' fault tests: one DAG run (tests/support/fault_tasks.py's
``fault_dag``) in which our task and the same code without us run healthy, then each meets the same
fault, and what the test compares between them.

:class:`FaultWatcher` carries out what the tasks ask (a file per request) on a thread of the test.
:func:`side` reads one task's outcome back: its state, its final event, the classes of its error, the
seconds from its START to its final event and the seconds it waited for the fault (the test's doing, not
lineage's). :func:`assert_as_without_us` is issue 52's claim: same state, same error classes, and our task
no longer than the plain one beyond what the healthy pair of the same run cost us, plus a small bound.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

#: What our task may take beyond the plain one under a fault, besides what it took beyond it healthy:
#: the noise of two cores shared with other suites. A retry of an unreachable service costs more: the
#: faults' clients are set to give up after a few seconds each, and a retry of ours would pay that again.
BOUND_S = 4.0
#: And that share of the plain task's time, for the same noise on longer tasks.
BOUND_SHARE = 0.2
PEER_LISTENER = "io.openlineage.spark.agent.OpenLineageSparkListener"


def peer_listeners(spark: Any, class_name: str = PEER_LISTENER) -> int:
    """How many listeners of ``class_name`` the session's listener bus has.

    The suites' sessions carry openlineage-spark beside our capture, and a fault test keeps it on: while
    S3 is down its listener holds Spark's shared listener queue in S3A's retries
    (``LogicalRelationDatasetBuilder.isSingleFileRelation`` asks S3 whether a path is a file). Our capture
    waits only for the queues it reads (``listener.CAPTURE_QUEUES``); had it waited for the whole bus, its
    end would take ``capture_timeout`` longer than the plain task, which never waits for the bus."""
    bus = spark.sparkContext._jsc.sc().listenerBus()
    return sum(1 for listener in bus.listeners() if listener.getClass().getName() == class_name)


class FaultWatcher:
    """Runs ``actions[request]`` once when a task asks for it (the file ``folder/request`` appears)."""

    def __init__(self, folder: Path, actions: Mapping[str, Callable[[], None]]) -> None:
        self.folder, self.actions = folder, dict(actions)
        self.ran: list[str] = []
        self.errors: list[str] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="fault-watcher", daemon=True)

    def __enter__(self) -> FaultWatcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join(60)

    def _watch(self) -> None:
        while not self._done.is_set():
            for request in [r for r in self.actions if r not in self.ran and (self.folder / r).exists()]:
                self.ran.append(request)
                try:
                    self.actions[request]()
                except Exception as error:  # the task then times out waiting; the test says why
                    self.errors.append(f"{request}: {type(error).__name__}: {error}")
            time.sleep(0.05)


@dataclass
class Side:
    """One task's outcome in the run."""

    task_id: str
    state: str
    event: dict[str, Any]
    error: dict[str, Any] | None
    seconds: float
    waited: float

    @property
    def own_seconds(self) -> float:
        """The task's time less its waits for the fault."""
        return self.seconds - self.waited

    def datasets(self, kind: str) -> list[tuple[str, str]]:
        return sorted((d["namespace"], d["name"]) for d in self.event.get(kind, []))


def bus_settled(spark: Any) -> None:
    """Wait until ``spark``'s listener bus delivered everything (the jar's listener too, which asks S3 about
    each side's paths from the bus, later): resuming the service only then gives the jar's requests of
    each side the same dead service, so S3A's counters compare what the two tasks asked."""
    spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(120_000)


def side(result: Any, folder: Path, task_id: str, waits: tuple[str, ...] = ()) -> Side:
    """``task_id``'s outcome in ``result`` (a DagRunResult); ``waits``: the requests whose waits are its."""
    key = f"{result.dag_id}.{task_id}.event"
    final = [*result.get(f"{key}.complete", []), *result.get(f"{key}.fail", [])]
    assert len(final) == 1, f"{task_id}: {len(final)} final events; keys: {sorted(result)}\n{result.failures}"
    (start,) = result[f"{key}.start"]
    error_file = folder / f"{task_id}.error.json"
    return Side(
        task_id=task_id,
        state=result.task_states[task_id],
        event=final[0],
        error=json.loads(error_file.read_text()) if error_file.exists() else None,
        seconds=_seconds(start["eventTime"], final[0]["eventTime"]),
        waited=sum(_longest_wait(folder / f"{request}.waited") for request in waits),
    )


def _longest_wait(path: Path) -> float:
    """The longest of the waits written there: Spark's tasks wait in parallel, the task for the longest."""
    assert path.exists(), f"{path.name}: the task never waited for its fault"
    return max(float(line) for line in path.read_text().split())


def _seconds(start: str, end: str) -> float:
    def parse(text: str) -> datetime:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))

    return (parse(end) - parse(start)).total_seconds()


def assert_as_without_us(ours: Side, plain: Side, healthy: tuple[Side, Side]) -> None:
    """Same end, same error classes, and no time of ours beyond what the healthy pair cost us + the bound."""
    ours_healthy, plain_healthy = healthy
    assert (ours_healthy.state, plain_healthy.state) == ("success", "success"), healthy
    assert ours.state == plain.state, (ours, plain)
    assert _classes(ours.error) == _classes(plain.error), (ours.error, plain.error)
    overhead = max(ours_healthy.seconds - plain_healthy.seconds, 0.0)
    bound = plain.own_seconds + overhead + BOUND_S + BOUND_SHARE * plain.own_seconds
    print(
        f"{ours.task_id}: {ours.seconds:.1f} s ({ours.waited:.1f} s waiting for the fault), "
        f"{plain.task_id}: {plain.seconds:.1f} s ({plain.waited:.1f} s waiting); healthy: "
        f"{ours_healthy.seconds:.1f} s ours, {plain_healthy.seconds:.1f} s plain"
    )
    assert ours.own_seconds <= bound, (ours.own_seconds, plain.own_seconds, overhead, bound)


@dataclass(frozen=True)
class Outage:
    """The sides of one outage DAG run (tests/*/dags/*_faults.py): the healthy pair, then ours and plain
    each meeting the service stopped."""

    healthy: tuple[Side, Side]
    ours: Side
    plain: Side


def run_outage(
    run_dag: Callable[..., Any],
    dag: Any,
    spark: Any,
    folder: Path,
    *,
    service: str,
    server: Any,
    java_error: str,
) -> Outage:
    """Run ``dag`` with the jar's listener on ``spark``, halting ``server`` (a
    :class:`~tests.support.processes.ServerProcess`) when each side asks for ``<side>.halt_<service>`` and
    resuming it between them; check that plain failed with ``java_error`` and that ours ended as plain
    did, in no more time than the bound allows."""
    actions = {
        f"ours_stopped.halt_{service}": server.halt,
        f"resume_{service}": lambda: (bus_settled(spark), server.resume()),
        f"plain_stopped.halt_{service}": server.halt,
    }
    assert peer_listeners(spark) == 1  # the jar's listener is on the session throughout
    with FaultWatcher(folder, actions) as watcher:
        result = run_dag(dag)
    assert watcher.errors == []
    assert watcher.ran == list(actions), watcher.ran
    healthy = (side(result, folder, "ours_healthy"), side(result, folder, "plain_healthy"))
    ours = side(result, folder, "ours_stopped", waits=(f"ours_stopped.halt_{service}",))
    plain = side(result, folder, "plain_stopped", waits=(f"plain_stopped.halt_{service}",))
    assert plain.state == "failed", result.failures
    assert plain.error is not None
    assert plain.error["java"] == java_error, plain.error
    assert_as_without_us(ours, plain, healthy)
    return Outage(healthy, ours, plain)


def _classes(error: dict[str, Any] | None) -> tuple[Any, Any] | None:
    return None if error is None else (error["python"], error["java"])


def our_warnings(records: list[logging.LogRecord]) -> list[str]:
    """Our log lines at WARNING or above, and any of ours that speaks of trying again."""
    return [
        r.getMessage()
        for r in records
        if r.name.startswith("lineage_operators")
        and (
            r.levelno >= logging.WARNING
            or "retry" in r.getMessage().lower()
            or "retries" in r.getMessage().lower()
        )
    ]
