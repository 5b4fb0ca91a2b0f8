"""`make demo`: run example_dags/file_pipeline.py through real Airflow, local Spark and the real
OpenLineage listener (FileTransport), then say where the events went, what each task touched
(`lineage-operators summary`) and where the HTML view of the lineage is (`lineage-operators view`).

Everything it writes stays under .build/demo/ in the repository (ignored by git).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEMO_DIR = ROOT / ".build" / "demo"
DAG_FILE = ROOT / "example_dags" / "file_pipeline.py"
NAMESPACE = "lineage_operators_demo"


def prepare_environment() -> Path:
    """The DAG's data and the events go under .build/demo; Airflow itself runs in the temporary
    home run_dag creates and removes (never the shell's AIRFLOW_HOME)."""
    for stale in ("events", "data", "airflow"):
        shutil.rmtree(DEMO_DIR / stale, ignore_errors=True)
    os.environ.update(
        LINEAGE_EXAMPLE_BASE_DIR=str(DEMO_DIR / "data"),
        # A dead lineage backend must not slow tasks (docs/backends.md, backend down): the
        # provider waits at most this long per event. With an HTTP transport also give it
        # "timeout": 1, "retry": {"total": 1, "backoff_factor": 0}; the demo writes to a file instead.
        AIRFLOW__OPENLINEAGE__EXECUTION_TIMEOUT="3",
        AIRFLOW__LINEAGE_OPERATORS__CAPTURE_TIMEOUT="5",
    )
    return DEMO_DIR / "events" / "events.jsonl"


def load_dag() -> Any:
    spec = importlib.util.spec_from_file_location("example_file_pipeline", DAG_FILE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.dag


def main() -> int:
    events_path = prepare_environment()
    from lineage_operators.cli.main import main as lineage_operators
    from lineage_operators.testing import run_dag

    result = run_dag(load_dag(), events_path=events_path, dags_folder=DAG_FILE.parent, namespace=NAMESPACE)
    print(f"\nDAG run: {result.state}\nOpenLineage events written to {events_path}\n", flush=True)
    lineage_operators(["summary", str(events_path)])
    view = DEMO_DIR / "lineage.html"
    lineage_operators(
        ["view", str(events_path), "-o", str(view), "--title", "lineage: example_file_pipeline"]
    )
    print(f"\nOpen the lineage view in a browser: {view.as_uri()}")
    return 0 if result.succeeded else 1


if __name__ == "__main__":
    sys.exit(main())
