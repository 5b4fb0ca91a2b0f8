"""The lineage a person sees in a real Marquez (tests/support/marquez.py: upstream 0.51.1 built from its
source), sent by the provider's HTTP transport from ``dag.test()`` and from Airflow's real scheduler.

One DAG (tests/system/dags_marquez/marquez_pipeline.py) runs twice: first through the harness's
``run_dag(..., backend=marquez.url)``, then by the scheduler with ``{"new_column": true}``. Marquez's
API must then show what the events said: each task's job and run with its state (the failed task's
run FAILED with its error), the parent chain task run -> DAG run, the graph around each job (datasets
and edges), each run's dataset versions, the schema of every written dataset as versions (a new
column written, a column added by ``ALTER TABLE``), column lineage field by field through a join, an
aggregate and a CASE, and the data-quality metrics and check results. A DAG of Spark Connect tasks
shows the same way, its catalog table as its location's node found by its table name too. Marquez's
own web UI, in headless Chromium, draws a job's graph as the API has it.

What Marquez does with a facet is its own choice, and the assertions say where it differs from the
event: it keeps dataset facets of COMPLETE events only, shows no transformation type for the
``transformations`` list of the column-lineage facet (it reads the deprecated single-type fields),
and has no place for the facet's dataset-wide entries.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.support.airflow_scheduler import airflow_scheduler, trigger_run, wait_for_run
from tests.support.browser import SCREENSHOTS
from tests.support.marquez import MarquezServer, assert_table_drawn_as_its_location
from tests.support.marquez_demo import NAMESPACE as DEMO_NAMESPACE
from tests.support.marquez_web import MarquezWeb
from tests.support.ports import free_port
from tests.support.processes import stop_group
from tests.system.conftest import LOGICAL_DATE, final_event, load_dag_file
from tests.system.test_connect_lineage import connect_env  # noqa: F401  (the fixture, for the Connect test)

from lineage_operators.testing import (
    MarquezRun,
    assert_events_match_file,
    load_events,
    run_dag,
    validate_events,
    write_expected,
)
from lineage_operators.testing.runner import transport_env

DAG_FILE = Path(__file__).parent / "dags_marquez" / "marquez_pipeline.py"
DAG_ID = "marquez_pipeline"
NAMESPACE = "marquez_system_test"
TASKS = ("write_orders", "summarize", "register_table", "fail_late")
TASK_STATES = {"write_orders": "success", "summarize": "success", "register_table": "success"}
#: Four Spark task processes one after the other, on a loaded 2-core machine.
RUN_TIMEOUT = 420.0
ROOT = Path(__file__).resolve().parents[2]
DEMO_TASKS = ("ingest_orders", "clean_orders", "aggregate_daily")


@dataclass(frozen=True)
class Runs:
    """The two DAG runs' events, keyed as the harness keys them, their Airflow run ids and data folder."""

    tested: dict[str, Any]
    scheduled: dict[str, Any]
    base: Path
    run_ids: dict[str, str]

    def final(self, which: str, task_id: str) -> dict[str, Any]:
        return final_event(getattr(self, which), DAG_ID, task_id)

    def dag_final(self, which: str) -> dict[str, Any]:
        events = getattr(self, which)
        return (events.get(f"{DAG_ID}.event.complete") or events[f"{DAG_ID}.event.fail"])[-1]

    def path(self, name: str) -> str:
        return f"{self.base}/marquez/{name}"


