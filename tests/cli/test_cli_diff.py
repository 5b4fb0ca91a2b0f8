"""diff: per job what changed, as text, JSON and exit status; golden files as either side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.support.orders_events import CLEAN, DAILY, PUBLISHED, RAW, orders_events

from lineage_operators.cli.diff import Change, diff_graphs
from lineage_operators.cli.main import main
from lineage_operators.cli.model import build_graph
from lineage_operators.testing.golden import write_expected

GOLDEN = Path(__file__).parents[1] / "system" / "golden" / "file_pipeline.json"
AGG = "orders.aggregate_daily"
PUB = "orders.publish_revenue"


def _changes(**variant: object) -> dict[str, set[Change]]:
    diffs = diff_graphs(build_graph(orders_events()), build_graph(orders_events(**variant)))  # type: ignore[arg-type]
    return {d.job: set(d.changes) for d in diffs}


def test_identical_runs_have_no_difference() -> None:
    assert _changes() == {}


def test_a_changed_output_path_is_a_rename_for_the_writer_and_the_reader() -> None:
    changes = _changes(daily_path="/data/marts/daily_revenue_v2")

    renamed = "now file:///data/marts/daily_revenue_v2"
    assert changes == {
        AGG: {Change("dataset_renamed", "output", f"file://{DAILY}", renamed)},
        PUB: {Change("dataset_renamed", "input", f"file://{DAILY}", renamed)},
    }


def test_a_dropped_column_removes_the_field_and_its_column_lineage() -> None:
    changes = _changes(drop_daily_column="revenue")

    assert changes[AGG] == {
        Change("field_removed", "output", f"file://{DAILY}", "revenue (double)"),
        Change("column_edge_removed", detail=f"file://{CLEAN}.amount -> file://{DAILY}.revenue"),
    }
    assert changes[PUB] == {  # it reads daily_revenue and writes it out again
        Change("field_removed", "input", f"file://{DAILY}", "revenue (double)"),
        Change("field_removed", "output", f"file://{PUBLISHED}", "revenue (double)"),
    }


@pytest.mark.parametrize(
    ("variant", "job", "expected"),
    [
        (
            {"clean_amount_type": "decimal(10,2)"},
            AGG,
            Change("field_retyped", "input", f"file://{CLEAN}", "amount: double -> decimal(10,2)"),
        ),
        (
            {"daily_lifecycle": "CREATE"},
            AGG,
            Change("lifecycle_changed", "output", f"file://{DAILY}", "OVERWRITE -> CREATE"),
        ),
    ],
)
def test_retyped_fields_and_lifecycle_changes(variant: dict, job: str, expected: Change) -> None:
    assert expected in _changes(**variant)[job]


def test_added_and_removed_jobs_and_column_edge_retyping() -> None:
    before = orders_events()
    after = [e for e in orders_events() if not e["job"]["name"].endswith("publish_revenue")]
    retyped = json.loads(json.dumps(after))
    revenue = retyped[5]["outputs"][0]["facets"]["columnLineage"]["fields"]["revenue"]
    revenue["inputFields"][0]["transformations"] = [{"type": "DIRECT", "subtype": "TRANSFORMATION"}]

    diffs = {d.job: d for d in diff_graphs(build_graph(before), build_graph(retyped))}

    assert diffs[PUB].status == "removed"
    assert diffs[AGG].changes == [
        Change(
            "column_edge_retyped",
            detail=f"file://{CLEAN}.amount -> file://{DAILY}.revenue: "
            "DIRECT/AGGREGATION -> DIRECT/TRANSFORMATION",
        )
    ]
    assert {d.job: d.status for d in diff_graphs(build_graph(retyped), build_graph(before))}[PUB] == "added"


def test_cli_text_json_and_exit_status(write_jsonl, capsys) -> None:
    before = write_jsonl(orders_events(), "before.jsonl")
    after = write_jsonl(
        orders_events(daily_path="/data/marts/v2", drop_daily_column="orders"), "after/events.jsonl"
    )

    assert main(["diff", str(before), str(before)]) == 0
    assert capsys.readouterr().out.strip() == "no lineage differences"

    assert main(["diff", str(before), str(after.parent)]) == 1  # a folder of event files
    text = capsys.readouterr().out
    assert "orders.aggregate_daily (changed)" in text
    assert f"dataset renamed: output file://{DAILY}: now file:///data/marts/v2" in text
    assert "field removed: output file:///data/marts/v2: orders (long)" in text

    assert main(["diff", "--json", str(before), str(after)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["different"] is True
    kinds = {c["kind"] for j in report["jobs"] for c in j["changes"]}
    assert kinds == {"dataset_renamed", "field_removed", "column_edge_removed"}


def test_golden_file_against_its_own_events_binds_placeholders_and_matches(
    write_jsonl, tmp_path: Path, capsys
) -> None:
    """A golden file written from events, with ``${base_dir}``, diffs clean against those events."""
    events = [json.loads(json.dumps(e).replace("/data/", "/tmp/run-1/data/")) for e in orders_events()]
    actual = write_jsonl(events)
    golden = tmp_path / "orders.json"
    write_expected(golden, actual, placeholders={"base_dir": "/tmp/run-1/data"})
    assert "${base_dir}/clean/orders" in golden.read_text()

    assert main(["diff", str(golden), str(actual)]) == 0, capsys.readouterr().out
    changed = write_jsonl(
        [json.loads(json.dumps(e).replace("daily_revenue", "daily_v2")) for e in events], "new.jsonl"
    )
    assert main(["diff", str(golden), str(changed)]) == 1
    assert "now file:///tmp/run-1/data/marts/daily_v2" in capsys.readouterr().out


def _with_dag_run(events: list[dict]) -> list[dict]:
    """The events with the DAG run's own START and COMPLETE around them, as the provider emits them
    (a DAG-level job: the ``airflowDagRun`` run facet, ``jobType`` DAG, no datasets)."""

    def dag_event(event_type: str, time: str) -> dict:
        job_type = {"integration": "AIRFLOW", "jobType": "DAG", "processingType": "BATCH"}
        return {
            **{k: v for k, v in events[0].items() if k not in ("inputs", "outputs")},
            "eventType": event_type,
            "eventTime": time,
            "job": {"namespace": "default", "name": "orders", "facets": {"jobType": job_type}},
            "run": {"runId": "0191f0c4-0000-7000-8000-000000000000", "facets": {"airflowDagRun": {}}},
        }

    return [
        dag_event("START", "2026-01-01T00:00:00+00:00"),
        *events,
        dag_event("COMPLETE", "2026-01-02T00:00:00+00:00"),
    ]


def _reader_sees_strings(events: list[dict]) -> list[dict]:
    """ingest writes ``raw`` with a typed ``order_id``; clean reads it back as strings (a CSV file):
    one dataset, two schemas, as the example file pipeline's events have them."""
    events = json.loads(json.dumps(events))
    for event in events:
        if event["job"]["name"] == "orders.ingest_orders" and event["eventType"] == "COMPLETE":
            event["outputs"][0]["facets"]["schema"]["fields"][0]["type"] = "integer"
    return events


