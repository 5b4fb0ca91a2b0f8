"""``airflow dags test`` in a subprocess, as a user runs it: tasks in their own task-runner
process, only configuration added, the real provider forking its extractor child."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.system.conftest import dataset_ids, final_event

from lineage_operators.testing import load_events, validate_events
from lineage_operators.testing.runner import HOME_MARKER_ENV_VAR, transport_env

DAG_FILE = Path(__file__).parent / "dags" / "unmodified_tasks.py"
EXTRACTOR = "lineage_operators.extractor.SparkCaptureExtractor"


def _airflow(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    airflow = Path(sys.executable).parent / "airflow"
    return subprocess.run(
        [str(airflow), *args], env=env, capture_output=True, text=True, timeout=900, check=False
    )


def test_airflow_dags_test_reports_spark_lineage_of_unmodified_tasks(tmp_path: Path, base_dir: Path):
    home, dags = tmp_path / "home", tmp_path / "dags"
    dags.mkdir(parents=True)
    (dags / DAG_FILE.name).symlink_to(DAG_FILE)
    events_path = tmp_path / "events.jsonl"
    env = {key: value for key, value in os.environ.items() if not key.startswith("AIRFLOW")}
    env.pop(HOME_MARKER_ENV_VAR, None)
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
    env.update({k: v for k, v in transport_env(events_path).items() if v is not None})

    migrated = _airflow(["db", "migrate"], env)
    assert migrated.returncode == 0, migrated.stderr[-3000:]
    ran = _airflow(["dags", "test", "unmodified_tasks", "2026-01-01"], env)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]

    events = load_events(events_path)
    validate_events(events)
    ours = final_event(events, "unmodified_tasks", "lineage_operator")
    assert dataset_ids(ours["outputs"]) == [
        ("file", f"{base_dir}/marts/customer_totals"),
        ("file", f"{base_dir}/raw/orders"),
    ]
    for task_id in ("python_operator", "taskflow"):
        event = final_event(events, "unmodified_tasks", task_id)
        assert event["outputs"] == ours["outputs"], task_id
        assert event["inputs"] == ours["inputs"], task_id
    assert "sourceCode" in final_event(events, "unmodified_tasks", "python_operator")["job"]["facets"]
