"""Run inside the `.[spark]`-only environment: no OpenLineage package may be importable."""

from __future__ import annotations

import importlib.util
import json
import os
import runpy
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def main() -> None:
    assert importlib.util.find_spec("openlineage") is None, "openlineage-python is installed"
    assert importlib.util.find_spec("airflow.providers.openlineage") is None, "OL provider is installed"
    subprocess.run([sys.executable, "-m", "airflow", "db", "migrate"], check=True, capture_output=True)
    dag = runpy.run_path(str(HERE / "dags_without_openlineage" / "spark_only.py"))["dag"]
    run = dag.test()
    states = {ti.task_id: str(ti.state) for ti in run.get_task_instances()}
    operator = dag.get_task("subclass")
    report = {
        "dag_state": str(run.state),
        "task_states": states,
        "on_start": operator.get_openlineage_facets_on_start(),
        "on_complete": operator.get_openlineage_facets_on_complete(None),
        "on_failure": operator.get_openlineage_facets_on_failure(None),
        "outputs": sorted(p.name for p in Path(os.environ["SPARK_ONLY_OUTPUT"]).iterdir()),
        "ol_modules": sorted(
            m for m in sys.modules if m.startswith(("openlineage", "airflow.providers.openlineage"))
        ),
    }
    print("REPORT " + json.dumps(report, default=str))


if __name__ == "__main__":
    main()
