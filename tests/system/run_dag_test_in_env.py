"""Run a DAG of tests/system/dags with the harness's ``run_dag`` (``dag.test()``) in another
environment (the one with Airflow's Spark provider); prints the events file's path.

``python run_dag_test_in_env.py DAG_ID EVENTS_PATH``; Airflow home, dags folder and OpenLineage
configuration come from the environment the caller sets.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from datetime import datetime, timezone
from pathlib import Path


def main(dag_id: str, events_path: str) -> None:
    from lineage_operators.testing.runner import run_dag

    dag_file = Path(os.environ["AIRFLOW__CORE__DAGS_FOLDER"]) / f"{dag_id}.py"
    sys.path.insert(0, str(dag_file.parent))
    spec = importlib.util.spec_from_file_location(dag_id, dag_file)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {dag_file}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = run_dag(
        module.dag,
        logical_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
        events_path=events_path,
        dags_folder=dag_file.parent,
    )
    print(f"DAG_STATE {result.state}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
