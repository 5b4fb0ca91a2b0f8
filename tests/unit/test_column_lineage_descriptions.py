"""Column-lineage descriptions: the text rules (redaction, truncation), the engine's placement of
the texts the plan JSON carries ("sql"), the facet, and the switch's validation."""

from __future__ import annotations

from typing import Any

import pytest
from test_column_lineage_engine_rules import alias, attr, fn, node, project, rel

from lineage_operators.column_lineage import DIRECT, INDIRECT, SourceColumn, Transformation, lineage_of_plan
from lineage_operators.column_lineage.descriptions import (
    MAX_DESCRIPTION_CHARS,
    TRUNCATED_MARKER,
    clean,
    truncate,
)
from lineage_operators.column_lineage.facet import column_lineage_facet
from lineage_operators.column_lineage.mapping import DatasetColumnLineage, InputColumn
from lineage_operators.column_lineage.settings import ColumnLineageSettings, resolve_settings, validate

A, B = SourceColumn(1, "a"), SourceColumn(2, "b")


def described(text: str, *transformations: tuple[str, str]) -> frozenset[Transformation]:
    return frozenset(Transformation(kind, subtype, False, text) for kind, subtype in transformations)


def with_text(items: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """An expression array whose root carries the plan writer's text."""
    return [{**items[0], "sql": text}, *items[1:]]


def test_truncate_keeps_short_texts_and_marks_cut_ones() -> None:
    assert truncate("sum(amount)") == "sum(amount)"
    exact = "x" * MAX_DESCRIPTION_CHARS
    assert truncate(exact) == exact
    cut = truncate("y" * (MAX_DESCRIPTION_CHARS + 1))
    assert len(cut) == MAX_DESCRIPTION_CHARS
    assert cut == "y" * (MAX_DESCRIPTION_CHARS - len(TRUNCATED_MARKER)) + TRUNCATED_MARKER


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("concat(name, 'password=hunter2')", "hunter2"),
        ("(url = 'jdbc:postgresql://bob:s3cr3t@db/x')", "s3cr3t"),
        ("concat('Bearer abcdefghijklmnop', a)", "abcdefghijklmnop"),
    ],
)
def test_clean_redacts_secrets_in_literals(text: str, secret: str) -> None:
    cleaned = clean(text)
    assert secret not in cleaned
    assert cleaned.startswith(text[:6])


def test_clean_redacts_before_cutting() -> None:
    """A secret past the cut is gone, and one across it is redacted, not half kept."""
    text = (
        "concat(a, '" + "z" * (MAX_DESCRIPTION_CHARS - 30) + " password=hunter2hunter2', '" + "w" * 99 + "')"
    )
    cleaned = clean(text)
    assert cleaned.endswith(TRUNCATED_MARKER)
    assert "hunter2" not in cleaned
    assert clean(None) == ""
    assert clean("") == ""


def test_engine_describes_fields_by_their_expression_and_dataset_entries_by_their_condition() -> None:
    source = rel(attr(1, "a"), attr(2, "b"))
    filtered = node(
        "Filter", source, condition=with_text(fn("GreaterThan", attr(2, "b"), fn("Literal")), "(b > 1)")
    )
    grouped = node(
        "Aggregate",
        filtered,
        groupingExpressions=[with_text(attr(2, "b"), "b")],
        aggregateExpressions=[
            with_text(attr(2, "b"), "b"),
            with_text(
                alias(10, "total", fn("AggregateExpression", fn("Sum", attr(1, "a")))), "sum(a) AS total"
            ),
        ],
    )
    renamed = project(
        grouped,
        with_text(alias(11, "t", attr(10, "total")), "total AS t"),
        with_text(attr(2, "b"), "b"),
        with_text(alias(12, "c", attr(2, "b")), "b AS c"),
    )
    lineage = lineage_of_plan([*renamed])
    # a renamed computed column keeps its expression's text; a bare or renamed bare column its own
    assert lineage.fields["t"] == {A: described("sum(a) AS total", (DIRECT, "AGGREGATION"))}
    assert lineage.fields["b"] == {B: described("b", (DIRECT, "IDENTITY"))}
    assert lineage.fields["c"] == {B: described("b AS c", (DIRECT, "IDENTITY"))}
    assert lineage.dataset == {
        B: described("WHERE (b > 1)", (INDIRECT, "FILTER")) | described("GROUP BY b", (INDIRECT, "GROUP_BY"))
    }


