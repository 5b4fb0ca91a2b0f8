"""Declared checks, the metric naming convention and the data-quality facets, over plain data."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from lineage_operators.quality import (
    DataQuality,
    between,
    data_quality_spec,
    dataset_metrics,
    expression,
    in_set,
    not_null,
    observation_aggregates,
    row_count,
    unique,
)
from lineage_operators.quality.checks import UNIQUE_RSD, quote_column, sql_literal

# -- what each check computes --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "aggregates"),
    [
        (
            not_null("amount"),
            {"rowCount": "count(1)", "amount.count": "count(`amount`)"},
        ),
        (
            unique("id"),
            {"id.count": "count(`id`)", "id.distinctCount": f"approx_count_distinct(`id`, {UNIQUE_RSD})"},
        ),
        (between("amount", 0, 10), {"amount.min": "min(`amount`)", "amount.max": "max(`amount`)"}),
        (
            in_set("status", ["new", "it's"]),
            {
                "in_set_status.failures": "count_if(`status` IS NOT NULL AND `status` NOT IN "
                "('new', 'it\\'s'))"
            },
        ),
        (row_count(min=1), {"rowCount": "count(1)"}),
        (
            expression("amount >= 0", name="positive"),
            {"positive.failures": "count_if(NOT (amount >= 0))"},
        ),
    ],
)
def test_each_check_compiles_to_named_aggregates(check: Any, aggregates: dict[str, str]) -> None:
    assert check.aggregates() == aggregates


def test_checks_of_a_dataset_share_their_aggregates() -> None:
    merged = observation_aggregates([not_null("a"), not_null("b"), row_count(max=5)])
    assert list(merged) == ["rowCount", "a.count", "b.count"]


@pytest.mark.parametrize(
    ("column", "quoted"),
    [("amount", "`amount`"), ("customer.city", "`customer`.`city`"), ("we`ird", "`we``ird`")],
)
def test_quote_column(column: str, quoted: str) -> None:
    assert quote_column(column) == quoted


@pytest.mark.parametrize(
    ("value", "literal"),
    [(True, "TRUE"), (3, "3"), (2.5, "2.5"), ("a'b\\c", "'a\\'b\\\\c'")],
)
def test_sql_literal(value: Any, literal: str) -> None:
    assert sql_literal(value) == literal


# -- verdicts ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "observed", "status", "actual"),
    [
        (not_null("a"), {"rowCount": 3, "a.count": 3}, "pass", "0"),
        (not_null("a"), {"rowCount": 3, "a.count": 1}, "fail", "2"),
        (not_null("a"), {"rowCount": 0, "a.count": 0}, "pass", "0"),
        (not_null("a"), {"rowCount": 3}, "skip", None),
        (unique("id"), {"id.count": 1000, "id.distinctCount": 985}, "pass", "985 distinct of 1000"),
        (unique("id"), {"id.count": 1000, "id.distinctCount": 500}, "fail", "500 distinct of 1000"),
        (between("x", 0, 10), {"x.min": 0, "x.max": 10}, "pass", "min 0, max 10"),
        (between("x", 0, 10), {"x.min": -1, "x.max": 5}, "fail", "min -1, max 5"),
        (between("x", high=10), {"x.min": -100, "x.max": 11}, "fail", "min -100, max 11"),
        (between("x", 0), {"x.min": None, "x.max": None}, "pass", "no values"),
        (in_set("s", ["a"]), {"in_set_s.failures": 1}, "fail", "1"),
        (row_count(min=1, max=2), {"rowCount": 2}, "pass", "2"),
        (row_count(min=1), {"rowCount": 0}, "fail", "0"),
        (expression("x > 0", name="p"), {"p.failures": 0}, "pass", "0"),
    ],
)
def test_verdicts(check: Any, observed: dict[str, Any], status: str, actual: str | None) -> None:
    verdict = check.evaluate(observed)
    assert (verdict.status, verdict.actual) == (status, actual)


@pytest.mark.parametrize(
    ("check", "expected"),
    [
        (not_null("a"), "0"),
        (between("x", 0, 10.5), "between 0 and 10.5"),
        (row_count(min=1), ">= 1"),
        (row_count(max=9), "<= 9"),
        (unique("id"), "distinct count = count"),
    ],
)
def test_expected_text(check: Any, expected: str) -> None:
    assert check.expected == expected


# -- bad definitions: a clear error when the DAG is defined --------------------------------------


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda: not_null(""), ValueError, "column must be a non-empty string"),
        (lambda: between("x"), ValueError, "give low, high or both"),
        (lambda: between("x", 5, 1), ValueError, "low 5.0 is above high 1.0"),
        (lambda: between("x", "0", 1), TypeError, "low must be a finite number"),
        (lambda: in_set("x", "abc"), TypeError, "values must be a list"),
        (lambda: in_set("x", []), ValueError, "values is empty"),
        (lambda: in_set("x", [None]), TypeError, "string, integer, finite float or boolean"),
        (row_count, ValueError, "give min, max or both"),
        (lambda: row_count(min=True), TypeError, "min must be a finite number"),
        (lambda: expression(" "), ValueError, "non-empty SQL string"),
        (lambda: expression("a > 0; DROP TABLE t"), ValueError, "without ';'"),
        (lambda: not_null("a", name="has space"), ValueError, "name must be letters"),
    ],
)
def test_bad_checks_are_clear_errors(build: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        build()


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (["/data"], TypeError, "task_a: data_quality must be a mapping"),
        ({"/data": "not_null(id)"}, TypeError, "task_a: data_quality: /data: give a check"),
        ({"/data": ["x"]}, TypeError, "'x' is not a check"),
        ({"": [not_null("a")]}, ValueError, "non-empty path or table name"),
        ({"/d": [not_null("a"), not_null("a")]}, ValueError, "repeated: not_null_a"),
        ({"/d": []}, TypeError, "non-empty list of checks"),
    ],
)
def test_bad_data_quality_arguments_name_the_task(value: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        data_quality_spec(value, owner="task_a")


def test_data_quality_spec_normalizes() -> None:
    spec = data_quality_spec({" /data/orders ": not_null("id")})
    assert spec is not None
    assert spec.checks == {"/data/orders": (not_null("id"),)}
    assert (spec.on_failure, spec.severity) == ("report", "warn")
    strict = DataQuality({"db.t": [row_count(min=1)]}, on_failure="fail")
    assert data_quality_spec(strict) is strict
    assert strict.severity == "error"
    assert data_quality_spec(None) is None
    with pytest.raises(ValueError, match="on_failure must be one of"):
        DataQuality({}, on_failure="raise")


# -- the metric naming convention ----------------------------------------------------------------


def test_a_columns_nulls_are_its_rows_minus_its_values_unless_observed() -> None:
    metrics, _ = dataset_metrics({"rowCount": 10, "a.count": 7, "b.count": 9, "b.nullCount": 0})
    assert metrics.columns == {"a": {"count": 7, "nullCount": 3}, "b": {"count": 9, "nullCount": 0}}
    assert dataset_metrics({"a.count": 7})[0].columns == {"a": {"count": 7}}  # no rowCount: no nulls


def test_metric_names_map_to_the_facet_fields() -> None:
    metrics, dropped = dataset_metrics(
        {
            "rowCount": 10,
            "bytes": 2048,
            "amount.nullCount": 1,
            "amount.min": Decimal("0.50"),
            "amount.max": 99.5,
            "amount.sum": 120,
            "amount.quantiles.0.5": 7.0,
            "customer.address.distinctCount": 4,
            "id.count": 10,
            "positive.failures": 0,  # a check's own count: no facet field
            "amount.mean": 12.0,  # not in the convention
            "name.min": "Ann",  # the facet's min is a number
            "fileCount": 1.5,  # a count that is no integer
            "x.quantiles.median": 1.0,  # not a quantile
        }
    )
    assert metrics.dataset == {"rowCount": 10, "bytes": 2048}
    assert metrics.columns == {
        "amount": {"nullCount": 1, "min": 0.5, "max": 99.5, "sum": 120, "quantiles": {"0.5": 7.0}},
        "customer.address": {"distinctCount": 4},
        "id": {"count": 10, "nullCount": 0},
    }
    assert sorted(dropped) == [
        "amount.mean",
        "fileCount",
        "name.min",
        "positive.failures",
        "x.quantiles.median",
    ]
    assert not dataset_metrics({"other": 1})[0]


# -- facets, in one event that must pass the official schemas ------------------------------------


def test_the_tasks_own_observations_merge_without_the_checks() -> None:
    from lineage_operators.quality.metrics import CHECKS_OBSERVATION_PREFIX, observed_metrics

    metrics, dropped = observed_metrics(
        {
            "orders": {"rowCount": 10, "amount.max": 3.5, "note": "x"},
            "more": {"amount.min": 1, "rowCount": 12},
            f"{CHECKS_OBSERVATION_PREFIX}4": {"rowCount": 99, "id.count": 99},
        }
    )
    assert metrics.dataset == {"rowCount": 12}  # the last observation's value wins
    assert metrics.columns == {"amount": {"max": 3.5, "min": 1}}
    assert dropped == ["note"]


@pytest.mark.parametrize(
    ("text", "observed"),
    [
        (None, []),
        ("", []),
        ('q\x1f{"rowCount":3,"a.max":2.5}\x1f', [("q", {"rowCount": 3, "a.max": 2.5}, None)]),
        (
            'q\x1f{"rowCount":3}\x1f17\x1dr\x1f{"b.sum":7}',
            [("q", {"rowCount": 3}, 17), ("r", {"b.sum": 7}, None)],
        ),
        ('q\x1fnot json\x1f\x1dr\x1f{"b.sum":7}\x1f', [("r", {"b.sum": 7}, None)]),
        ("q", []),
    ],
)
def test_observed_values_are_read_from_the_jvm_text(
    text: str | None, observed: list[tuple[Any, ...]]
) -> None:
    from lineage_operators.spark.plan.execution import observed_values

    assert [(o.name, o.values, o.read_expr_id) for o in observed_values(text)] == observed


def test_an_observation_on_a_read_goes_to_that_input_else_to_the_outputs() -> None:
    from lineage_operators.spark.facts import RelationFacts
    from lineage_operators.spark.plan.execution import Observation, attach_observed

    read, other = (
        RelationFacts(location="/in", expr_ids=(4, 5)),
        RelationFacts(location="/other", expr_ids=(9,)),
    )
    written = RelationFacts(location="/out")
    attach_observed(
        [
            Observation("on_read", {"rowCount": 10}, 4),
            Observation("lost_read", {"rowCount": 3}, 99),
            Observation("on_write", {"rowCount": 2}),
        ],
        [read, other],
        [written],
    )
    assert read.observed == {"on_read": {"rowCount": 10}}
    assert other.observed is None
    assert written.observed == {"lost_read": {"rowCount": 3}, "on_write": {"rowCount": 2}}


def test_facets_pass_the_openlineage_schemas() -> None:
    from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
    from openlineage.client.serde import Serde

    from lineage_operators.quality.facets import assertions_facet, metrics_facet, test_facet
    from lineage_operators.testing.schema import SpecNotFoundError, validate_event

    checks = [not_null("amount"), between("amount", 0, 10), unique("id")]
    observed = {"rowCount": 3, "amount.count": 2, "amount.min": 1, "amount.max": 12}
    verdicts = [c.evaluate(observed) for c in checks]
    assert [v.status for v in verdicts] == ["fail", "fail", "skip"]
    metrics, _ = dataset_metrics(observed)
    assertions = assertions_facet(verdicts, "warn")
    assert [(a.assertion, a.success, a.column) for a in assertions.assertions] == [
        ("not_null", False, "amount"),
        ("between", False, "amount"),
    ]
    tests = test_facet([(("file", "/out"), v) for v in verdicts], "warn")
    where = {"datasetNamespace": "file", "datasetName": "/out"}
    assert [(t.name, t.status, t.severity, t.params) for t in tests.tests] == [
        ("not_null_amount", "fail", "warn", {**where, "column": "amount"}),
        ("between_amount", "fail", "warn", {**where, "column": "amount"}),
        ("unique_id", "skip", "warn", {**where, "column": "id"}),
    ]
    output_metrics = metrics_facet(metrics, as_input=False)
    assert output_metrics.rowCount == 3
    assert output_metrics.columnMetrics["amount"].nullCount == 1
    event = RunEvent(
        eventType=RunState.COMPLETE,
        eventTime="2026-01-01T00:00:00+00:00",
        run=Run(runId="01a1fd27-4188-7960-bfd2-600ddb2c6c6e", facets={"test": tests}),
        job=Job(namespace="ns", name="job"),
        inputs=[
            InputDataset(
                namespace="file",
                name="/in",
                inputFacets={
                    "dataQualityMetrics": metrics_facet(metrics, as_input=True),
                    "dataQualityAssertions": assertions,
                },
            )
        ],
        outputs=[OutputDataset(namespace="file", name="/out", facets={"dataQualityMetrics": output_metrics})],
    )
    try:
        validate_event(Serde.to_dict(event))
    except SpecNotFoundError:
        pytest.skip("no OpenLineage spec directory")
