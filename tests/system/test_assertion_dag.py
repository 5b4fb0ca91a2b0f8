"""System tests as DAGs: a DAG's last task checks the lineage its Spark tasks emitted, against one of
Airflow's expected-event files used as it is.

The same DAG and file run twice over: through the pytest harness (``run_dag``, every task in this
process), then on a real deployment (Airflow's scheduler, its LocalExecutor running each task in a
process of its own, the events reaching the assertion tasks through the event store). There one
run's ``check_events`` passes while ``check_changed``, pointed at a changed expectation, fails and
says what differs in its log. The deployment also sends its events with the provider's HTTP transport
to a real Marquez on loopback (tests/support/marquez.py), and ``check_backend`` checks the same file
against what Marquez stored, read back from it.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from tests.support.airflow_scheduler import airflow_scheduler, trigger_run, wait_for_run
from tests.support.marquez import MarquezServer
from tests.system.conftest import LOGICAL_DATE, load_dag_file

from lineage_operators.testing import MarquezRun, assert_events_match_file, load_events, validate_events

DAGS = Path(__file__).parent / "dags_assertion"
EXPECTED = DAGS / "expected" / "lineage_assertion.json"
DAG_ID = "lineage_assertion"
TASKS = ("write_orders", "summarize", "check_events", "check_changed", "check_backend")
#: Two Spark task processes (a JVM each) and two checks, one after the other, on a loaded 2-core machine.
RUN_TIMEOUT = 420.0


@pytest.fixture
def assertion_dags(tmp_path: Path) -> Path:
    folder = tmp_path / "dags"
    folder.mkdir()
    (folder / "lineage_assertion.py").symlink_to(DAGS / "lineage_assertion.py")
    return folder


def _changed_expectation(folder: Path) -> Path:
    """The expected file with one value changed: write_orders wrote 3 rows, this says 4."""
    events = json.loads(EXPECTED.read_text())
    complete = next(
        e for e in events if e["job"]["name"] == f"{DAG_ID}.write_orders" and e["eventType"] == "COMPLETE"
    )
    complete["outputs"][0]["outputFacets"]["outputStatistics"]["rowCount"] = 4
    changed = folder / "changed.json"
    changed.write_text(json.dumps(events, indent=2))
    return changed


@pytest.mark.usefixtures("base_dir")
def test_assertion_task_checks_lineage_in_pytest_and_on_a_scheduler(
    run_dag, assertion_dags: Path, airflow_db: str, tmp_path: Path, marquez: MarquezServer
):
    # pytest: the assertion task passes inside dag.test(), and the harness reads the same file
    result = run_dag(
        load_dag_file(assertion_dags / "lineage_assertion.py"),
        logical_date=LOGICAL_DATE,
        dags_folder=assertion_dags,
    )
    assert result.task_states == dict.fromkeys(TASKS, "success"), result.failures
    validate_events(result)
    assert_events_match_file(result, EXPECTED)

    # a deployment: the scheduler runs the DAG; its second check is pointed at a changed expectation
    store = tmp_path / "event-store"
    events_file = tmp_path / "deployment-events.jsonl"
    changed = _changed_expectation(tmp_path)
    services = tmp_path / "services"
    conf = {"changed": str(changed), "backend": marquez.url}
    trigger_run(DAG_ID, "deployed", LOGICAL_DATE + timedelta(days=1), conf)
    transport = _transport(events_file, store, marquez.url)
    with airflow_scheduler(Path(airflow_db), assertion_dags, services, extra_env=transport):
        run = wait_for_run(DAG_ID, "deployed", RUN_TIMEOUT, services)
    stored = [
        (event["eventType"], event["job"]["name"])
        for found in MarquezRun(marquez.url, DAG_ID, "deployed").events().values()
        for event in found
    ]

    tasks = {t: "success" for t in ("write_orders", "summarize", "check_events", "check_backend")}
    assert run == {"state": "failed", "tasks": {**tasks, "check_changed": "failed"}}, run
    logs = Path(airflow_db) / "logs"
    passed = _task_log(logs, "deployed", "check_events")
    assert f"match {EXPECTED}" in passed, passed[-2000:]
    failed = _task_log(logs, "deployed", "check_changed")
    assert f"do not match Airflow expected-events file {changed}" in failed, failed[-3000:]
    where = "outputs[0].outputFacets.outputStatistics.rowCount: value differs"
    assert f"{DAG_ID}.write_orders.event.complete: {where}" in failed, failed[-3000:]
    assert "expected: 4" in failed, failed[-3000:]
    assert "actual:   3" in failed, failed[-3000:]
    from_backend = _task_log(logs, "deployed", "check_backend")
    assert f"(read from {marquez.url}) match {EXPECTED}" in from_backend, from_backend[-2000:]

    # each Spark task ran in a process of its own (its own Spark application); nothing stays stored
    deployed = load_events(events_file)
    apps = {
        event["run"]["facets"]["spark_applicationDetails"]["applicationId"]
        for task in ("write_orders", "summarize")
        for event in deployed[f"{DAG_ID}.{task}.event.complete"]
    }
    assert len(apps) == 2, apps
    (fail,) = deployed[f"{DAG_ID}.check_changed.event.fail"]
    assert where in fail["run"]["facets"]["errorMessage"]["message"]  # the difference in its FAIL event too
    assert [p for p in store.rglob("*") if p.is_file()] == []
    # Marquez stored every event the file did, through the provider's HTTP transport
    in_file = sorted((e["eventType"], e["job"]["name"]) for key in deployed for e in deployed[key])
    assert sorted(stored) == in_file


def _transport(events_file: Path, store: Path, backend: str) -> dict[str, str]:
    """A deployment's transports (a file and a backend over HTTP here) with the event store next to
    them, as the README shows."""
    transport = {
        "type": "composite",
        "transports": {
            "file": {"type": "file", "log_file_path": str(events_file), "append": True},
            "backend": {"type": "http", "url": backend, "endpoint": "api/v1/lineage", "timeout": 5},
            "assertions": {"type": "lineage_operators.testing.EventStoreTransport", "directory": str(store)},
        },
    }
    return {"AIRFLOW__OPENLINEAGE__TRANSPORT": json.dumps(transport)}


def _task_log(logs: Path, run_id: str, task_id: str) -> str:
    files = sorted(logs.glob(f"dag_id={DAG_ID}/run_id={run_id}/task_id={task_id}/attempt=*.log"))
    assert files, f"no log of {task_id} in run {run_id} under {logs}"
    return "\n".join(f.read_text() for f in files)