def test_without_texts_nothing_is_described() -> None:
    """Descriptions off: the plan JSON has no "sql", every description stays empty."""
    filtered = node("Filter", rel(attr(1, "a")), condition=fn("IsNotNull", attr(1, "a")))
    lineage = lineage_of_plan(project(filtered, alias(10, "x", fn("Upper", attr(1, "a")))))
    assert lineage.fields["x"] == {A: described("", (DIRECT, "TRANSFORMATION"))}
    assert lineage.dataset == {A: described("", (INDIRECT, "FILTER"))}


def test_two_conditions_on_one_column_are_two_entries() -> None:
    first = node(
        "Filter", rel(attr(1, "a")), condition=with_text(fn("IsNotNull", attr(1, "a")), "(a IS NOT NULL)")
    )
    second = node("Filter", first, condition=with_text(fn("EqualTo", attr(1, "a"), fn("Literal")), "(a = 2)"))
    lineage = lineage_of_plan(project(second, attr(1, "a")))
    assert lineage.dataset == {
        A: described("WHERE (a IS NOT NULL)", (INDIRECT, "FILTER"))
        | described("WHERE (a = 2)", (INDIRECT, "FILTER"))
    }


def test_engine_redacts_and_cuts_the_plan_texts() -> None:
    long_text = "concat(a, 'password=hunter2', '" + "q" * 2000 + "')"
    plan = project(rel(attr(1, "a")), with_text(alias(10, "x", fn("Concat", attr(1, "a"))), long_text))
    ((transformation,),) = [list(kinds) for kinds in lineage_of_plan(plan).fields["x"].values()]
    assert "hunter2" not in transformation.description
    assert len(transformation.description) == MAX_DESCRIPTION_CHARS
    assert transformation.description.endswith(TRUNCATED_MARKER)


def test_facet_carries_the_descriptions() -> None:
    column = InputColumn("file", "/data/orders", "amount")
    lineage = DatasetColumnLineage(
        fields={"total": {column: described("sum(amount)", (DIRECT, "AGGREGATION"))}},
        dataset={column: described("(amount > 0)", (INDIRECT, "FILTER"))},
        columns=["total"],
    )
    facet = column_lineage_facet(lineage, "dataset")
    assert facet is not None
    assert [t.description for t in facet.fields["total"].inputFields[0].transformations or []] == [
        "sum(amount)"
    ]
    assert facet.dataset is not None
    assert [t.description for t in facet.dataset[0].transformations or []] == ["(amount > 0)"]


def test_switch_validated_at_dag_definition() -> None:
    from lineage_operators import LineageAwarePySparkOperator

    with pytest.raises(TypeError, match="LineageAwarePySparkOperator: column_lineage_descriptions must be"):
        LineageAwarePySparkOperator(
            task_id="t",
            python_callable=lambda: None,
            column_lineage_descriptions="yes",  # type: ignore[arg-type]
        )
    validate(descriptions=True)
    op = LineageAwarePySparkOperator(
        task_id="t", python_callable=lambda: None, column_lineage_descriptions=True
    )
    assert op.column_lineage_descriptions is True


def test_switch_from_the_config(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    assert resolve_settings().descriptions is False  # the default
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__COLUMN_LINEAGE_DESCRIPTIONS", "true")
    assert resolve_settings() == ColumnLineageSettings(descriptions=True)
    assert resolve_settings(descriptions=False).descriptions is False  # the argument wins
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__COLUMN_LINEAGE_DESCRIPTIONS", "sometimes")
    assert resolve_settings().descriptions is False
    assert "column_lineage_descriptions = 'sometimes' (invalid)" in caplog.text


def test_capture_reader_asks_the_writer_for_texts_only_when_on() -> None:
    from lineage_operators.spark.capture.classic_setup import column_reader

    on = column_reader(object(), ColumnLineageSettings(descriptions=True))
    off = column_reader(object(), ColumnLineageSettings())
    assert on._describe_cap > MAX_DESCRIPTION_CHARS
    assert off._describe_cap == 0
