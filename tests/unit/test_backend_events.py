"""Events read back from a lineage backend (Marquez's raw-events API), filtered to one DAG run, and
used by the harness: ``assert_events_match_file``, ``AssertLineageOperator(backend=)`` and the CLI.

The backend is a real Marquez (tests/support/marquez.py), shared by the test process: each test stores
its own copy of the events, in namespaces and runs of its own (:func:`_own_copy`), and reads back only
those."""

from __future__ import annotations

import copy
import datetime as dt
import json
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from tests.support.marquez import MarquezServer
from tests.support.ports import free_port

from lineage_operators.cli.main import main
from lineage_operators.testing import assert_events_match_file
from lineage_operators.testing.assertion import AssertLineageOperator
from lineage_operators.testing.backend import (
    BackendError,
    MarquezRun,
    MarquezSource,
    dag_run_events,
    in_namespace,
)

SAMPLE = Path(__file__).parent / "harness_fixtures" / "sample_events.jsonl"
DAG_ID = "etl.daily"


def _sample() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]


def _run_id_of(events: list[dict[str, Any]]) -> str:
    return str(events[0]["run"]["facets"]["airflowDagRun"]["dagRun"]["run_id"])


def _other_run(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same DAG's next run: other Airflow run id, other OpenLineage run ids, a day later."""
    text = json.dumps(events)
    old_run_id = _run_id_of(events)
    for run_id in {e["run"]["runId"] for e in events}:
        text = text.replace(run_id, str(uuid.uuid4()))
    other = json.loads(text.replace(old_run_id, old_run_id + "_next").replace("2026-11-21", "2026-11-22"))
    return list(other)


def _child(parent: dict[str, Any], name: str, *, root: dict[str, Any] | None = None) -> dict[str, Any]:
    """A child run (a Spark action) naming ``parent``'s run as its parent, ``root`` as the root."""
    link: dict[str, Any] = {
        "_producer": "https://example.com/spark",
        "_schemaURL": "https://openlineage.io/spec/facets/1-1-0/ParentRunFacet.json#/$defs/ParentRunFacet",
        "run": {"runId": parent["run"]["runId"]},
        "job": {"namespace": parent["job"]["namespace"], "name": parent["job"]["name"]},
    }
    if root is not None:
        link["root"] = {"run": {"runId": root["run"]["runId"]}, "job": dict(link["job"])}
    return {
        "eventType": "COMPLETE",
        "eventTime": parent["eventTime"],
        "producer": "https://example.com/spark",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "job": {"namespace": "spark_ns", "name": name},
        "run": {"runId": str(uuid.uuid4()), "facets": {"parent": link}},
        "inputs": [],
        "outputs": [{"namespace": "file", "name": f"/out/{name}"}],
    }


def _own_copy(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events under job namespaces, OpenLineage run ids and an Airflow run id no other test uses."""
    tag = uuid.uuid4().hex[:10]
    text = json.dumps(events)
    for namespace in {e["job"]["namespace"] for e in events}:
        text = text.replace(f'"{namespace}"', f'"{namespace.split("_")[0]}_{tag}"')
    for run_id in {e["run"]["runId"] for e in events}:
        text = text.replace(run_id, str(uuid.uuid4()))
    airflow_run = _run_id_of(events)
    return list(json.loads(text.replace(airflow_run, f"{airflow_run.split('_')[0]}_{tag}")))


@pytest.fixture
def stored(marquez: MarquezServer) -> dict[str, Any]:
    """Two runs of one DAG stored in Marquez; the first has a child run and a grandchild run."""
    first = _sample()
    task = next(e for e in first if e["job"]["name"] == "etl.daily.extract")
    dag_start = first[0]
    child = _child(task, "extract.spark_action")
    grandchild = _child(child, "extract.spark_action.inner", root=dag_start)
    orphan = _child({**task, "run": {"runId": str(uuid.uuid4())}}, "unrelated")
    second = _other_run(first)
    events = _own_copy([*first, child, grandchild, orphan, *second])
    first_copy = events[: len(first) + 2]
    marquez.post(reversed(events))  # Marquez answers oldest first whatever the order it got
    return {
        "url": marquez.url,
        "events": events,
        "first": first_copy,
        "namespace": events[0]["job"]["namespace"],
        "run_id": _run_id_of(first_copy),
        "next_run_id": _run_id_of(events[len(first) + 3 :]),
    }


def _mine(events: list[dict[str, Any]], stored: dict[str, Any]) -> list[dict[str, Any]]:
    """The events of this test's copy among everything Marquez holds (its run ids)."""
    own = {e["run"]["runId"] for e in stored["events"]}
    return [e for e in events if e["run"]["runId"] in own]


def test_a_dag_run_is_its_own_events_and_its_child_runs_at_any_depth(stored: dict[str, Any]):
    chosen = dag_run_events(stored["events"], DAG_ID, stored["run_id"])
    assert chosen == stored["first"]
    assert dag_run_events(stored["events"], DAG_ID, "no such run") == []
    assert len(dag_run_events(stored["events"], DAG_ID, stored["next_run_id"])) == len(_sample())


def test_the_source_pages_through_everything_the_backend_stored_oldest_first(
    stored: dict[str, Any], marquez: MarquezServer
):
    """Marquez sorts by event time alone: pages cut by offset lost and repeated events of the same time
    (a Spark action's events carry its task's time here); an event stored twice comes back once."""
    marquez.post(stored["events"][:2])
    read = _mine(list(MarquezSource(stored["url"], page_size=4).events()), stored)
    assert sorted(json.dumps(e, sort_keys=True) for e in read) == sorted(
        {json.dumps(e, sort_keys=True) for e in read}
    )
    assert len(read) == len(stored["events"])
    times = [dt.datetime.fromisoformat(e["eventTime"]) for e in read]
    assert times == sorted(times)
    after = dt.datetime(2026, 11, 22, tzinfo=dt.timezone.utc)
    later = MarquezSource(stored["url"], page_size=4).events(after=after)
    assert len(_mine(list(later), stored)) == len(_sample())
    bounded = MarquezSource(stored["url"], page_size=4, max_events=5).events()
    assert 5 <= len(list(bounded)) <= 8  # whole pages


def test_an_unreadable_backend_is_one_clear_error(marquez: MarquezServer):
    with pytest.raises(BackendError, match=r"HTTP 404 from api/v1/events/lineage"):
        list(MarquezSource(marquez.url + "/not-marquez").events())
    with pytest.raises(BackendError, match=r"cannot reach the backend"):
        list(MarquezSource(f"http://127.0.0.1:{free_port()}").events())
    with pytest.raises(ValueError, match="starts with http"):
        MarquezSource("/tmp/events.json")


def test_assert_events_match_file_reads_the_dag_run_from_the_backend(
    stored: dict[str, Any], marquez: MarquezServer, tmp_path: Path
):
    golden = tmp_path / "golden.json"
    run = MarquezRun(stored["url"], DAG_ID, stored["run_id"])
    assert_events_match_file(run, golden, update=True)
    written = json.loads(golden.read_text())
    assert "extract.spark_action.event.complete" in written  # the child run is part of the DAG run
    assert "unrelated.event.complete" not in written
    assert_events_match_file(run, golden)
    changed = _own_copy(stored["first"])  # the same run again, its Spark action writing elsewhere
    next(e for e in changed if e["job"]["name"] == "extract.spark_action")["outputs"][0]["name"] = (
        "/out/elsewhere"
    )
    marquez.post(changed)
    with pytest.raises(AssertionError, match=r"extract\.spark_action\.event\.complete: outputs"):
        assert_events_match_file(MarquezRun(stored["url"], DAG_ID, _run_id_of(changed)), golden)


def _dag_run(run_id: str, hour: int = 8) -> SimpleNamespace:
    start = dt.datetime(2026, 11, 21, hour, 16, 8, tzinfo=dt.timezone.utc)
    return SimpleNamespace(dag_id=DAG_ID, run_id=run_id, start_date=start)


def test_the_assertion_operator_checks_what_the_backend_stored(stored: dict[str, Any], tmp_path: Path):
    golden = tmp_path / "golden.json"
    url = stored["url"]
    assert_events_match_file(MarquezRun(url, DAG_ID, stored["run_id"]), golden, update=True)
    operator = AssertLineageOperator(task_id="check", expected=golden, backend=url, timeout=0)
    operator.execute({"dag_run": _dag_run(stored["run_id"])})
    # events from before the DAG run started (less the skew) are not read
    late = AssertLineageOperator(task_id="check", expected=golden, backend=url, timeout=0, backend_skew=0)
    with pytest.raises(AssertionError, match="missing event"):
        late.execute({"dag_run": _dag_run(stored["run_id"], hour=9)})


def test_the_assertion_operator_fails_clearly_when_the_backend_stays_unreachable(tmp_path: Path):
    golden = tmp_path / "golden.json"
    golden.write_text(json.dumps({"etl.daily.extract.event.start": {}}))
    url = f"http://127.0.0.1:{free_port()}"
    operator = AssertLineageOperator(task_id="check", expected=golden, backend=url, timeout=0)
    with pytest.raises(AssertionError, match=r"lineage backend could not be read for 0s: .*cannot reach"):
        operator.execute({"dag_run": _dag_run("r1")})
    with pytest.raises(TypeError, match="Marquez API URL"):
        AssertLineageOperator(task_id="bad", expected=golden, backend=5000)  # type: ignore[arg-type]


def test_the_cli_reads_a_marquez_url_and_keeps_one_namespace(
    stored: dict[str, Any], marquez: MarquezServer, tmp_path: Path, capsys
):
    url, namespace = stored["url"], stored["namespace"]
    assert main(["summary", url, "--any-producer"]) == 0
    everything = capsys.readouterr().out
    assert main(["summary", url, "--any-producer", "--namespace", namespace]) == 0
    kept = capsys.readouterr()
    # the grandchild's parent job is the child's (a Spark namespace): it alone is left out
    assert "\nextract.spark_action\n" in kept.out
    assert "\nunrelated\n" in kept.out  # its parent job is in the namespace
    assert "inner" not in kept.out
    assert "\nextract.spark_action.inner\n" in everything
    assert "outside namespace" in kept.err
    # diff what Marquez stored against the same events in a file, and against a golden file
    mine = _own_copy(stored["first"])
    marquez.post(mine)
    own = mine[0]["job"]["namespace"]
    file = tmp_path / "events.jsonl"
    file.write_text("".join(json.dumps(e) + "\n" for e in mine if in_namespace(e, own)))
    golden = tmp_path / "golden.json"
    assert_events_match_file([e for e in mine if in_namespace(e, own)], golden, update=True)
    capsys.readouterr()
    assert main(["diff", str(file), url, "--any-producer", "--namespace", own]) == 0
    assert capsys.readouterr().out.strip() == "no lineage differences"
    main(["diff", str(golden), str(file), "--any-producer"])
    against_file = capsys.readouterr().out
    main(["diff", str(golden), url, "--any-producer", "--namespace", own])
    assert capsys.readouterr().out == against_file
    before = _own_copy(mine)  # the same run stored again, its Spark action writing elsewhere
    moved = copy.deepcopy(before)
    next(e for e in moved if e["job"]["name"] == "extract.spark_action")["outputs"][0]["name"] = "/out/moved"
    marquez.post(moved)
    moved_namespace = moved[0]["job"]["namespace"]
    unmoved = tmp_path / "unmoved.jsonl"
    unmoved.write_text("".join(json.dumps(e) + "\n" for e in before if in_namespace(e, moved_namespace)))
    assert main(["diff", str(unmoved), url, "--any-producer", "--namespace", moved_namespace]) == 1
    assert "/out/moved" in capsys.readouterr().out
    assert main(["summary", f"http://127.0.0.1:{free_port()}"]) == 2
    assert "cannot reach the backend" in capsys.readouterr().err


def test_namespace_is_the_jobs_or_its_parents():
    event = {"job": {"namespace": "a"}, "run": {"facets": {"parent": {"job": {"namespace": "b"}}}}}
    assert in_namespace(event, "a")
    assert in_namespace(event, "b")
    assert not in_namespace(event, "c")


def test_the_readmes_two_marquez_commands_work_as_written(marquez: MarquezServer, capsys):
    """docs/backends.md, "Send lineage to Marquez": its transport is the provider's HTTP transport at
    Marquez's lineage endpoint, and its summary command reads what the backend stored."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "backends.md").read_text(encoding="utf-8")
    block = text.split("## Send lineage to Marquez", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    export, command = (line.split("  #")[0].strip() for line in block.strip().splitlines())
    transport = json.loads(export.split("=", 1)[1].strip("'"))
    assert transport["type"] == "http"
    assert transport["endpoint"] == "api/v1/lineage"
    events = _own_copy(_sample())
    marquez.post(events)
    args = command.replace(transport["url"], marquez.url).split()[1:]
    assert main([*args[:-1], events[0]["job"]["namespace"]]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 job(s), 4 dataset(s), 3 run(s), 6 event(s) read")  # the provider's events
    assert "wrote: postgres://db:5432/shop.public.orders" in out
