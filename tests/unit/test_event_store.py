"""The event store an assertion task reads: what it keeps, per DAG run, from many processes, and the
OpenLineage transport that feeds it."""

from __future__ import annotations

import json
import logging
import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from lineage_operators.testing import event_store
from lineage_operators.testing.event_store import EventStore, RunRef, request_events, run_of

ASSERTION = "lineage_operators.testing.assertion.AssertLineageOperator"


@pytest.fixture(autouse=True)
def _no_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(event_store, "_requested", set())


def dag_event(dag_id: str, run_id: str, event_type: str, operators: tuple[str, ...] = ()) -> dict[str, Any]:
    tasks = {f"t{i}": {"operator": op} for i, op in enumerate(operators)}
    return {
        "eventType": event_type,
        "eventTime": "2026-01-01T00:00:00+00:00",
        "job": {"namespace": "default", "name": dag_id, "facets": {"airflow": {"tasks": tasks}}},
        "run": {
            "runId": "r",
            "facets": {
                "airflowDagRun": {"dag": {"dag_id": dag_id}, "dagRun": {"dag_id": dag_id, "run_id": run_id}}
            },
        },
    }


def task_event(dag_id: str, run_id: str, task_id: str, event_type: str, second: int = 1) -> dict[str, Any]:
    return {
        "eventType": event_type,
        "eventTime": f"2026-01-01T00:00:{second:02d}+00:00",
        "job": {"namespace": "default", "name": f"{dag_id}.{task_id}"},
        "run": {
            "runId": "t",
            "facets": {
                "airflow": {
                    "dag": {"dag_id": dag_id},
                    "dagRun": {"dag_id": dag_id, "run_id": run_id},
                    "task": {"task_id": task_id},
                }
            },
        },
    }


def test_run_of_reads_the_providers_airflow_facets():
    assert run_of(dag_event("d", "manual__1", "START")) == RunRef("d", "manual__1", dag_event=True)
    assert run_of(task_event("d.x", "r1", "t", "START")) == RunRef("d.x", "r1", dag_event=False)
    assert run_of({"eventType": "START", "job": {"name": "spark_job"}, "run": {"runId": "x"}}) is None
    assert run_of({"run": {"facets": {"airflow": {"dag": {"dag_id": "d"}, "dagRun": {}}}}}) is None


def test_only_runs_an_assertion_task_asked_for_are_kept(tmp_path: Path):
    store = EventStore(tmp_path)
    # nobody asked: nothing is written, not even a folder
    assert not store.handle(task_event("plain", "r1", "t", "START"))
    assert not store.handle(dag_event("plain", "r1", "START", operators=("x.PythonOperator",)))
    assert list(tmp_path.iterdir()) == []
    # the scheduler sees the assertion operator in the DAG START's task list
    assert store.handle(dag_event("checked", "r1", "START", operators=("x.PythonOperator", ASSERTION)))
    # a task process that parsed the DAG file knows it from the operator's registration
    assert not store.handle(task_event("checked", "r1", "t", "START"))
    request_events("checked")
    assert store.handle(task_event("checked", "r1", "t", "START"))
    assert sorted(store.events("checked", "r1")) == ["checked.event.start", "checked.t.event.start"]
    assert store.events("plain", "r1") == {}


def test_runs_are_kept_apart_and_deleted_when_they_end(tmp_path: Path):
    request_events("d")
    store = EventStore(tmp_path)
    for run_id in ("manual__2026-01-01T00:00:00+00:00", "manual__2026-01-02T00:00:00+00:00"):
        store.handle(dag_event("d", run_id, "START", operators=(ASSERTION,)))
        store.handle(task_event("d", run_id, "t", "START"))
    first, second = "manual__2026-01-01T00:00:00+00:00", "manual__2026-01-02T00:00:00+00:00"
    store.handle(task_event("d", first, "t", "COMPLETE", second=2))
    assert {k: len(v) for k, v in store.events("d", first).items()} == {
        "d.event.start": 1,
        "d.t.event.start": 1,
        "d.t.event.complete": 1,
    }
    assert "d.t.event.complete" not in store.events("d", second)
    # the DAG run's end removes that run only, and is itself not kept
    assert not store.handle(dag_event("d", first, "COMPLETE"))
    assert store.events("d", first) == {}
    assert not store.path_for("d", first).exists()
    assert set(store.events("d", second)) == {"d.event.start", "d.t.event.start"}
    store.handle(dag_event("d", second, "FAIL"))
    assert [p for p in tmp_path.rglob("*")] == []


def _write_many(directory: str, worker: int, count: int) -> None:
    request_events("d")
    store = EventStore(directory)
    for index in range(count):
        event = task_event("d", "r", f"task_{worker}", "RUNNING", second=index % 60)
        event["run"]["facets"]["padding"] = "x" * 20_000  # lines larger than a pipe buffer
        event["index"] = index
        store.handle(event)


def test_processes_writing_at_once_never_mix_lines(tmp_path: Path):
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_write_many, args=(str(tmp_path), w, 40)) for w in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(60)
        assert process.exitcode == 0
    events = EventStore(tmp_path).events("d", "r")
    assert {key: len(value) for key, value in events.items()} == {
        f"d.task_{w}.event.running": 40 for w in range(4)
    }


# --- the OpenLineage transport ----------------------------------------------------------------------


def _client_transport(config: dict[str, Any]) -> Any:
    from openlineage.client.transport import get_default_factory

    return get_default_factory().create(json.loads(json.dumps(config)))


def _run_event(dag_id: str, run_id: str) -> Any:
    from openlineage.client.event_v2 import Job, Run, RunEvent, RunState

    facets = {"airflow": {"dag": {"dag_id": dag_id}, "dagRun": {"dag_id": dag_id, "run_id": run_id}}}
    run = Run(runId="019b76da-a800-711e-9eac-faf9db95b822", facets=facets)  # type: ignore[arg-type]
    return RunEvent(
        eventType=RunState.START,
        eventTime="2026-01-01T00:00:00+00:00",
        run=run,
        job=Job(namespace="default", name=f"{dag_id}.t"),
        producer="test",
    )


def test_the_transport_is_configured_by_class_path_inside_a_composite(tmp_path: Path):
    from lineage_operators.testing.store_transport import EventStoreTransport, find_store_directory

    store_dir = tmp_path / "store"
    transport = _client_transport(
        {
            "type": "composite",
            "transports": {
                "file": {"type": "file", "log_file_path": str(tmp_path / "events.jsonl"), "append": True},
                "assertions": {
                    "type": "lineage_operators.testing.EventStoreTransport",
                    "directory": str(store_dir),
                },
            },
        }
    )
    assert find_store_directory(transport) == str(store_dir)
    assert find_store_directory(_client_transport({"type": "console"})) is None
    request_events("d")
    transport.emit(_run_event("d", "r1"))
    transport.emit(_run_event("other", "r1"))
    assert list(EventStore(store_dir).events("d", "r1")) == ["d.t.event.start"]
    assert not (store_dir / "other").exists()
    assert isinstance(transport.transports[1], EventStoreTransport)


def test_the_transport_needs_a_directory():
    with pytest.raises(ValueError, match="needs 'directory'"):
        _client_transport({"type": "lineage_operators.testing.EventStoreTransport"})


def test_a_store_that_cannot_write_warns_and_never_raises(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    transport = _client_transport(
        {"type": "lineage_operators.testing.EventStoreTransport", "directory": str(blocker)}
    )
    request_events("d")
    with caplog.at_level(logging.WARNING):
        transport.emit(_run_event("d", "r1"))
    assert "could not keep an OpenLineage event in" in caplog.text
