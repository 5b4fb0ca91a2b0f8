"""The file-pipeline example DAG on a Spark standalone cluster (master + one worker on loopback):
the same datasets and facets as with ``local[*]`` (the same golden file, only the master differs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.standalone import StandaloneCluster, standalone_cluster  # noqa: F401  (fixture)
from tests.system.conftest import GOLDEN, LOGICAL_DATE, dataset_ids, final_event, load_example_dag

from lineage_operators.testing import assert_events_match_file, validate_events


def test_file_pipeline_on_a_standalone_cluster(
    standalone_cluster: StandaloneCluster,  # noqa: F811
    run_dag: Any,
    base_dir: Path,
    tmp_path: Path,
) -> None:
    dag = load_example_dag("file_pipeline")
    conf = {
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.executor.memory": "512m",
        "spark.cores.max": "1",
        "spark.ui.enabled": "false",
    }
    for task in dag.tasks:
        task.master = standalone_cluster.master_url
        task.config_kwargs = conf
    result = run_dag(dag, logical_date=LOGICAL_DATE)
    validate_events(result)
    assert result.state == "success", (result.task_states, standalone_cluster.logs())

    clean = final_event(result, "example_file_pipeline", "clean_orders")
    details = clean["run"]["facets"]["spark_applicationDetails"]
    assert details["master"] == standalone_cluster.master_url
    assert dataset_ids(clean["inputs"]) == [("file", f"{base_dir}/raw/orders")]

    golden = (GOLDEN / "file_pipeline.json").read_text()
    expected = tmp_path / "file_pipeline_standalone.json"
    expected.write_text(golden.replace('"local[*]"', json.dumps(standalone_cluster.master_url)))
    assert_events_match_file(result, expected, placeholders={"base_dir": base_dir})
