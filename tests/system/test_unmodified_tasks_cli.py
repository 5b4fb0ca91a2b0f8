"""``airflow dags test`` in a subprocess, as a user runs it: tasks in their own task-runner
process, only configuration added, the real provider forking its extractor child."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from tests.system.conftest import EXTRACTOR, dataset_ids, final_event

from lineage_operators.testing import load_events, validate_events
from lineage_operators.testing.runner import transport_env

DAGS = Path(__file__).parent / "dags"


def _airflow(python: Path, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python.parent / "airflow"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


#: python -> an ``airflow db migrate``-d SQLite database of its environment, made once per pytest process
#: and copied into each new Airflow home (a migration costs ~10 s of CPU; the copy none).
_MIGRATED: dict[Path, Path] = {}


def _migrated_database(python: Path, env: dict[str, str], home: Path) -> None:
    """``home/airflow.db``: a copy of ``python``'s migrated database, migrated on the first call."""
    template = _MIGRATED.get(python)
    if template is None:
        folder = Path(tempfile.mkdtemp(prefix="airflow-db-template-"))
        atexit.register(shutil.rmtree, folder, True)
        template = folder / "airflow.db"
        migrating = {
            **env,
            "AIRFLOW_HOME": str(folder),
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{template}",
        }
        migrated = _airflow(python, ["db", "migrate"], migrating)
        assert migrated.returncode == 0, migrated.stderr[-3000:]
        _MIGRATED[python] = template
    home.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, home / "airflow.db")