@pytest.fixture(scope="module")
def runs(marquez: MarquezServer, airflow_db: str, tmp_path_factory: pytest.TempPathFactory) -> Runs:
    work = tmp_path_factory.mktemp("marquez")
    base, dags = work / "data", work / "dags"
    base.mkdir()
    dags.mkdir()
    (dags / DAG_FILE.name).symlink_to(DAG_FILE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LINEAGE_EXAMPLE_BASE_DIR", str(base))
        patch.delenv("AIRFLOW__OPENLINEAGE__EXTRACTORS", raising=False)
        tested = run_dag(
            load_dag_file(dags / DAG_FILE.name),
            logical_date=LOGICAL_DATE,
            dags_folder=dags,
            namespace=NAMESPACE,
            backend=marquez.url,
            events_path=work / "tested.jsonl",
        )
        assert tested.task_states == {**TASK_STATES, "fail_late": "failed"}, tested.failures

        events_file = work / "scheduled.jsonl"
        transport = transport_env(events_file, NAMESPACE, backend=marquez.url)
        trigger_run(DAG_ID, "scheduled", LOGICAL_DATE + timedelta(days=1), {"new_column": True})
        services = work / "services"
        env = {k: v for k, v in transport.items() if v is not None}
        with airflow_scheduler(Path(airflow_db), dags, services, extra_env=env):
            run = wait_for_run(DAG_ID, "scheduled", RUN_TIMEOUT, services)
        assert run["tasks"] == {**TASK_STATES, "fail_late": "failed"}, run
    scheduled = load_events(events_file)
    validate_events(tested)
    validate_events(scheduled)
    return Runs(dict(tested), dict(scheduled), base, {"tested": tested.run_id, "scheduled": "scheduled"})


def _node(kind: str, namespace: str, name: str) -> str:
    return f"{kind}:{namespace}:{name}"


def _quoted(name: str) -> str:
    return urllib.parse.quote(name, safe="")


def _version_ids(versions: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(v["datasetVersionId"]["namespace"], v["datasetVersionId"]["name"]) for v in versions}


def _ids(datasets: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(d["namespace"], d["name"]) for d in datasets}


@pytest.mark.parametrize("which", ["tested", "scheduled"])
def test_each_task_is_a_job_whose_run_has_its_state_its_parent_and_its_datasets(
    marquez: MarquezServer, runs: Runs, which: str
) -> None:
    dag_run = runs.dag_final(which)["run"]["runId"]
    assert marquez.get(f"/api/v1/jobs/runs/{dag_run}")["state"] == "FAILED"
    for task_id in TASKS:
        event = runs.final(which, task_id)
        run_id = event["run"]["runId"]
        stored = marquez.get(f"/api/v1/jobs/runs/{run_id}")
        assert stored["state"] == ("FAILED" if task_id == "fail_late" else "COMPLETED"), task_id
        assert stored["jobVersion"]["name"] == f"{DAG_ID}.{task_id}"
        assert stored["jobVersion"]["namespace"] == NAMESPACE
        read = {
            (v["datasetVersionId"]["namespace"], v["datasetVersionId"]["name"])
            for v in stored["inputDatasetVersions"]
        }
        written = {
            (v["datasetVersionId"]["namespace"], v["datasetVersionId"]["name"])
            for v in stored["outputDatasetVersions"]
        }
        assert (read, written) == (_ids(event["inputs"]), _ids(event["outputs"])), task_id
        assert written, f"{task_id} wrote nothing Marquez shows"
        facets = marquez.get(f"/api/v1/jobs/runs/{run_id}/facets", {"type": "run"})["facets"]
        assert facets["parent"]["run"]["runId"] == dag_run, task_id
        assert facets["parent"]["job"] == {"namespace": NAMESPACE, "name": DAG_ID}
    job = marquez.get(f"/api/v1/namespaces/{NAMESPACE}/jobs/{DAG_ID}.fail_late")
    assert job["parentJobName"] == DAG_ID
    failed = runs.final(which, "fail_late")
    facets = marquez.get(f"/api/v1/jobs/runs/{failed['run']['runId']}/facets", {"type": "run"})["facets"]
    assert "the partner feed was rejected after the write" in facets["errorMessage"]["message"]
    # Marquez keeps dataset facets of COMPLETE events only: the FAIL event's output schema is not shown
    assert _schema(failed, runs.path("late"))
    assert marquez.get(f"/api/v1/namespaces/file/datasets/{_quoted(runs.path('late'))}")["fields"] == []


def test_the_graph_around_each_job_is_the_datasets_and_edges_of_its_events(
    marquez: MarquezServer, runs: Runs
) -> None:
    """Marquez draws a job with the datasets of its latest run: the scheduled run's events."""
    for task_id in TASKS:
        event = runs.final("scheduled", task_id)
        job = _node("job", NAMESPACE, f"{DAG_ID}.{task_id}")
        graph = marquez.get("/api/v1/lineage", {"nodeId": job, "depth": 1})["graph"]
        node = next(n for n in graph if n["id"] == job)
        into = {e["origin"] for e in node["inEdges"]}
        out = {e["destination"] for e in node["outEdges"]}
        assert into == {_node("dataset", ns, name) for ns, name in _ids(event["inputs"])}, task_id
        assert out == {_node("dataset", ns, name) for ns, name in _ids(event["outputs"])}, task_id
        datasets = {n["id"] for n in graph if n["type"] == "DATASET"}
        assert into | out <= datasets, task_id


def _versions(marquez: MarquezServer, path: str) -> list[dict[str, Any]]:
    """The dataset's versions, newest first."""
    return marquez.get(f"/api/v1/namespaces/file/datasets/{_quoted(path)}/versions")["versions"]


def _schema(event: dict[str, Any], path: str) -> list[tuple[str, str]]:
    (output,) = [o for o in event["outputs"] if o["name"] == path]
    return [(f["name"], f["type"]) for f in output["facets"]["schema"]["fields"]]


def test_a_dataset_written_by_two_runs_has_two_versions_with_the_schema_each_wrote(
    marquez: MarquezServer, runs: Runs
) -> None:
    orders = runs.path("orders")
    newest, oldest = _versions(marquez, orders)
    for version, which in ((oldest, "tested"), (newest, "scheduled")):
        event = runs.final(which, "write_orders")
        assert version["createdByRun"]["id"] == event["run"]["runId"]
        assert [(f["name"], f["type"]) for f in version["fields"]] == _schema(event, orders)
    assert [f["name"] for f in newest["fields"]][-1] == "channel"
    assert "channel" not in {f["name"] for f in oldest["fields"]}
    dataset = marquez.get(f"/api/v1/namespaces/file/datasets/{_quoted(orders)}")
    assert [f["name"] for f in dataset["fields"]] == [f["name"] for f in newest["fields"]]


def test_a_column_added_by_alter_table_is_a_new_version_with_the_new_field(
    marquez: MarquezServer, runs: Runs
) -> None:
    table = runs.path("summary_table")
    newest, oldest = _versions(marquez, table)
    assert [f["name"] for f in oldest["fields"]] == ["segment", "revenue", "tier"]
    assert [f["name"] for f in newest["fields"]] == ["segment", "revenue", "tier", "note"]
    assert (oldest["lifecycleState"], newest["lifecycleState"]) == ("CREATE", "ALTER")
    assert [f["name"] for f in newest["fields"]] == [
        n for n, _ in _schema(runs.final("scheduled", "register_table"), table)
    ]


def test_column_lineage_field_by_field_through_a_join_an_aggregate_and_a_case(
    marquez: MarquezServer, runs: Runs
) -> None:
    summary = runs.path("summary")
    facet = next(o for o in runs.final("scheduled", "summarize")["outputs"] if o["name"] == summary)
    fields = facet["facets"]["columnLineage"]["fields"]
    assert set(fields) == {"segment", "revenue", "tier"}
    graph = marquez.get("/api/v1/column-lineage", {"nodeId": _node("dataset", "file", summary), "depth": 1})
    stored = {
        n["data"]["field"]: {(i["namespace"], i["dataset"], i["field"]) for i in n["data"]["inputFields"]}
        for n in graph["graph"]
        if n["id"].startswith(f"datasetField:file:{summary}:")
    }
    expected = {
        field: {(i["namespace"], i["name"], i["field"]) for i in entry["inputFields"]}
        for field, entry in fields.items()
    }
    assert stored == expected
    assert stored["revenue"] == {("file", runs.path("orders"), "amount")}
    assert stored["segment"] == {("file", runs.path("customers"), "segment")}


def test_data_quality_metrics_and_check_results_are_on_the_dataset_and_the_run(
    marquez: MarquezServer, runs: Runs
) -> None:
    orders = runs.path("orders")
    event = runs.final("scheduled", "write_orders")
    (output,) = [o for o in event["outputs"] if o["name"] == orders]
    sent = output["facets"]["dataQualityMetrics"]
    stored = marquez.get(f"/api/v1/namespaces/file/datasets/{_quoted(orders)}")["facets"][
        "dataQualityMetrics"
    ]
    assert stored["rowCount"] == sent["rowCount"] == 3
    assert stored["columnMetrics"] == sent["columnMetrics"]
    assert stored["columnMetrics"]["amount"] == {"min": 7.0, "max": 130.0}
    run_facets = marquez.get(f"/api/v1/jobs/runs/{event['run']['runId']}/facets", {"type": "run"})["facets"]
    checks = run_facets["test"]["tests"]
    assert checks == event["run"]["facets"]["test"]["tests"]
    assert {(t["name"], t["status"]) for t in checks} == {
        ("not_null_order_id", "pass"),
        ("between_amount", "fail"),
        ("row_count", "pass"),
    }


def test_the_harness_checks_a_run_against_a_golden_file_from_what_marquez_stored(
    marquez: MarquezServer, runs: Runs, tmp_path: Path
) -> None:
    """``assert_events_match_file(MarquezRun(...), golden)`` on the events Marquez stored: the golden file
    written from the events the tasks sent matches; one changed dataset name fails, naming it."""
    for which in ("tested", "scheduled"):
        sent = getattr(runs, which)
        stored = MarquezRun(marquez.url, DAG_ID, runs.run_ids[which])
        read = stored.events()
        assert sorted(read) == sorted(sent), which
        assert _run_ids(read) == _run_ids(sent), which
        golden = tmp_path / f"{which}.json"
        write_expected(golden, sent)
        assert_events_match_file(stored, golden)
        golden.write_text(golden.read_text().replace('/marquez/summary"', '/marquez/summary_v2"'))
        with pytest.raises(AssertionError, match=r"summary_v2.*missing dataset"):
            assert_events_match_file(stored, golden)


def _run_ids(events: dict[str, Any]) -> set[str]:
    return {event["run"]["runId"] for found in events.values() for event in found}


@pytest.mark.usefixtures("connect_env")
def test_spark_connect_tasks_in_marquez(marquez: MarquezServer, run_dag: Any, base_dir: Path) -> None:
    """A DAG of Spark Connect tasks (tests/system/dags/connect_lineage.py: a write, a catalog table
    created from SQL, a task that fails) sent to Marquez: the same jobs, runs, graph and fields."""
    namespace = f"{NAMESPACE}_connect"
    result = run_dag(
        load_dag_file(Path(__file__).parent / "dags" / "connect_lineage.py"),
        namespace=namespace,
        backend=marquez.url,
    )
    assert result.task_states == {"summary": "success", "tables": "success", "broken": "failed"}
    for task_id, state in (("summary", "COMPLETED"), ("tables", "COMPLETED"), ("broken", "FAILED")):
        event = final_event(result, "connect_lineage", task_id)
        stored = marquez.get(f"/api/v1/jobs/runs/{event['run']['runId']}")
        assert stored["state"] == state, task_id
        assert _version_ids(stored["outputDatasetVersions"]) == _ids(event["outputs"]), task_id
        assert _version_ids(stored["inputDatasetVersions"]) == _ids(event["inputs"]), task_id
    summary = final_event(result, "connect_lineage", "summary")
    written = f"{base_dir}/summary"
    dataset = marquez.get(f"/api/v1/namespaces/file/datasets/{_quoted(written)}")
    assert [(f["name"], f["type"]) for f in dataset["fields"]] == _schema(summary, written)
    # a catalog table: its node is its location, as the event names it; the table name is its symlink
    table = final_event(result, "connect_lineage", "tables")["outputs"][0]
    job = _node("job", namespace, "connect_lineage.tables")
    assert_table_drawn_as_its_location(marquez, table, writer=job)


def _shown(name: str, length: int) -> str:
    """A node's label as Marquez's graph writes it: the first ``length`` characters, then ``...``."""
    return name if len(name) <= length else f"{name[:length]}..."


#: The texts of the largest SVG on the page (the graph, not its minimap), in document order.
_GRAPH_TEXTS = """() => {
    const area = svg => svg.getBoundingClientRect().width * svg.getBoundingClientRect().height;
    const graphs = [...document.querySelectorAll('svg')].filter(svg => svg.querySelector('text'));
    if (!graphs.length) return [];
    const graph = graphs.reduce((a, b) => (area(b) > area(a) ? b : a));
    return [...graph.querySelectorAll('text')].map(t => t.textContent.trim());
}"""


def _drawn_nodes(texts: list[str]) -> list[tuple[str, str, tuple[str, ...]]]:
    """(kind, label, field rows) per node: a node is its kind's text, its label, then its ``- field`` rows."""
    nodes: list[tuple[str, str, list[str]]] = []
    for text in texts:
        if text in ("JOB", "DATASET"):
            nodes.append((text, "", []))
        elif nodes and not nodes[-1][1]:
            nodes[-1] = (nodes[-1][0], text, nodes[-1][2])
        elif nodes and text.startswith("- "):
            nodes[-1][2].append(text[2:])
    return [(kind, label, tuple(fields)) for kind, label, fields in nodes]


def test_a_person_sees_the_graph_of_a_job_in_marquez_web_ui(
    marquez: MarquezServer, marquez_web: MarquezWeb, chromium: Any, runs: Runs
) -> None:
    """Marquez's own UI (built from upstream's source, served against this server) in headless Chromium:
    the lineage page of the ``summarize`` job draws the job, the two datasets it read and the one it
    wrote, each with the fields Marquez stores, and nothing the API's graph does not have. The
    screenshot is kept in .build/screenshots."""
    job = f"{DAG_ID}.summarize"
    graph = marquez.get("/api/v1/lineage", {"nodeId": _node("job", NAMESPACE, job), "depth": 1})["graph"]
    in_graph = {(n["type"], tuple(f["name"] for f in n["data"].get("fields") or [])) for n in graph}
    page = chromium.new_page(viewport={"width": 1600, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{marquez_web.url}/lineage/job/{_quoted(NAMESPACE)}/{_quoted(job)}?depth=1")
    # the graph draws after its client-side layout: wait for the nodes, not for the page's load
    page.wait_for_function(
        f"() => ({_GRAPH_TEXTS})().filter(t => t === 'DATASET').length >= 3", timeout=60_000
    )
    drawn = _drawn_nodes(page.evaluate(_GRAPH_TEXTS))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "marquez-job-lineage.png"), full_page=True)
    page.close()
    assert errors == []
    assert ("JOB", _shown(job, 16), ()) in drawn
    for name in ("orders", "customers", "summary"):
        stored = marquez.get(f"/api/v1/namespaces/file/datasets/{_quoted(runs.path(name))}")
        fields = tuple(_shown(f["name"], 20) for f in stored["fields"])
        assert ("DATASET", _shown(stored["name"], 15), fields) in drawn, name
    shown_in_graph = {(kind, tuple(_shown(f, 20) for f in fields)) for kind, fields in in_graph}
    assert {(kind, fields) for kind, _, fields in drawn} <= shown_in_graph  # nothing the API lacks


def test_make_marquez_serves_the_api_and_the_ui_with_the_demo_dags_lineage() -> None:
    """``make marquez`` (``python -m tests.support.marquez serve``) as a person runs it: it prints the UI's
    and the API's URLs once the demo DAG's lineage is in; the API has the demo's jobs, the UI answers
    with Marquez's app; SIGTERM stops it cleanly (exit 0)."""
    env = {**os.environ, "MARQUEZ_PORT": str(free_port()), "WEB_PORT": str(free_port())}
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.marquez", "serve"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout or []], daemon=True).start()
    printed: list[str] = []
    try:
        deadline = time.monotonic() + RUN_TIMEOUT
        while not any("Press Ctrl-C" in line for line in printed):
            assert process.poll() is None, "".join(printed[-40:])
            assert time.monotonic() < deadline, "".join(printed[-40:])
            with contextlib.suppress(queue.Empty):
                printed.append(lines.get(timeout=1))
        urls = dict(re.findall(r"^Marquez (UI|API): +(\S+)", "".join(printed), re.MULTILINE))
        api, ui = urls["API"], urls["UI"]
        with urllib.request.urlopen(f"{api}/api/v1/namespaces/{DEMO_NAMESPACE}/jobs", timeout=30) as answer:
            jobs = {job["name"] for job in json.load(answer)["jobs"]}
        assert {f"example_file_pipeline.{task}" for task in DEMO_TASKS} <= jobs
        with urllib.request.urlopen(ui, timeout=30) as answer:
            assert answer.status == 200
            assert "bundle.js" in answer.read().decode()  # Marquez's app, built from its source
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            stop_group(process, 10)  # Marquez, its database and the UI with it
            raise
    assert process.returncode == 0, "".join(printed[-40:])
