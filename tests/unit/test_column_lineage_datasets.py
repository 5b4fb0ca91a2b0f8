"""The column-lineage dataset layer, without Spark: naming sources, merging executions, the facet."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from openlineage.client.serde import Serde

from lineage_operators.column_lineage import PlanColumnLineage, SourceColumn, Transformation
from lineage_operators.column_lineage.datasets import attach_column_lineage, lineage_by_output
from lineage_operators.column_lineage.facet import column_lineage_facet
from lineage_operators.column_lineage.mapping import DatasetColumnLineage, InputColumn, to_datasets
from lineage_operators.column_lineage.merge import merge_outputs
from lineage_operators.column_lineage.settings import ColumnLineageSettings
from lineage_operators.model import DatasetName, LineageDataset

IDENTITY = Transformation("DIRECT", "IDENTITY")
TRANSFORM = Transformation("DIRECT", "TRANSFORMATION")
AGG = Transformation("DIRECT", "AGGREGATION")
MASKED_AGG = Transformation("DIRECT", "AGGREGATION", masking=True)
FILTER = Transformation("INDIRECT", "FILTER")
JOIN = Transformation("INDIRECT", "JOIN")

ORDERS = DatasetName("file", "/data/orders")
CUSTOMERS = DatasetName("file", "/data/customers")
OUT = DatasetName("file", "/data/out")


def col(ds: DatasetName, name: str) -> InputColumn:
    return InputColumn(ds.namespace, ds.name, name)


# -- mapping --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plan_fields", "names_of", "expected"),
    [
        pytest.param(
            {"a": {SourceColumn(1, "a"): frozenset({IDENTITY})}},
            {1: [ORDERS]},
            {"a": {col(ORDERS, "a"): {IDENTITY}}},
            id="one source column -> its dataset",
        ),
        pytest.param(
            {"a": {SourceColumn(1, "a"): frozenset({IDENTITY})}},
            {},
            {},
            id="leaf that is not a dataset is dropped",
        ),
        pytest.param(
            {
                "a": {
                    SourceColumn(1, "a"): frozenset({IDENTITY}),
                    SourceColumn(2, "a"): frozenset({TRANSFORM}),
                }
            },
            {1: [ORDERS], 2: [ORDERS]},
            {"a": {col(ORDERS, "a"): {IDENTITY, TRANSFORM}}},
            id="two leaves of one dataset (self join, union): one entry, all transformations",
        ),
        pytest.param(
            {"a": {SourceColumn(1, "x"): frozenset({AGG})}},
            {1: [ORDERS, CUSTOMERS]},
            {"a": {col(ORDERS, "x"): {AGG}, col(CUSTOMERS, "x"): {AGG}}},
            id="a leaf over two datasets gives both",
        ),
    ],
)
def test_to_datasets(plan_fields: Any, names_of: Any, expected: Any) -> None:
    lineage = to_datasets(PlanColumnLineage(fields=plan_fields), names_of)
    assert {c: {k: set(v) for k, v in deps.items()} for c, deps in lineage.fields.items()} == expected
    assert lineage.columns == list(plan_fields)


def test_to_datasets_dataset_dependencies_and_partial() -> None:
    plan = PlanColumnLineage(
        fields={"a": {}},
        dataset={SourceColumn(1, "k"): frozenset({JOIN}), SourceColumn(9, "x"): frozenset({FILTER})},
        unknown_nodes=("org.example.Weird",),
    )
    lineage = to_datasets(plan, {1: [ORDERS]})
    assert lineage.dataset == {col(ORDERS, "k"): frozenset({JOIN})}
    assert lineage.fields == {}  # "a" depends on nothing named
    assert lineage.columns == ["a"]
    assert lineage.partial


# -- merge ----------------------------------------------------------------------------------


def test_merge_two_writes_of_one_output() -> None:
    first = DatasetColumnLineage(fields={"a": {col(ORDERS, "a"): frozenset({IDENTITY})}}, columns=["a"])
    second = DatasetColumnLineage(
        fields={
            "a": {col(ORDERS, "a"): frozenset({TRANSFORM})},
            "b": {col(CUSTOMERS, "b"): frozenset({AGG})},
        },
        dataset={col(CUSTOMERS, "k"): frozenset({FILTER})},
        columns=["a", "b"],
        partial=True,
    )
    merged = merge_outputs([(OUT, first), (OUT, second), (ORDERS, first)])
    out = merged[OUT]
    assert out.columns == ["a", "b"]
    assert out.fields == {
        "a": {col(ORDERS, "a"): frozenset({IDENTITY, TRANSFORM})},
        "b": {col(CUSTOMERS, "b"): frozenset({AGG})},
    }
    assert out.dataset == {col(CUSTOMERS, "k"): frozenset({FILTER})}
    assert out.partial
    assert merged[ORDERS].fields == first.fields
    # inputs are not mutated by the merge
    assert first.fields == {"a": {col(ORDERS, "a"): frozenset({IDENTITY})}}


# -- facet ----------------------------------------------------------------------------------


def _facet_json(lineage: DatasetColumnLineage, mode: str) -> dict[str, Any]:
    import json

    facet = column_lineage_facet(lineage, mode)
    assert facet is not None
    data = json.loads(Serde.to_json(facet))
    data.pop("_producer")
    data.pop("_schemaURL")
    return data


def _in(ds: DatasetName, field_name: str, *ts: tuple[str, str, bool]) -> dict[str, Any]:
    return {
        "namespace": ds.namespace,
        "name": ds.name,
        "field": field_name,
        "transformations": [{"type": t, "subtype": s, "description": "", "masking": m} for t, s, m in ts],
    }


LINEAGE = DatasetColumnLineage(
    fields={
        "revenue": {col(ORDERS, "amount"): frozenset({AGG})},
        "n": {col(ORDERS, "id"): frozenset({MASKED_AGG})},
        "segment": {col(CUSTOMERS, "segment"): frozenset({IDENTITY})},
    },
    dataset={
        col(ORDERS, "customer_id"): frozenset({JOIN}),
        col(CUSTOMERS, "id"): frozenset({JOIN}),
        col(CUSTOMERS, "segment"): frozenset({Transformation("INDIRECT", "GROUP_BY")}),
    },
    columns=["segment", "revenue", "n"],
)


def test_facet_dataset_mode_like_openlineage_spark() -> None:
    assert _facet_json(LINEAGE, "dataset") == {
        "fields": {
            "segment": {"inputFields": [_in(CUSTOMERS, "segment", ("DIRECT", "IDENTITY", False))]},
            "revenue": {"inputFields": [_in(ORDERS, "amount", ("DIRECT", "AGGREGATION", False))]},
            "n": {"inputFields": [_in(ORDERS, "id", ("DIRECT", "AGGREGATION", True))]},
        },
        "dataset": [
            _in(CUSTOMERS, "id", ("INDIRECT", "JOIN", False)),
            _in(CUSTOMERS, "segment", ("INDIRECT", "GROUP_BY", False)),
            _in(ORDERS, "customer_id", ("INDIRECT", "JOIN", False)),
        ],
    }
    facet = column_lineage_facet(LINEAGE, "dataset")
    assert facet is not None
    assert list(facet.fields) == ["segment", "revenue", "n"]  # the output's column order


def test_facet_fields_mode_copies_dataset_dependencies_into_every_field() -> None:
    data = _facet_json(LINEAGE, "fields")
    assert "dataset" not in data
    assert data["fields"]["segment"]["inputFields"] == [
        _in(CUSTOMERS, "id", ("INDIRECT", "JOIN", False)),
        # one entry per input column, with all its distinct transformations
        _in(CUSTOMERS, "segment", ("DIRECT", "IDENTITY", False), ("INDIRECT", "GROUP_BY", False)),
        _in(ORDERS, "customer_id", ("INDIRECT", "JOIN", False)),
    ]
    assert [f["field"] for f in data["fields"]["n"]["inputFields"]] == ["id", "segment", "customer_id", "id"]


def test_facet_none_without_any_dependency() -> None:
    assert column_lineage_facet(DatasetColumnLineage(columns=["a"]), "dataset") is None


def test_facet_validates_against_the_spec() -> None:
    import copy
    import json
    from pathlib import Path

    from lineage_operators.testing import load_events
    from lineage_operators.testing.schema import schema_errors

    sample = Path(__file__).parent / "harness_fixtures" / "sample_events.jsonl"
    event = copy.deepcopy(next(iter(load_events(sample).values()))[0])
    event["outputs"] = [{"namespace": OUT.namespace, "name": OUT.name, "facets": {}}]
    for mode in ("dataset", "fields"):
        facet = json.loads(Serde.to_json(column_lineage_facet(LINEAGE, mode)))
        event["outputs"][0]["facets"]["columnLineage"] = facet
        assert schema_errors(event) == []
    event["outputs"][0]["facets"]["columnLineage"]["fields"]["n"]["inputFields"][0].pop("field")
    assert schema_errors(event)  # the check can fail


# -- across the executions of a task -----------------------------------------------------------


@dataclass
class Rel:
    """Stands for the capture's RelationFacts: a location and the leaf's exprIds."""

    location: str
    expr_ids: tuple[int, ...] = ()


@dataclass
class Execution:
    inputs: list[Rel] = field(default_factory=list)
    outputs: list[Rel] = field(default_factory=list)
    column_lineage: PlanColumnLineage | None = None


def name_rel(rel: Rel) -> list[DatasetName]:
    if rel.location == "unnamable":
        raise ValueError("no name")
    return [DatasetName("file", rel.location)]


def identity(*pairs: tuple[str, int, str]) -> PlanColumnLineage:
    return PlanColumnLineage(
        fields={out: {SourceColumn(expr_id, src): frozenset({IDENTITY})} for out, expr_id, src in pairs}
    )


def test_intermediate_dataset_chain_and_merge() -> None:
    executions = [
        # 1: orders -> /tmp/stage (id, amount)
        Execution(
            [Rel("/data/orders", (1, 2))],
            [Rel("/tmp/stage")],
            identity(("id", 1, "id"), ("amount", 2, "amount")),
        ),
        # a read-only execution (count): no outputs, ignored
        Execution([Rel("/tmp/stage", (7, 8))], [], None),
        # 2: /tmp/stage -> /data/out: names the intermediate, not orders
        Execution([Rel("/tmp/stage", (10, 11))], [Rel("/data/out")], identity(("total", 11, "amount"))),
        # 3: appends to /data/out from customers: merged
        Execution(
            [Rel("/data/customers", (20,)), Rel("unnamable", (21,))],
            [Rel("/data/out")],
            identity(("total", 20, "credit"), ("extra", 21, "x")),
        ),
    ]
    merged = lineage_by_output(executions, name_rel)
    stage, out = DatasetName("file", "/tmp/stage"), DatasetName("file", "/data/out")
    assert merged[stage].fields == {
        "id": {col(ORDERS, "id"): frozenset({IDENTITY})},
        "amount": {col(ORDERS, "amount"): frozenset({IDENTITY})},
    }
    assert merged[out].fields == {
        "total": {
            col(stage, "amount"): frozenset({IDENTITY}),
            col(CUSTOMERS, "credit"): frozenset({IDENTITY}),
        }
    }
    assert merged[out].columns == ["total", "extra"]


def test_attach_respects_settings() -> None:
    executions = [
        Execution([Rel("/data/orders", (1, 2))], [Rel("/data/out")], identity(("a", 1, "a"), ("b", 2, "b")))
    ]

    def outputs() -> list[LineageDataset]:
        return [LineageDataset("file", "/data/out"), LineageDataset("file", "/data/other")]

    attached = outputs()
    attach_column_lineage(attached, executions, name_rel)
    assert list(attached[0].facets["columnLineage"].fields) == ["a", "b"]
    assert "columnLineage" not in attached[1].facets

    too_wide = outputs()
    attach_column_lineage(too_wide, executions, name_rel, ColumnLineageSettings(max_columns=1))
    assert "columnLineage" not in too_wide[0].facets

    off = outputs()
    attach_column_lineage(off, executions, name_rel, ColumnLineageSettings(enabled=False))
    assert "columnLineage" not in off[0].facets

    fields_mode = outputs()
    attach_column_lineage(
        fields_mode, executions, name_rel, ColumnLineageSettings(dataset_dependencies="fields")
    )
    assert fields_mode[0].facets["columnLineage"].dataset is None


def test_attach_never_raises(caplog: pytest.LogCaptureFixture) -> None:
    def broken(rel: Any) -> list[DatasetName]:
        raise RuntimeError("boom")

    executions = [Execution([Rel("/data/orders", (1,))], [Rel("/data/out")], identity(("a", 1, "a")))]
    out = [LineageDataset("file", "/data/out")]
    attach_column_lineage(out, executions, broken)
    assert "columnLineage" not in out[0].facets
    assert "column lineage facets failed" in caplog.text
