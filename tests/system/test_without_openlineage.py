"""The operator runs, and its tasks succeed, where the OpenLineage packages are not installed."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).parent

pytestmark = pytest.mark.system


def test_tasks_succeed_in_an_environment_without_openlineage(tmp_path):
    python = os.environ.get("LINEAGE_SPARK_ONLY_PYTHON")
    if not python:
        pytest.fail(
            "LINEAGE_SPARK_ONLY_PYTHON is not set: run the suite with `make test`, which builds "
            "the `.[spark]`-only environment"
        )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "OPENLINEAGE", "PYTEST"))}
    env.update(
        AIRFLOW_HOME=str(tmp_path / "airflow"),
        AIRFLOW__CORE__DAGS_FOLDER=str(HERE / "dags_without_openlineage"),
        AIRFLOW__CORE__LOAD_EXAMPLES="False",
        SPARK_ONLY_OUTPUT=str(tmp_path / "out"),
    )
    result = subprocess.run(
        [python, str(HERE / "run_without_openlineage.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("REPORT ")]
    output = result.stdout[-3000:] + result.stderr[-3000:]
    assert result.returncode == 0, output
    assert lines, output
    report = json.loads(lines[-1].removeprefix("REPORT "))
    assert report["dag_state"] == "success"
    assert report["task_states"] == {"subclass": "success", "callable": "success"}
    assert report["on_start"] is None
    assert report["on_complete"] is None
    assert report["on_failure"] is None
    assert report["outputs"] == ["by_callable", "by_subclass"]
    assert report["ol_modules"] == []
