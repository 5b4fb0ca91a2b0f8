"""The graph model: datasets joined across tasks, column edges, runs, failures, skipped input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.support.orders_events import CLEAN, DAILY, PUBLISHED, RAW, orders_events

from lineage_operators.cli.main import load_graph
from lineage_operators.cli.model import ColumnEdge, build_graph, schema_fields
from lineage_operators.cli.reading import Skips
from lineage_operators.testing.schema import validate_events


def test_fixture_events_follow_the_openlineage_spec() -> None:
    validate_events(orders_events())


def test_datasets_are_joined_across_tasks_by_namespace_and_name() -> None:
    graph = build_graph(orders_events())

    assert set(graph.datasets) == {("file", p) for p in (RAW, CLEAN, DAILY, PUBLISHED)}
    assert graph.datasets[("file", CLEAN)].writers == {"orders.clean_orders"}
    assert graph.datasets[("file", CLEAN)].readers == {"orders.aggregate_daily"}
    assert graph.jobs["orders.aggregate_daily"].inputs == {("file", CLEAN)}
    assert graph.jobs["orders.aggregate_daily"].outputs == {("file", DAILY)}
    assert graph.datasets[("file", DAILY)].fields == {
        "order_date": "date",
        "revenue": "double",
        "orders": "long",
    }


def test_column_edges_keep_transformations_and_dataset_level_dependencies() -> None:
    edges = set(build_graph(orders_events()).column_edges)

    assert (
        ColumnEdge(
            ("file", CLEAN),
            "amount",
            ("file", DAILY),
            "revenue",
            "orders.aggregate_daily",
            ("DIRECT/AGGREGATION",),
        )
        in edges
    )
    assert (
        ColumnEdge(
            ("file", CLEAN),
            "order_date",
            ("file", DAILY),
            None,
            "orders.aggregate_daily",
            ("INDIRECT/GROUP_BY",),
        )
        in edges
    )
    assert len(edges) == 4 + 1 + 3 + 1


def test_runs_state_duration_and_error_and_failed_datasets() -> None:
    graph = build_graph(orders_events())
    publish = graph.jobs["orders.publish_revenue"]
    run = publish.latest_run

    assert run is not None
    assert (run.state, run.duration_s, run.error) == ("FAIL", 42.0, "publish failed: target is read-only")
    assert publish.failed
    assert not graph.jobs["orders.clean_orders"].failed
    assert graph.failed_datasets() == {("file", DAILY), ("file", PUBLISHED)}


def test_latest_facets_win_whatever_the_file_order() -> None:
    events = orders_events()
    late = json.loads(json.dumps(events[1]))  # ingest COMPLETE, one hour later, APPEND
    late["eventTime"] = "2026-01-01T05:00:00+00:00"
    late["outputs"][0]["facets"]["lifecycleStateChange"]["lifecycleStateChange"] = "APPEND"

    graph = build_graph([late, *events])

    assert graph.datasets[("file", RAW)].facets["lifecycleStateChange"]["lifecycleStateChange"] == "APPEND"


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"fields": [{"name": "a", "type": "int"}]}, {"a": "int"}),
        (
            {"fields": [{"name": "s", "type": "struct", "fields": [{"name": "x", "type": "long"}]}]},
            {"s": "struct", "s.x": "long"},
        ),
        ({"fields": [{"name": "untyped"}, {"type": "no name"}, "junk"]}, {"untyped": None}),
        ({"fields": "not a list"}, {}),
    ],
)
def test_schema_fields_flatten_nested_fields_and_ignore_junk(schema: dict, expected: dict) -> None:
    assert schema_fields({"schema": schema}) == expected


def test_bad_input_is_counted_by_reason_never_raised(write_jsonl, tmp_path: Path) -> None:
    other = dict(
        orders_events()[1], producer="https://github.com/OpenLineage/OpenLineage/tree/1.0/integration/spark"
    )
    other["job"] = {"namespace": "spark", "name": "spark_app.execute_insert"}
    path = write_jsonl(
        [
            *orders_events(),
            "{not json",
            "[1, 2]",
            other,
            {"eventType": "COMPLETE", "dataset": {"namespace": "file", "name": "/x"}},
            {"job": {"name": "j"}, "run": {}},
        ]
    )

    graph = load_graph([path])

    reasons = dict(graph.skips.counts)
    assert reasons == {
        "malformed JSON": 1,
        "not a JSON object": 2,
        "other producer (https://github.com/OpenLineage/OpenLineage/tree/1.0/integration/spark)": 1,
        "not a run event (job or dataset event, or no job/run)": 1,
        "run event without job name or run id": 1,
    }
    assert graph.skips.first_seen["malformed JSON"] == f"{path}:9"
    assert set(graph.jobs) == {
        "orders.ingest_orders",
        "orders.clean_orders",
        "orders.aggregate_daily",
        "orders.publish_revenue",
    }
    assert graph.events_without_datasets == 1  # ingest's START reads and writes nothing
    assert load_graph([path], any_producer=True).jobs.keys() >= {"spark_app.execute_insert"}


def test_dag_level_events_are_runs_but_not_graph_nodes() -> None:
    dag_event = {
        "eventTime": "2026-01-01T00:00:00+00:00",
        "eventType": "COMPLETE",
        "producer": "https://github.com/apache/airflow/tree/providers-openlineage/2.0.0",
        "run": {"runId": "r", "facets": {"airflowDagRun": {"dag": {"dag_id": "orders"}}}},
        "job": {"namespace": "default", "name": "orders"},
    }
    graph = build_graph([dag_event, *orders_events()], Skips())

    assert graph.jobs["orders"].is_dag
    assert not graph.jobs["orders"].drawn
    assert graph.jobs["orders.clean_orders"].drawn


def test_runs_kept_per_job_are_bounded_but_all_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    from lineage_operators.cli import model

    monkeypatch.setattr(model, "MAX_RUNS_PER_JOB", 3)
    events = []
    for day in range(10):
        for event in orders_events():
            copy = json.loads(json.dumps(event))
            copy["run"]["runId"] = f"{copy['run']['runId'][:-2]}{day:02d}"
            copy["eventTime"] = copy["eventTime"].replace("2026-01-01", f"2026-01-{day + 1:02d}")
            events.append(copy)

    graph = build_graph(events)
    publish = graph.jobs["orders.publish_revenue"]

    assert len(publish.runs) == 3
    assert (publish.run_count, publish.failed_count) == (10, 10)
    assert {r.started[:10] for r in publish.runs.values() if r.started} == {
        "2026-01-08",
        "2026-01-09",
        "2026-01-10",
    }


def test_a_datasets_checks_come_from_the_runs_that_wrote_it_and_its_assertions() -> None:
    from tests.support.orders_events import CLEAN

    from lineage_operators.cli.html import view_data

    data = view_data(build_graph(orders_events()))
    by_name = {d["name"]: d for d in data["datasets"]}
    checks = by_name[CLEAN]["checks"]
    assert [(c["name"], c["status"], c["column"], c["job"]) for c in checks] == [
        ("not_null_order_id", "fail", "order_id", "orders.clean_orders"),
        ("row_count", "pass", None, "orders.clean_orders"),
    ]
    assert all(not d["checks"] for name, d in by_name.items() if name != CLEAN)  # placed by dataset
