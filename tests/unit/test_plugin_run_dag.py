"""run_dag and the plugin fixtures against a real Airflow (dag.test) and the real OpenLineage provider."""

from __future__ import annotations

import importlib.util
import os
import tempfile
from pathlib import Path
from typing import Any

import pendulum
import pytest

from lineage_operators.testing import assert_events_match, matchers
from lineage_operators.testing import run_dag as plain_run_dag

DAGS = Path(__file__).parent / "harness_fixtures" / "dags"


def _load_dag(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"harness_fixture_{name}", DAGS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.dag


def test_failing_task_gives_fail_events_and_failed_state(run_dag: Any) -> None:
    result = run_dag(_load_dag("failing_dag"))

    assert result.state == "failed"
    assert not result.succeeded
    assert result.task_states == {"explode": "failed"}
    in_csv = [{"namespace": "file", "name": "/data/in.csv"}]
    assert_events_match(
        result,
        {
            "harness.failing.event.start": {
                "eventType": "START",
                "run": {"runId": matchers.uuid(capture="dag")},
            },
            "harness.failing.explode.event.start": {"inputs": in_csv},
            "harness.failing.explode.event.fail": {
                "inputs": in_csv,
                "run": {"facets": {"parent": {"run": {"runId": matchers.uuid(capture="dag")}}}},
            },
            "harness.failing.event.fail": {"run": {"runId": matchers.uuid(capture="dag")}},
        },
        allow_extra_keys=False,
    )


def test_expect_state_raises_with_the_failed_task_its_exception_and_log(run_dag: Any) -> None:
    with pytest.raises(AssertionError, match=r"ended 'failed', expected 'success'.*explode") as info:
        run_dag(_load_dag("failing_dag"), expect_state="success")
    message = str(info.value)
    assert "task 'explode' failed" in message
    assert "exception: boom" in message  # the provider's errorMessage facet
    assert 'raise ValueError("boom")' in message  # the traceback from the task's log
    assert "ValueError: boom" in message
    assert "last log lines:" in message
    assert "Post Execute" in message or "Task instance state updated" in message


def test_run_dag_outside_the_fixture_creates_and_removes_its_own_home(tmp_path: Path) -> None:
    from lineage_operators.testing.airflow_home import active_home

    before = os.environ.get("AIRFLOW_HOME")
    result = plain_run_dag(_load_dag("hook_lineage_dag"), events_path=tmp_path / "ev.jsonl")
    assert result.succeeded
    assert active_home() is None
    assert os.environ.get("AIRFLOW_HOME") == before
    assert not any(Path(tempfile.gettempdir()).glob("lineage-airflow-*")), "temporary home left behind"


def test_hook_lineage_does_not_leak_from_one_task_to_the_next(run_dag: Any) -> None:
    """dag.test() runs every task in this process; production runs each in a fresh one."""
    result = run_dag(_load_dag("hook_lineage_dag"))

    assert result.state == "success"
    assert_events_match(
        result,
        {
            "harness.hooks.producer.event.complete": {
                "inputs": [{"namespace": "file", "name": "/hook/in.csv"}]
            },
            "harness.hooks.consumer.event.complete": {"inputs": []},
        },
    )


def test_runs_in_one_test_are_kept_apart(run_dag: Any, lineage_transport: Any) -> None:
    first = run_dag(_load_dag("failing_dag"), logical_date=pendulum.datetime(2024, 3, 1, tz="UTC"))
    second = run_dag(_load_dag("hook_lineage_dag"), namespace="other")

    assert all(key.startswith("harness.failing.") for key in first)
    assert all(key.startswith("harness.hooks.") for key in second)
    assert first["harness.failing.event.fail"][0]["job"]["namespace"] == "default"
    assert second["harness.hooks.event.complete"][0]["job"]["namespace"] == "other"
    nominal = first["harness.failing.event.start"][0]["run"]["facets"]["nominalTime"]
    assert nominal["nominalStartTime"].startswith("2024-03-01T00:00:00")
    assert set(lineage_transport.events()) == set(first) | set(second)


def test_plain_function_with_a_whole_dags_folder(airflow_db: str, tmp_path: Path) -> None:
    result = plain_run_dag(_load_dag("hook_lineage_dag"), dags_folder=DAGS, events_path=tmp_path / "ev.jsonl")

    assert result.succeeded
    assert result.events_path == tmp_path / "ev.jsonl"
    assert "harness.hooks.event.complete" in result


def test_dag_not_defined_at_module_level_gets_a_clear_error(run_dag: Any) -> None:
    from airflow.providers.standard.operators.python import PythonOperator
    from airflow.sdk import DAG

    with DAG("harness.inline", schedule=None, start_date=pendulum.datetime(2024, 1, 1)) as dag:
        PythonOperator(task_id="t", python_callable=lambda: None)

    with pytest.raises(RuntimeError, match="module level"):
        run_dag(dag)
