"""A cluster that already runs openlineage-spark: the operator's task with the jar's listener in its session.

Run as a user runs it (``airflow dags test`` in its own process, the real provider, the jar from the
session conf): the task succeeds, our events report exactly the task's datasets, and the jar's
events nest under the Airflow task (its parent run) and the DAG run (its root), so both land in one
graph. Both send to a real Marquez too (the provider's HTTP transport, the jar's own), which shows
that one graph: the chain DAG run -> task run -> the jar's application run, and the dataset the task
wrote with our job and the jar's job both writing it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from urllib.parse import quote

from tests.peer.peer_events import is_application_event, parse_lines
from tests.support.marquez import MarquezServer
from tests.system.conftest import dataset_ids, final_event
from tests.system.test_unmodified_tasks_cli import airflow_dags_test

DAG_FILE = Path(__file__).parent / "dags" / "jar_beside_us.py"


def test_the_jars_runs_nest_under_the_task_and_ours_stay_the_tasks(
    peer_jar: Path, tmp_path: Path, marquez: MarquezServer
) -> None:
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
            "PEER_MARQUEZ_URL": marquez.url,
            "PYSPARK_SUBMIT_ARGS": "pyspark-shell",
        },
        backend=marquez.url,
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
    _marquez_shows_one_graph(marquez, start, application, peer.events, f"{base_dir}/clean_orders")


def _marquez_shows_one_graph(
    marquez: MarquezServer,
    task_start: dict,
    application: list[dict],
    jar_actions: list[dict],
    written: str,
) -> None:
    """Marquez (both sides sent to it) chains DAG run -> task run -> the jar's application run, and draws
    the dataset the task wrote with our task's job and the jar's job as its writers."""
    task_run = task_start["run"]["runId"]
    dag_run = task_start["run"]["facets"]["parent"]["run"]["runId"]
    assert marquez.get(f"/api/v1/jobs/runs/{task_run}")["state"] == "COMPLETED"
    assert _stored_parent(marquez, task_run) == dag_run
    (application_run,) = {e["run"]["runId"] for e in application}
    assert _stored_parent(marquez, application_run) == task_run
    # Marquez names a job with a parent run "<parent job>.<job>": the application's job sits under the task's.
    # (The jar's action events name their parent by the application's own name, which that is not: Marquez
    # puts them under a second application job of that name, with no parent. Marquez's doing, not ours.)
    app_job, task_job = application[0]["job"], task_start["job"]["name"]
    nested_name = quote(f"{task_job}.{app_job['name']}", safe="")
    stored_job = marquez.get(f"/api/v1/namespaces/{app_job['namespace']}/jobs/{nested_name}")
    assert (stored_job["simpleName"], stored_job["parentJobName"]) == (app_job["name"], task_job)
    jar_writers = {_job_node(e) for e in jar_actions if written in {o["name"] for o in e.get("outputs", [])}}
    assert len(jar_writers) == 1, jar_writers
    writers = {_job_node(task_start), *jar_writers}  # ours and the jar's action
    node = f"dataset:file:{written}"
    graph = marquez.get("/api/v1/lineage", {"nodeId": node, "depth": 1})["graph"]
    (dataset,) = [n for n in graph if n["id"] == node]
    assert {e["origin"] for e in dataset["inEdges"]} == writers


def _stored_parent(marquez: MarquezServer, run_id: str) -> str:
    facets = marquez.get(f"/api/v1/jobs/runs/{run_id}/facets", {"type": "run"})["facets"]
    return facets["parent"]["run"]["runId"]


def _job_node(event: dict) -> str:
    return f"job:{event['job']['namespace']}:{event['job']['name']}"


def _parent(event: dict) -> tuple[str, str, str, str]:
    """(job namespace, job name, run id) of an event's parent, and its root's run id."""
    parent = event["run"]["facets"]["parent"]
    return (
        parent["job"]["namespace"],
        parent["job"]["name"],
        parent["run"]["runId"],
        parent["root"]["run"]["runId"],
    )
