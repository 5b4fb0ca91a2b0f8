"""`make demo`: run example_dags/file_pipeline.py through real Airflow, local Spark and the real
OpenLineage listener (FileTransport), then say where the events went and what each task touched.

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
    os.environ["LINEAGE_EXAMPLE_BASE_DIR"] = str(DEMO_DIR / "data")
    return DEMO_DIR / "events" / "events.jsonl"


def load_dag() -> Any:
    spec = importlib.util.spec_from_file_location("example_file_pipeline", DAG_FILE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.dag


def describe(dataset: dict[str, Any]) -> str:
    namespace, name = dataset["namespace"], dataset["name"]
    return f"{namespace}://{name}" if namespace == "file" else f"{namespace}/{name.lstrip('/')}"


def summarise(events: dict[str, list[dict[str, Any]]], events_path: Path, state: str) -> str:
    total = sum(len(emitted) for emitted in events.values())
    lines = ["", f"DAG run: {state}", f"OpenLineage events: {total}, written to {events_path}", ""]
    for key, emitted in events.items():
        final = emitted[-1]
        if final["eventType"] not in ("COMPLETE", "FAIL") or "airflow" not in final["run"].get("facets", {}):
            continue  # only the final event of each task: DAG-level events carry airflowDagRun
        inputs = ", ".join(describe(d) for d in final.get("inputs", [])) or "(nothing)"
        outputs = ", ".join(describe(d) for d in final.get("outputs", [])) or "(nothing)"
        lines += [f"{key}", f"    read:  {inputs}", f"    wrote: {outputs}"]
    return "\n".join(lines)


def main() -> int:
    events_path = prepare_environment()
    from lineage_operators.testing import run_dag

    result = run_dag(load_dag(), events_path=events_path, dags_folder=DAG_FILE.parent, namespace=NAMESPACE)
    print(summarise(result, events_path, result.state))
    return 0 if result.succeeded else 1


if __name__ == "__main__":
    sys.exit(main())
