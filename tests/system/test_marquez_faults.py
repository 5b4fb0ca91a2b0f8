"""Marquez stopped, failing and slow while a DAG runs (tests/system/dags_marquez/marquez_faults.py), with
the provider's HTTP transport set as docs/backends.md says for a backend that may be down.

One run goes through every fault, a Spark task in each: Marquez stopped before the first task and
started again mid-DAG; Marquez up with its PostgreSQL stopped (it cannot store: it answers errors);
Marquez slow (a proxy holds each request 0.5 s, under the transport's 1 s timeout). Every task
succeeds, the run takes at most the provider's ``execution_timeout`` longer per lost event than the
same run with Marquez healthy (besides the time the tasks wait for the states they ask for), the file
transport (beside the HTTP one) has every event, and Marquez holds exactly the events sent while it
could store them: the delivery guarantee (at most once; an event is not kept to be sent again) that
docs/guarantees.md states.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.support.marquez import MarquezServer
from tests.support.postgres import PostgresServer
from tests.support.slow_proxy import SlowProxy, slow_proxy
from tests.system.conftest import load_dag_file
from tests.system.test_fault_matrix import readme_backend_down_settings

from lineage_operators.testing import runner
from lineage_operators.testing.backend import MarquezSource

DAG_FILE = Path(__file__).parent / "dags_marquez" / "marquez_faults.py"
DAG_ID = "marquez_faults"
TASKS = ("while_down", "bring_back", "break_database", "while_failing", "make_slow", "while_slow")
#: The events each fault meets, in the order the DAG emits them.
LOST = {
    ("START", DAG_ID),  # Marquez stopped
    ("START", f"{DAG_ID}.while_down"),
    ("COMPLETE", f"{DAG_ID}.while_down"),
    ("START", f"{DAG_ID}.bring_back"),
    ("COMPLETE", f"{DAG_ID}.break_database"),  # its database stopped
    ("START", f"{DAG_ID}.while_failing"),
    ("COMPLETE", f"{DAG_ID}.while_failing"),
    ("START", f"{DAG_ID}.make_slow"),
}


class Faults:
    """Does what the DAG's tasks ask for (a file per request in the data folder), on a thread."""

    def __init__(self, marquez: MarquezServer, proxy: SlowProxy, folder: Path) -> None:
        self.marquez, self.proxy, self.folder = marquez, proxy, folder
        self.actions: dict[str, Callable[[], None]] = {
            "bring_back": marquez.start_server,
            "break_database": self._database().pause,
            "make_slow": self._slow,
        }
        self.ran: list[str] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="marquez-faults", daemon=True)

    def _database(self) -> PostgresServer:
        assert self.marquez.database is not None
        return self.marquez.database

    def _slow(self) -> None:
        self._database().resume()
        self.proxy.delay = 0.5

    def _watch(self) -> None:
        while len(self.ran) < len(self.actions) and not self.done.is_set():
            for state in [s for s in self.actions if s not in self.ran and (self.folder / s).exists()]:
                self.actions[state]()
                self.ran.append(state)
            time.sleep(0.1)

    def heal(self) -> None:
        """Whatever the run left broken, back to healthy: the session's other tests use this Marquez."""
        self.done.set()
        self.thread.join(30)
        self.proxy.delay = 0.0
        if "break_database" in self.ran and "make_slow" not in self.ran:
            self._database().resume()
        if "bring_back" not in self.ran:
            self.marquez.start_server()


@pytest.fixture
def readme_settings(marquez: MarquezServer, monkeypatch: pytest.MonkeyPatch) -> dict:
    """docs/backends.md's settings for a backend that may be down, with run_dag's HTTP transport."""
    execution_timeout, transport = readme_backend_down_settings()
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__EXECUTION_TIMEOUT", execution_timeout)
    _with_readme_transport(monkeypatch, transport)
    monkeypatch.setenv("LINEAGE_TEST_MARQUEZ_URL", marquez.url)  # where the DAG's tasks probe it
    return {"execution_timeout": float(execution_timeout), "transport": transport}


def _with_readme_transport(monkeypatch: pytest.MonkeyPatch, transport: dict) -> None:
    """run_dag's file transport and, beside it, the HTTP transport with the README's timeout and retries."""
    make = runner.transport_env

    def transport_env(*args, **kwargs):  # type: ignore[no-untyped-def]
        env = make(*args, **kwargs)
        settings = json.loads(env["AIRFLOW__OPENLINEAGE__TRANSPORT"])
        backend = settings["transports"]["backend"]
        settings["transports"]["backend"] = {**transport, **backend}
        env["AIRFLOW__OPENLINEAGE__TRANSPORT"] = json.dumps(settings)
        return env

    monkeypatch.setattr(runner, "transport_env", transport_env)


def _stored(marquez: MarquezServer, namespace: str) -> list[tuple[str, str]]:
    source = MarquezSource(marquez.url)
    return sorted(
        (e["eventType"], e["job"]["name"]) for e in source.events() if e["job"]["namespace"] == namespace
    )


def test_marquez_down_failing_and_slow_costs_tasks_nothing_and_loses_only_what_it_could_not_store(
    *,
    marquez: MarquezServer,
    run_dag,
    base_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    readme_settings: dict,
    caplog: pytest.LogCaptureFixture,
) -> None:
    faults_folder = base_dir / "faults"
    with slow_proxy(marquez.url) as proxy:
        healthy_namespace = f"faults_healthy_{uuid.uuid4().hex[:8]}"
        started = time.monotonic()
        healthy = run_dag(load_dag_file(DAG_FILE), namespace=healthy_namespace, backend=proxy.url)
        healthy_s = time.monotonic() - started
        assert set(healthy.task_states.values()) == {"success"}, healthy.failures
        assert set(_stored(marquez, healthy_namespace)) == _keys(healthy), "the healthy run must land whole"

        namespace = f"faults_{uuid.uuid4().hex[:8]}"
        monkeypatch.setenv("LINEAGE_TEST_FAULTS", "1")  # the tasks ask for the faults now
        faults = Faults(marquez, proxy, faults_folder)
        faults.thread.start()
        marquez.stop_server()
        caplog.set_level(logging.INFO)
        try:
            started = time.monotonic()
            result = run_dag(load_dag_file(DAG_FILE), namespace=namespace, backend=proxy.url)
            elapsed = time.monotonic() - started
        finally:
            faults.heal()
    assert result.task_states == dict.fromkeys(TASKS, "success"), result.failures
    sent = _keys(result)
    assert sent >= LOST  # the file transport has every event
    assert set(_stored(marquez, namespace)) == sent - LOST
    # each lost event costs the run at most the provider's execution_timeout; the tasks' waits for
    # the states they asked for (Marquez restarting, a probe timing out) are the test's own time
    waited = sum(float(path.read_text()) for path in faults_folder.glob("*.waited"))
    assert len(list(faults_folder.glob("*.waited"))) == len(faults.actions)
    print(f"faults: the run took {elapsed:.1f} s ({waited:.1f} s waiting), {healthy_s:.1f} s healthy")
    bound = healthy_s + waited + len(LOST) * readme_settings["execution_timeout"]
    assert elapsed <= bound, (elapsed, healthy_s, waited)
    ours = [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.WARNING and "lineage_operators" in r.name
    ]
    assert ours == [], ours
    for record in caplog.records:
        if "emit" in record.getMessage().lower() and record.levelno >= logging.WARNING:
            print("LOST-LOG", record.name, record.levelname, record.getMessage()[:300])


def _keys(result: dict) -> set[tuple[str, str]]:
    return {(e["eventType"], e["job"]["name"]) for events in result.values() for e in events}
