"""A cluster that already runs openlineage-spark: the operator's task with the jar's listener in its session.

Run as a user runs it (``airflow dags test`` in its own process, the real provider, the jar from the
session conf): the task succeeds, our events report exactly the task's datasets, and the jar's
events nest under the Airflow task (its parent run) and the DAG run (its root), so both land in one
graph.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.peer.peer_events import is_application_event, parse_lines
from tests.system.conftest import dataset_ids, final_event
from tests.system.test_unmodified_tasks_cli import airflow_dags_test

DAG_FILE = Path(__file__).parent / "dags" / "jar_beside_us.py"


def test_the_jars_runs_nest_under_the_task_and_ours_stay_the_tasks(peer_jar: Path, tmp_path: Path) -> None:
    base_dir, jar_events = tmp_path / "data", tmp_path / "openlineage-spark.jsonl"
    events = airflow_dags_test(
        Path(sys.executable),
        "jar_beside_us",
        tmp_path / "run",
        base_dir,
        dag_files=(DAG_FILE,),
        # the jar from the task's own conf, as a user sets it (no suite-wide spark-submit arguments)
        airflow_env={
            "PEER_JAR": str(peer_jar),
            "PEER_EVENTS": str(jar_events),
            "PYSPARK_SUBMIT_ARGS": "pyspark-shell",
        },
    )
    start = events["jar_beside_us.clean_orders.event.start"][-1]
    complete = final_event(events, "jar_beside_us", "clean_orders")
    assert complete["eventType"] == "COMPLETE"
    assert dataset_ids(complete["outputs"]) == [
        ("file", f"{base_dir}/clean_orders"),
        ("file", f"{base_dir}/raw_orders"),
    ]
    assert dataset_ids(complete["inputs"]) == [("file", f"{base_dir}/raw_orders")]

    lines = jar_events.read_text().splitlines()
    peer = parse_lines(lines)
    assert "COMPLETE" in peer.event_types(), peer.event_types()
    # the jar nests its actions under its Spark application's run, and that run under the task
    application = [e for e in map(json.loads, lines) if is_application_event(e)]
    assert application, "the jar emitted no application event"
    task = (start["job"]["namespace"], start["job"]["name"], start["run"]["runId"])
    assert {_parent(e)[:3] for e in application} == {task}
    application_runs = {e["run"]["runId"] for e in application}
    assert {_parent(e)[2] for e in peer.events} == application_runs
    dag_run = start["run"]["facets"]["parent"]["root"]["run"]["runId"]
    assert {_parent(e)[3] for e in application + peer.events} == {dag_run}
    jar_outputs = {(d["namespace"], d["name"]) for d in peer.datasets("outputs")}
    assert jar_outputs == set(dataset_ids(complete["outputs"]))


def _parent(event: dict) -> tuple[str, str, str, str]:
    """(job namespace, job name, run id) of an event's parent, and its root's run id."""
    parent = event["run"]["facets"]["parent"]
    return (
        parent["job"]["namespace"],
        parent["job"]["name"],
        parent["run"]["runId"],
        parent["root"]["run"]["runId"],
    )
