"""run_dag and the plugin fixtures against a real Airflow (dag.test) and the real OpenLineage provider."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
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


def test_run_dag_outside_pytest_creates_and_removes_its_own_home(tmp_path: Path) -> None:
    """A script calling run_dag with AIRFLOW_HOME set: that home is untouched, nothing left in TMPDIR."""
    real_home = tmp_path / "real-home"
    real_home.mkdir()
    (real_home / "airflow.cfg").write_text(
        f"[database]\nsql_alchemy_conn = sqlite:///{real_home / 'airflow.db'}\n"
    )
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    script = (
        "from lineage_operators.testing import load_dag, run_dag\n"
        f"result = run_dag(load_dag({str(DAGS / 'hook_lineage_dag.py')!r}))\n"
        "assert result.succeeded, result.failures\n"
        "print('KEYS', sorted(result))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "PYTEST"))}
    env.update(AIRFLOW_HOME=str(real_home), TMPDIR=str(scratch))
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600, check=False
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert "harness.hooks.event.complete" in done.stdout
    assert f"AIRFLOW_HOME={real_home} is not touched" in output
    # load_dag imported Airflow with the shell's home (Airflow itself makes logs/ there); run_dag never
    # created nor migrated a database in it
    assert not any(p.name.startswith("airflow.db") for p in real_home.iterdir())
    assert list(scratch.iterdir()) == []


def test_hook_lineage_is_read_even_where_plugins_loaded_before_openlineage_was_configured(
    run_dag: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A suite that loaded Airflow's plugins before any run configured OpenLineage (the provider's
    plugin then registers no hook-lineage reader, and Airflow's collector drops every asset): the run
    still reports the hook lineage, on the task that collected it only."""
    from airflow.sdk import plugins_manager

    monkeypatch.setattr(plugins_manager, "get_hook_lineage_readers_plugins", lambda: [])
    result = run_dag(_load_dag("hook_lineage_dag"))

    assert result.succeeded, result.failures
    producer = result["harness.hooks.producer.event.complete"][-1]
    consumer = result["harness.hooks.consumer.event.complete"][-1]
    assert [(d["namespace"], d["name"]) for d in producer["inputs"]] == [("file", "/hook/in.csv")]
    assert consumer["inputs"] == []
    assert plugins_manager.get_hook_lineage_readers_plugins() == []  # the suite's state, as it was


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


def test_each_run_names_its_own_namespace_in_the_parent_facet_too(run_dag: Any) -> None:
    """The provider evaluates the parent facet's namespace once, at import: a second run in another
    namespace in the same process must not name the first one's (the harness binds it per run)."""
    for namespace in ("first_namespace", "second_namespace"):
        result = run_dag(_load_dag("failing_dag"), namespace=namespace)
        (event,) = result["harness.failing.explode.event.fail"]
        assert event["job"]["namespace"] == namespace
        parent = event["run"]["facets"]["parent"]["job"]
        assert (parent["namespace"], parent["name"]) == (namespace, "harness.failing")
        assert event["run"]["facets"]["parent"]["root"]["job"]["namespace"] == namespace
