"""A task whose lineage recording raises still succeeds, and its COMPLETE event is still emitted
with what Spark captured."""

from __future__ import annotations

from pathlib import Path

from tests.system.conftest import dataset_ids, final_event, load_dag_file

DAGS = Path(__file__).parent / "dags"


def test_recording_errors_never_fail_the_task(run_dag, base_dir: Path, caplog):
    result = run_dag(load_dag_file(DAGS / "robustness.py"))
    assert result.task_states == {"careless": "success"}
    complete = final_event(result, "robustness", "careless")
    assert complete["eventType"] == "COMPLETE"
    assert dataset_ids(complete["outputs"]) == [("file", f"{base_dir}/careless")]
    assert complete["inputs"] == []
    warnings = " ".join(r.getMessage() for r in caplog.records if r.levelname == "WARNING")
    assert "bug in a platform team's lineage hook" in warnings
    assert "relative/path/is/not/a/dataset" in warnings