def airflow_dags_test(
    python: Path,
    dag_id: str,
    tmp_path: Path,
    base_dir: Path,
    *,
    harness: bool = False,
    dag_files: tuple[Path, ...] = (),
    airflow_env: dict[str, str] | None = None,
    backend: str | None = None,
) -> dict[str, Any]:
    """A migrated database + ``airflow dags test`` (or, with ``harness``, the harness's ``run_dag``,
    i.e. ``dag.test()``) in ``python``'s environment, only configuration added; the events (also sent
    to ``backend``'s HTTP API when given).
    The output is kept in ``tmp_path / "airflow-dags-test.log"``."""
    home, dags = tmp_path / "home", tmp_path / "dags"
    dags.mkdir(parents=True)
    for source in dag_files or (DAGS / "unmodified_tasks.py", DAGS / f"{dag_id}.py"):
        if not (dags / source.name).exists():
            (dags / source.name).symlink_to(source)
    events_path = tmp_path / "events.jsonl"
    env = {key: value for key, value in os.environ.items() if not key.startswith("AIRFLOW")}
    env.update(
        {
            "AIRFLOW_HOME": str(home),
            "AIRFLOW__CORE__DAGS_FOLDER": str(dags),
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{home / 'airflow.db'}",
            "AIRFLOW__OPENLINEAGE__EXTRACTORS": EXTRACTOR,
            "LINEAGE_EXAMPLE_BASE_DIR": str(base_dir),
        }
    )
    env.update({k: v for k, v in transport_env(events_path, backend=backend).items() if v is not None})
    env.update(airflow_env or {})

    _migrated_database(python, env, home)
    if harness:
        ran = subprocess.run(
            [str(python), str(Path(__file__).parent / "run_dag_test_in_env.py"), dag_id, str(events_path)],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        assert "DAG_STATE success" in ran.stdout, ran.stdout[-3000:] + ran.stderr[-3000:]
    else:
        ran = _airflow(python, ["dags", "test", dag_id, "2026-01-01"], env)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    (tmp_path / "airflow-dags-test.log").write_text(ran.stdout + ran.stderr)  # for a failing assert below
    events = load_events(events_path)
    validate_events(events)
    return events


def assert_same_lineage_as_the_operator(
    events: dict[str, Any], dag_id: str, task_ids: list[str], base_dir: Path
):
    ours = final_event(events, dag_id, "lineage_operator")
    assert dataset_ids(ours["outputs"]) == [
        ("file", f"{base_dir}/marts/customer_totals"),
        ("file", f"{base_dir}/raw/orders"),
    ]
    for task_id in task_ids:
        event = final_event(events, dag_id, task_id)
        assert event["outputs"] == ours["outputs"], task_id
        assert event["inputs"] == ours["inputs"], task_id
        assert event["job"]["facets"].get("sql") == ours["job"]["facets"].get("sql"), task_id
        assert (
            event["run"]["facets"]["spark_processingEngine"]
            == ours["run"]["facets"]["spark_processingEngine"]
        )


def test_airflow_dags_test_reports_spark_lineage_of_unmodified_tasks(tmp_path: Path, base_dir: Path):
    events = airflow_dags_test(Path(sys.executable), "unmodified_tasks", tmp_path, base_dir)
    assert_same_lineage_as_the_operator(events, "unmodified_tasks", ["python_operator", "taskflow"], base_dir)
    assert "sourceCode" in final_event(events, "unmodified_tasks", "python_operator")["job"]["facets"]


def test_unmodified_task_pyspark_in_an_environment_with_airflows_spark_provider(
    tmp_path: Path, base_dir: Path
):
    """``@task.pyspark`` needs apache-airflow-providers-apache-spark, whose ``pyspark-client``
    dependency overwrites pyspark: it runs in its own environment (``make spark-provider-env``), through
    ``airflow dags test`` (the harness's dag.test() of unmodified tasks is
    tests/system/test_unmodified_tasks.py; only the pyspark package differs here)."""
    python = os.environ.get("LINEAGE_SPARK_PROVIDER_PYTHON")
    if not python:
        pytest.fail(
            "LINEAGE_SPARK_PROVIDER_PYTHON is not set: run the suite with `make test`, which builds the "
            "environment with Airflow's Spark provider"
        )
    events = airflow_dags_test(Path(python), "unmodified_pyspark", tmp_path, base_dir)
    assert_same_lineage_as_the_operator(events, "unmodified_pyspark", ["provider_pyspark"], base_dir)
    event = final_event(events, "unmodified_pyspark", "provider_pyspark")
    assert "unknownSourceAttribute" not in event["run"]["facets"]
    written = {f"file://{base_dir}/{name}" for name in ("raw/orders", "marts/customer_totals")}
    assert {(uri, "provider_pyspark") for uri in written} <= asset_events(tmp_path / "home")


def asset_events(home: Path) -> set[tuple[str, str]]:
    """(asset URI, source task) of every asset event in the metadata DB ``airflow dags test`` used."""
    with contextlib.closing(sqlite3.connect(home / "airflow.db")) as db:
        rows = db.execute(
            "SELECT a.uri, e.source_task_id FROM asset_event e JOIN asset a ON a.id = e.asset_id"
        )
        return set(rows.fetchall())


@pytest.mark.parametrize("harness", [False, True], ids=["airflow_dags_test", "dag_test"])
def test_a_session_opened_when_the_dag_file_is_parsed_survives_the_providers_forks(
    tmp_path: Path, base_dir: Path, harness: bool
):
    """The session exists before the first task, so the provider's first forked emitter inherits
    its py4j connection; the task's Spark calls must neither log a reset nor lose lineage."""
    dag_file = Path(__file__).parent / "dags_module_session" / "module_session.py"
    events = airflow_dags_test(
        Path(sys.executable), "module_session", tmp_path, base_dir, harness=harness, dag_files=(dag_file,)
    )
    output = (tmp_path / "airflow-dags-test.log").read_text()
    for noise in ("Traceback", "ConnectionResetError", "Py4JNetworkError", "Error while sending"):
        assert noise not in output, f"{noise!r} in the output of airflow dags test:\n{output[-6000:]}"
    for task_id in ("first", "second", "operator"):
        event = final_event(events, "module_session", task_id)
        assert dataset_ids(event["outputs"]) == [("file", f"{base_dir}/module/{task_id}")], task_id
