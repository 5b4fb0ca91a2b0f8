"""Helpers of the column-lineage Spark tests: a compact, exact view of a ``columnLineage`` facet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spark_helpers import get

from lineage_operators.spark.facts import CaptureResult

# transformation shorthands: (type, subtype, masking)
I = ("DIRECT", "IDENTITY", False)  # noqa: E741
T = ("DIRECT", "TRANSFORMATION", False)
TM = ("DIRECT", "TRANSFORMATION", True)
A = ("DIRECT", "AGGREGATION", False)
AM = ("DIRECT", "AGGREGATION", True)
F = ("INDIRECT", "FILTER", False)
J = ("INDIRECT", "JOIN", False)
G = ("INDIRECT", "GROUP_BY", False)
S = ("INDIRECT", "SORT", False)
W = ("INDIRECT", "WINDOW", False)
C = ("INDIRECT", "CONDITIONAL", False)

Deps = dict[tuple[str, str], set[tuple[str, str, bool]]]


def write_pattern_inputs(session: Any, root: Path) -> dict[str, Path]:
    """The inputs of the column-lineage pattern scenarios (orders, customers, archive) as Parquet under
    ``root``, written through ``session`` (classic or Connect)."""
    orders = session.createDataFrame(
        [(1, 10, 120.0, "paid", "2026-01-01", "a b"), (2, 10, 5.0, "new", "2026-01-02", "c")],
        "order_id long, customer_id long, amount double, status string, ts string, note string",
    )
    customers = session.createDataFrame(
        [(10, "Ann", "gold", "ann@example.com", ["x", "y"])],
        "customer_id long, name string, segment string, email string, tags array<string>",
    )
    paths = {"orders": root / "orders", "customers": root / "customers", "archive": root / "archive"}
    orders.write.parquet(str(paths["orders"]))
    customers.write.parquet(str(paths["customers"]))
    orders.write.parquet(str(paths["archive"]))
    return paths


def short(name: str) -> str:
    """A dataset's last path element (``/tmp/x/orders`` -> ``orders``; ``db.public.t`` -> ``t``)."""
    return name.rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[-1]


def _deps(input_fields: Any) -> Deps:
    deps: Deps = {}
    for item in input_fields or []:
        key = (short(item.name), item.field)
        assert key not in deps, f"two entries for {key}: one per input column expected"
        deps[key] = {(t.type, t.subtype, bool(t.masking)) for t in item.transformations}
        assert len(deps[key]) == len(item.transformations), f"repeated transformation in {key}"
        assert all(t.description == "" for t in item.transformations)
    return deps


def facet_of(result: CaptureResult, output: Path | str) -> Any:
    dataset = get(result.outputs, output)
    assert "columnLineage" in dataset.facets, f"no columnLineage on {dataset.uri}: {sorted(dataset.facets)}"
    return dataset.facets["columnLineage"]


def lineage(result: CaptureResult, output: Path | str) -> tuple[dict[str, Deps], Deps]:
    """(fields, dataset) of the output's facet, input datasets shortened; checks it points at the event."""
    assert_points_at_event(result)
    facet = facet_of(result, output)
    return {name: _deps(f.inputFields) for name, f in facet.fields.items()}, _deps(facet.dataset)


def assert_points_at_event(result: CaptureResult) -> None:
    """Every input field names a dataset of the event: an input, or an output of the same task."""
    known = {(d.namespace, d.name) for d in (*result.inputs, *result.outputs)}
    for dataset in result.outputs:
        facet = dataset.facets.get("columnLineage")
        if facet is None:
            continue
        entries = [i for f in facet.fields.values() for i in f.inputFields] + list(facet.dataset or [])
        for entry in entries:
            assert (entry.namespace, entry.name) in known, (
                f"{dataset.uri}: column {entry.field} of {entry.namespace}/{entry.name} is not in the event"
            )
