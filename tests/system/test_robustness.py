"""A task whose lineage recording raises still succeeds, and its COMPLETE event is still emitted
with what Spark captured."""

from __future__ import annotations

import json
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


def test_spark_conf_carries_the_tasks_parent_job_information(run_dag, base_dir: Path):
    module_dag = load_dag_file(DAGS / "robustness.py", attribute="parent_dag")
    result = run_dag(module_dag)
    assert result.task_states == {"dump_conf": "success"}
    start = result["parent_job_conf.dump_conf.event.start"][-1]
    conf = json.loads((base_dir / "parent_job_conf.json").read_text())
    assert conf["spark.openlineage.parentRunId"] == start["run"]["runId"]
    assert conf["spark.openlineage.parentJobName"] == "parent_job_conf.dump_conf"
    assert conf["spark.openlineage.parentJobNamespace"] == start["job"]["namespace"]
    assert conf["spark.openlineage.rootParentJobName"] == "parent_job_conf"
    assert (
        conf["spark.openlineage.rootParentRunId"] == start["run"]["facets"]["parent"]["root"]["run"]["runId"]
    )
