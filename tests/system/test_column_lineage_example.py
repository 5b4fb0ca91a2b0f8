"""The column-lineage example DAG end to end: real Airflow, provider, listener and Spark; golden events
plus the facet's meaning spelled out (so a golden-file refresh cannot silently lose it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.system.conftest import assert_matches_golden, dataset_ids, final_event


def _deps(entries: list[dict[str, Any]]) -> dict[tuple[str, str], set[tuple[str, str]]]:
    return {
        (e["name"].rsplit("/", 1)[-1], e["field"]): {(t["type"], t["subtype"]) for t in e["transformations"]}
        for e in entries
    }


def test_revenue_per_segment_column_lineage(run_example, base_dir: Path):
    result = run_example("column_lineage")
    assert result.state == "success", result.task_states
    assert_matches_golden(result, "column_lineage", base_dir)

    event = final_event(result, "example_column_lineage", "revenue_per_segment")
    assert dataset_ids(event["inputs"]) == [
        ("file", f"{base_dir}/raw/customers"),
        ("file", f"{base_dir}/raw/orders"),
    ]
    (output,) = event["outputs"]
    facet = output["facets"]["columnLineage"]
    fields = {name: _deps(f["inputFields"]) for name, f in facet["fields"].items()}
    identity, agg = ("DIRECT", "IDENTITY"), ("DIRECT", "AGGREGATION")
    transform, window = ("DIRECT", "TRANSFORMATION"), ("INDIRECT", "WINDOW")
    assert fields["segment"] == {("customers", "segment"): {identity}}
    assert fields["month"] == {("orders", "order_ts"): {transform}}
    assert fields["revenue"] == {("orders", "amount"): {agg}}
    assert fields["orders"] == {("orders", "order_id"): {agg}}
    assert fields["rank_in_month"] == {("orders", "amount"): {window}, ("orders", "order_ts"): {window}}
    # revenue / sum(revenue) OVER (PARTITION BY month): the aggregation is the strongest DIRECT step
    assert fields["share_of_month"] == {("orders", "amount"): {agg}, ("orders", "order_ts"): {window}}
    dataset = _deps(facet["dataset"])
    assert dataset[("orders", "status")] == {("INDIRECT", "FILTER")}
    assert ("INDIRECT", "JOIN") in dataset[("orders", "customer_id")]
    assert ("INDIRECT", "JOIN") in dataset[("customers", "customer_id")]
    assert ("INDIRECT", "GROUP_BY") in dataset[("customers", "segment")]
    # every input field points at one of the event's inputs
    inputs = {(d["namespace"], d["name"]) for d in event["inputs"]}
    entries = [e for f in facet["fields"].values() for e in f["inputFields"]] + facet["dataset"]
    assert {(e["namespace"], e["name"]) for e in entries} <= inputs

    # the seed task wrote rows made in Python: no input dataset, so no column lineage to report
    seed = final_event(result, "example_column_lineage", "seed")
    assert all("columnLineage" not in d["facets"] for d in seed["outputs"])
