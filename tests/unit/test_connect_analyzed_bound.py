"""spark/connect/analyzed.py asks the server for a statement's plan only when the plan's guessed size
(from the SQL text and the output columns, known before asking) fits: the explain of a plan of
megabytes took tens of seconds on the server, inside the task's time."""

from __future__ import annotations

import itertools
from pathlib import Path

from lineage_operators.spark.connect.analyzed import (
    MAX_PLAN_CHARS,
    analyzed_column_lineage,
    expected_plan_chars,
    explains_without_running,
)

_TPCH = Path(__file__).resolve().parents[1] / "spark" / "tpch"


def _union_of_computed(branches: int, columns: int) -> str:
    """The shape whose wide plan text measured 3.1 MB: a UNION ALL of computed columns."""
    select = "SELECT " + ", ".join(f"a + {i} AS c{i}" for i in range(columns)) + " FROM t"
    return " UNION ALL ".join([select] * branches)


def _asked(statement: str, output_columns: int) -> list[bool]:
    calls: list[bool] = []

    def explain(wide: bool) -> str:
        calls.append(wide)
        return ""  # no plan in the answer: no facet, but the server was asked

    names = [f"c{i}" for i in range(output_columns)]
    assert (
        analyzed_column_lineage(explain, names, [], lambda view: [], itertools.count(), statement=statement)
        is None
    )
    return calls


def test_every_tpch_query_is_asked_for() -> None:
    queries = sorted(_TPCH.glob("q*.sql"))
    assert len(queries) == 22
    for query in queries:
        text = f"CREATE TABLE out USING parquet AS {query.read_text()}"
        assert expected_plan_chars(text, 10) < MAX_PLAN_CHARS / 10, query.name
        assert _asked(text, 10) == [False], query.name


def test_the_measured_large_union_is_not_asked_for() -> None:
    text = _union_of_computed(50, 300)
    assert expected_plan_chars(text, 300) > MAX_PLAN_CHARS
    assert _asked(text, 300) == []


def test_a_short_statement_over_a_wide_union_is_not_asked_for() -> None:
    """Few characters of SQL, many columns: the columns times the SELECTs bound it."""
    text = " UNION ALL ".join(["SELECT * FROM wide"] * 40)
    assert len(text) < 2000
    assert _asked(text, 400) == []
    assert _asked(text, 20) == [False]


def test_a_long_statement_of_few_columns_is_not_asked_for() -> None:
    text = "SELECT a FROM t WHERE a IN (" + ", ".join(str(i) for i in range(60_000)) + ")"
    assert _asked(text, 1) == []


def test_only_servers_that_do_not_run_an_explained_command_are_asked() -> None:
    """A 4.0 server runs the SQL command it explains (an INSERT inserted twice): never asked."""
    assert not explains_without_running("4.0.1")
    assert not explains_without_running("3.5.3")
    assert not explains_without_running("unknown")
    assert explains_without_running("4.1.0")
    assert explains_without_running("4.3.0-SNAPSHOT")
    assert explains_without_running("5.0.0")
