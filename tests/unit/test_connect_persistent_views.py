"""persistent_views: a persistent view's stored text as the relation the Connect translation reads
through (namespace of its unqualified names, its own column names), temp views first; and the
DESCRIBE rows and input matching it relies on. Without Spark."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("sqlglot")
pytest.importorskip("pyspark.sql.connect.proto")

from lineage_operators.spark.connect.columns.frame_columns import rels_of_reads
from lineage_operators.spark.connect.columns.plan_exprs import Untranslatable
from lineage_operators.spark.connect.persistent_views import ViewQueries, view_inputs, view_relation
from lineage_operators.spark.connect.plans import TableRead
from lineage_operators.spark.connect.server import TableInfo, table_info_from_rows
from lineage_operators.spark.facts import RelationFacts, TableRef

VIEW_ROWS = [
    ("seg", "string"),
    ("total", "double"),
    ("", ""),
    ("# Detailed Table Information", ""),
    ("Catalog", "spark_catalog"),
    ("Database", "sales"),
    ("Table", "top"),
    ("Type", "VIEW"),
    ("View Text", "SELECT segment, revenue * 2 AS doubled FROM revenue r JOIN other.t x ON r.k = x.k"),
    ("View Catalog and Namespace", "spark_catalog.sales"),
    ("View Query Output Columns", "[segment, doubled]"),
]


def _view(**changes: Any) -> TableInfo:
    info = table_info_from_rows("sales.top", VIEW_ROWS)
    return TableInfo(**{**info.__dict__, **changes})


def _reads(message: Any) -> list[str]:
    return [line.split('"')[1] for line in str(message).splitlines() if "unparsed_identifier" in line]


def test_describe_rows_give_a_views_namespace_and_its_own_column_names() -> None:
    info = table_info_from_rows("sales.top", VIEW_ROWS)
    assert (info.kind, info.view_namespace, info.columns) == ("VIEW", "spark_catalog.sales", ("seg", "total"))
    assert info.view_text is not None
    assert info.view_text.startswith("SELECT segment")


def test_a_views_text_reads_in_its_namespace_and_outputs_its_own_columns() -> None:
    relation = view_relation(_view())
    assert list(relation.to_df.column_names) == ["seg", "total"]  # the view's names, not its query's
    assert _reads(relation) == ["sales.revenue", "other.t"]  # unqualified: where the view was made


def test_outside_the_session_catalog_the_namespace_keeps_its_catalog() -> None:
    assert _reads(view_relation(_view(view_namespace="ice.sales"))) == ["ice.sales.revenue", "other.t"]


@pytest.mark.parametrize(
    "changes",
    [{"view_text": "SELECT * FROM VALUES (1) AS v(a)"}, {"columns": ()}],
    ids=["unmapped", "no-columns"],
)
def test_a_view_that_cannot_be_read_through_is_untranslatable(changes: dict[str, Any]) -> None:
    with pytest.raises(Untranslatable):
        view_relation(_view(**changes))


def test_temp_views_come_first_then_what_the_server_says_is_a_view() -> None:
    asked: list[str] = []
    table = TableInfo("spark_catalog", "sales", "t", "MANAGED", "parquet", "/wh/t")

    def describe(name: str) -> TableInfo:
        asked.append(name)
        return _view() if name == "sales.top" else table

    temp = {"top": "the temp view's relation"}
    views = ViewQueries(temp, describe)
    assert views.get("top") == "the temp view's relation"
    assert views.get("sales.t") is None
    assert list(views.get("sales.top").to_df.column_names) == ["seg", "total"]
    assert asked == ["sales.t", "sales.top"]  # never for a temp view
    assert (list(views), len(views)) == (["top"], 1)


def test_a_table_a_view_reads_is_matched_to_the_executions_inputs() -> None:
    revenue = RelationFacts(location="/wh/sales.db/revenue", table=TableRef("sales", "revenue"))
    other = RelationFacts(location="/wh/other.db/t", table=TableRef("other", "t"))
    rels_of = rels_of_reads({}, {}, [revenue, other, RelationFacts(location="/files/x")])
    assert rels_of(TableRead("sales.revenue", None)) == [revenue]
    assert rels_of(TableRead("other.t", None)) == [other]
    assert rels_of(TableRead("nowhere.t", None)) == []


def test_a_views_inputs_are_named_in_its_namespace() -> None:
    inputs = view_inputs(_view())
    assert [(t.catalog, t.database, t.name) for t in inputs] == [
        (None, "sales", "revenue"),
        (None, "other", "t"),
    ]
    inputs = view_inputs(_view(view_namespace="ice.sales"))
    assert (inputs[0].catalog, inputs[0].database) == ("ice", "sales")