@pytest.mark.parametrize("full", [False, True], ids=["lineage-only", "full"])
def test_a_golden_file_diffs_clean_against_the_events_it_was_written_from(
    write_jsonl, tmp_path: Path, capsys, full: bool
) -> None:
    """Both ways round: the DAG-level job, which a golden file of the lineage alone keeps with no facet
    saying it is a DAG, is not a removed job; a dataset written and read with two schemas is no retyping;
    a golden file keeps no event times and lists ``.complete`` before ``.start``."""
    events = _reader_sees_strings(_with_dag_run(orders_events()))
    actual = write_jsonl(events)
    golden = tmp_path / "orders.json"
    write_expected(golden, actual, preserve=False, full=full)

    for sides in ([golden, actual], [actual, golden]):
        assert main(["diff", *map(str, sides)]) == 0, capsys.readouterr().out
    assert main(["diff", str(golden), str(golden)]) == 0, capsys.readouterr().out


def test_a_schema_is_compared_as_each_job_saw_it() -> None:
    """A reader's changed view of a dataset is the reader's change, not its writer's too."""
    before = _reader_sees_strings(orders_events())
    after = json.loads(json.dumps(before))
    for event in after:
        if event["job"]["name"] == "orders.clean_orders":
            for item in event["inputs"]:
                item["facets"]["schema"]["fields"][0]["type"] = "long"

    assert {d.job: d.changes for d in diff_graphs(build_graph(before), build_graph(after))} == {
        "orders.clean_orders": [Change("field_retyped", "input", f"file://{RAW}", "order_id: string -> long")]
    }


def test_a_golden_file_summarises_as_its_events(write_jsonl, tmp_path: Path, capsys) -> None:
    """The failed run counts: a golden file's events are read START first, its end state last."""
    actual = write_jsonl(_with_dag_run(orders_events()))
    golden = tmp_path / "orders.json"
    write_expected(golden, actual, preserve=False, full=False)

    firsts = []
    for source in (actual, golden):
        assert main(["summary", str(source)]) == 0
        firsts.append(capsys.readouterr().out.splitlines()[0])
    assert firsts[0] == firsts[1]
    assert "1 failed run(s)" in firsts[0]


def test_the_project_golden_file_reads_as_a_lineage_side(capsys) -> None:
    assert main(["diff", str(GOLDEN), str(GOLDEN)]) == 0
    assert main(["diff", "--placeholder", "base_dir=/x", str(GOLDEN), str(GOLDEN)]) == 0
    assert main(["summary", str(GOLDEN)]) == 0
    out = capsys.readouterr().out
    assert "example_file_pipeline.aggregate_daily" in out
    assert "read:  file://${base_dir}/clean/orders" in out


def test_the_harness_mismatch_message_points_to_the_diff_command(write_jsonl) -> None:
    from lineage_operators.testing import assert_events_match

    with pytest.raises(AssertionError, match="`lineage-operators diff EXPECTED ACTUAL`"):
        assert_events_match(write_jsonl(orders_events()), {f"{AGG}.event.complete": {"eventType": "FAIL"}})
