"""Dataset-wide entries that only Spark's optimizer puts in a plan: exactly where openlineage-spark has them.

openlineage-spark reads the optimized plan of a write, where the optimizer has added filters the
user never wrote: ``size(c) > 0 AND c IS NOT NULL`` under an ``explode`` of a *column*
(``InferFiltersFromGenerate``; none for ``explode(split(...))``), ``IS NOT NULL`` on inner-join
keys (``InferFiltersFromConstraints``), DISTINCT as an aggregate (``ReplaceDistinctWithAggregate``).
For a CTAS (``CREATE TABLE ... AS SELECT``, ``saveAsTable``, ``writeTo().create()``) its last event
reads the command's query as analyzed: none of them. Each expectation below is the live jar's
answer (1.53.0, Spark 3.5 to 4.3; the same statements are jobs ``inferred_*`` of tests/peer), but
one: DISTINCT over a renamed column, written to a file, where the jar says DIRECT/IDENTITY for the
grouping column (its merge of an alias step, known_differences.toml) and we keep GROUP_BY.

Runs on every Spark line (Makefile ``LINE_SPARK_TESTS``); tests/spark/test_connect_column_lineage.py
checks the same statements over Spark Connect give the classic facets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from column_lineage_helpers import A, F, G, I, J, T, lineage, write_pattern_inputs
from spark_helpers import captured

pytestmark = pytest.mark.filterwarnings("ignore")

_JOIN = "FROM cl_orders o JOIN cl_customers c ON o.customer_id = c.customer_id"
#: name -> (query, dataset-wide entries written to a file, the same in a CTAS, the fields)
STATEMENTS: dict[str, tuple[str, dict[Any, set[Any]], dict[Any, set[Any]], dict[str, Any]]] = {
    # openlineage-spark's simpleQueryExplode: a generator of an expression infers no filter
    "explode_split": (
        "SELECT word FROM (SELECT explode(split(note, ' ')) AS word FROM cl_orders)",
        {},
        {},
        {"word": {("orders", "note"): {T}}},
    ),
    "explode_split_two_columns": (
        "SELECT explode(split(note, status)) AS part FROM cl_orders",
        {},
        {},
        {"part": {("orders", "note"): {T}, ("orders", "status"): {T}}},
    ),
    # a column holding the same expression: a filter on it, pushed down onto note
    "explode_aliased_split": (
        "SELECT explode(x) AS word FROM (SELECT split(note, ' ') AS x FROM cl_orders)",
        {("orders", "note"): {F}},
        {},
        {"word": {("orders", "note"): {T}}},
    ),
    # the peer corpus's explode_array: a generator of a column
    "explode_column": (
        "SELECT customer_id, explode(tags) AS tag FROM cl_customers",
        {("customers", "tags"): {F}},
        {},
        {"customer_id": {("customers", "customer_id"): {I}}, "tag": {("customers", "tags"): {T}}},
    ),
    "join": (
        f"SELECT (o.customer_id + c.customer_id) AS both_ids {_JOIN}",
        {("orders", "customer_id"): {J, F}, ("customers", "customer_id"): {J, F}},
        {("orders", "customer_id"): {J}, ("customers", "customer_id"): {J}},
        {"both_ids": {("orders", "customer_id"): {T}, ("customers", "customer_id"): {T}}},
    ),
    "join_aggregate": (
        f"SELECT c.segment, sum(o.amount) AS total {_JOIN} GROUP BY c.segment",
        {
            ("orders", "customer_id"): {J, F},
            ("customers", "customer_id"): {J, F},
            ("customers", "segment"): {G},
        },
        {("orders", "customer_id"): {J}, ("customers", "customer_id"): {J}, ("customers", "segment"): {G}},
        {"segment": {("customers", "segment"): {I}}, "total": {("orders", "amount"): {A}}},
    ),
    "distinct_renamed": (
        "SELECT DISTINCT status AS state FROM cl_orders",
        {("orders", "status"): {G}},
        {},
        {"state": {("orders", "status"): {I}}},
    ),
}


#: Also written by a CTAS: where a file write has an optimizer entry, and DISTINCT.
IN_A_CTAS = [name for name, (_, in_file, _, _) in STATEMENTS.items() if in_file]


@pytest.fixture(scope="module")
def written(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path, Path]:
    """Every statement written to a file and by a CTAS, in one capture: (result, files, tables)."""
    root = tmp_path_factory.mktemp("cl_inferred")
    data = write_pattern_inputs(spark, root)
    for name, path in data.items():
        spark.read.parquet(str(path)).createOrReplaceTempView(f"cl_{name}")
    spark.sql("CREATE DATABASE IF NOT EXISTS cl_inferred")
    files = root / "out"

    def body() -> None:
        from pyspark.sql import functions as fn

        for name, (query, *_) in STATEMENTS.items():
            spark.sql(query).write.parquet(str(files / name))
            if name == "join_aggregate":  # the DataFrame API's CTAS
                spark.sql(query).write.saveAsTable(f"cl_inferred.{name}")
            elif name == "explode_column":
                spark.sql(query).writeTo(f"cl_inferred.{name}").using("parquet").create()
            elif name in IN_A_CTAS:
                spark.sql(f"CREATE TABLE cl_inferred.{name} USING parquet AS {query}")
        orders = spark.table("cl_orders")  # the DataFrame form of simpleQueryExplode
        orders.select(fn.explode(fn.split("note", " ")).alias("word")).write.parquet(str(files / "frame"))

    warehouse = Path(str(spark.conf.get("spark.sql.warehouse.dir")).removeprefix("file:"))
    try:
        result = captured(spark, body)
    finally:
        spark.sql("DROP DATABASE IF EXISTS cl_inferred CASCADE")
    return result, files, warehouse / "cl_inferred.db"


@pytest.mark.parametrize(
    ("name", "where"), [*((name, "file") for name in STATEMENTS), *((name, "ctas") for name in IN_A_CTAS)]
)
def test_the_optimizer_entries_spark_adds_in_a_file_and_none_in_a_ctas(
    written: Any, name: str, where: str
) -> None:
    """Written to a file, the entries the optimized plan holds, as the jar reports them; the same
    query in a CTAS has none of them (the jar reads the command's analyzed query)."""
    result, files, tables = written
    _, in_file, in_ctas, expected_fields = STATEMENTS[name]
    fields, dataset = lineage(result, (files if where == "file" else tables) / name)
    assert dataset == (in_file if where == "file" else in_ctas)
    assert fields == expected_fields


def test_the_dataframe_form_of_explode_split(written: Any) -> None:
    result, files, _ = written
    assert lineage(result, files / "frame") == ({"word": {("orders", "note"): {T}}}, {})
