"""Column lineage of real Spark jobs: each pattern of the issue, with its exact ``columnLineage`` facet.

Inputs are two Parquet datasets written before any capture (``orders``, ``customers``) and a
third with the orders' schema (``archive``). Each test runs a job, captures it, and compares the
facet of its output in a compact form: ``{output column: {(input dataset, column): {(type,
subtype, masking)}}}`` and the same for the facet's ``dataset`` list. Every test also checks that
every input field names a dataset of the event (:func:`column_lineage_helpers.lineage`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from column_lineage_helpers import AM, TM, A, C, F, G, I, J, S, T, W, lineage, write_pattern_inputs
from spark_helpers import captured

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture(scope="module")
def data(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("cl_data")
    return write_pattern_inputs(spark, root)


@pytest.fixture(scope="module")
def views(spark: Any, data: dict[str, Path]) -> None:
    for name, path in data.items():
        spark.read.parquet(str(path)).createOrReplaceTempView(name)


def write(frame: Any, out: Path) -> Any:
    return lambda: frame.write.mode("overwrite").parquet(str(out))


def test_projection_renames_casts_and_expressions(spark: Any, data: dict[str, Path], tmp_path: Path) -> None:
    from pyspark.sql import functions as fn

    orders = spark.read.parquet(str(data["orders"]))
    frame = orders.select(
        "order_id",
        fn.col("customer_id").alias("cid"),
        fn.col("amount").cast("double").alias("amount_d"),
        (fn.col("amount") * 2 + fn.col("order_id")).alias("calc"),
        fn.concat(fn.col("status"), fn.lit("x")).alias("status_x"),
        fn.upper("status").alias("status_up"),
        fn.sha2("status", 256).alias("status_hash"),
        fn.when(fn.col("amount") > 100, fn.col("order_id")).otherwise(fn.lit(0)).alias("big"),
        fn.lit(1).alias("one"),
    )
    out = tmp_path / "out"
    fields, dataset = lineage(captured(spark, write(frame, out)), out)
    assert fields == {
        "order_id": {("orders", "order_id"): {I}},
        "cid": {("orders", "customer_id"): {I}},
        "amount_d": {("orders", "amount"): {I}},
        "calc": {("orders", "amount"): {T}, ("orders", "order_id"): {T}},
        "status_x": {("orders", "status"): {T}},
        "status_up": {("orders", "status"): {T}},
        "status_hash": {("orders", "status"): {TM}},
        "big": {("orders", "order_id"): {T}, ("orders", "amount"): {C}},
    }
    assert dataset == {}


def test_filter_and_sort_are_dataset_dependencies(spark: Any, data: dict[str, Path], tmp_path: Path) -> None:
    orders = spark.read.parquet(str(data["orders"]))
    frame = orders.filter("amount > 10 AND status IS NOT NULL").orderBy("ts").select("order_id")
    out = tmp_path / "out"
    fields, dataset = lineage(captured(spark, write(frame, out)), out)
    assert fields == {"order_id": {("orders", "order_id"): {I}}}
    assert dataset == {("orders", "amount"): {F}, ("orders", "status"): {F}, ("orders", "ts"): {S}}


# Join keys are JOIN dependencies; a key on a side whose unmatched rows are dropped also gets the
# FILTER of the ``isnotnull`` Spark's optimizer adds there (openlineage-spark reads optimized plans).
KEYS = {
    "inner": ({J, F}, {J, F}),
    "left": ({J}, {J, F}),
    "right": ({J, F}, {J}),
    "full": ({J}, {J}),
    "left_semi": ({J, F}, {J, F}),
    "left_anti": ({J}, {J, F}),
}


@pytest.mark.parametrize("how", ["inner", "left", "right", "full", "cross"])
def test_joins(spark: Any, data: dict[str, Path], tmp_path: Path, how: str) -> None:
    orders = spark.read.parquet(str(data["orders"])).alias("o")
    customers = spark.read.parquet(str(data["customers"])).alias("c")
    if how == "cross":
        joined = orders.crossJoin(customers)
    else:
        joined = orders.join(customers, orders.customer_id == customers.customer_id, how)
    frame = joined.select("o.order_id", "c.segment")
    out = tmp_path / "out"
    fields, dataset = lineage(captured(spark, write(frame, out)), out)
    assert fields == {"order_id": {("orders", "order_id"): {I}}, "segment": {("customers", "segment"): {I}}}
    if how == "cross":
        assert dataset == {}
    else:
        left, right = KEYS[how]
        assert dataset == {("orders", "customer_id"): left, ("customers", "customer_id"): right}


@pytest.mark.parametrize("how", ["left_semi", "left_anti"])
def test_semi_and_anti_joins(spark: Any, data: dict[str, Path], tmp_path: Path, how: str) -> None:
    orders = spark.read.parquet(str(data["orders"]))
    customers = spark.read.parquet(str(data["customers"]))
    frame = orders.join(customers, orders.customer_id == customers.customer_id, how).select("amount")
    out = tmp_path / "out"
    fields, dataset = lineage(captured(spark, write(frame, out)), out)
    assert fields == {"amount": {("orders", "amount"): {I}}}
    left, right = KEYS[how]
    assert dataset == {("orders", "customer_id"): left, ("customers", "customer_id"): right}


def test_aggregation_with_having(spark: Any, views: None, tmp_path: Path) -> None:
    frame = spark.sql(
        "SELECT customer_id, sum(amount) AS revenue, count(order_id) AS n, max(ts) AS last_ts "
        "FROM orders GROUP BY customer_id HAVING sum(amount) > 10"
    )
    out = tmp_path / "out"
    fields, dataset = lineage(captured(spark, write(frame, out)), out)
    assert fields == {
        "customer_id": {("orders", "customer_id"): {I}},
        "revenue": {("orders", "amount"): {A}},
        "n": {("orders", "order_id"): {AM}},
        "last_ts": {("orders", "ts"): {A}},
    }
    assert dataset == {("orders", "customer_id"): {G}, ("orders", "amount"): {F}}


def test_windows(spark: Any, views: None, tmp_path: Path) -> None:
    frame = spark.sql(
        "SELECT order_id, "
        "row_number() OVER (PARTITION BY customer_id ORDER BY ts) AS rn, "
        "sum(amount) OVER (PARTITION BY customer_id) AS customer_total, "
        "lag(amount) OVER (PARTITION BY customer_id ORDER BY ts) AS previous_amount "
        "FROM orders"
    )
    out = tmp_path / "out"
    fields, dataset = lineage(captured(spark, write(frame, out)), out)
    assert fields == {
        "order_id": {("orders", "order_id"): {I}},
        "rn": {("orders", "customer_id"): {W}, ("orders", "ts"): {W}},
        "customer_total": {("orders", "amount"): {A}, ("orders", "customer_id"): {W}},
        "previous_amount": {("orders", "amount"): {T}, ("orders", "customer_id"): {W}, ("orders", "ts"): {W}},
    }
    assert dataset == {}


@pytest.mark.parametrize("by_name", [False, True])
def test_union_depends_on_every_branch(
    spark: Any, data: dict[str, Path], tmp_path: Path, by_name: bool
) -> None:
    orders = spark.read.parquet(str(data["orders"])).select("order_id", "amount")
    archive = spark.read.parquet(str(data["archive"]))
    frame = (
        orders.unionByName(archive.select("amount", "order_id"))
        if by_name
        else orders.union(archive.select("order_id", (archive.amount * 2).alias("amount")))
    )
    out = tmp_path / "out"
    fields, dataset = lineage(captured(spark, write(frame, out)), out)
    archived_amount = {I} if by_name else {T}
    assert fields == {
        "order_id": {("orders", "order_id"): {I}, ("archive", "order_id"): {I}},
        "amount": {("orders", "amount"): {I}, ("archive", "amount"): archived_amount},
    }
    assert dataset == {}


def test_subqueries_in_where_are_indirect(spark: Any, views: None, tmp_path: Path) -> None:
    frame = spark.sql(
        "SELECT o.order_id FROM orders o "
        "WHERE o.customer_id IN (SELECT customer_id FROM customers WHERE segment = 'gold') "
        "AND EXISTS (SELECT 1 FROM archive a WHERE a.order_id = o.order_id) "
        "AND o.amount > (SELECT avg(amount) FROM archive)"
    )
    out = tmp_path / "out"
    fields, dataset = lineage(captured(spark, write(frame, out)), out)
    assert fields == {"order_id": {("orders", "order_id"): {I}}}
    assert dataset == {
        ("orders", "customer_id"): {F},
        ("orders", "order_id"): {F},
        ("orders", "amount"): {F},
        ("customers", "customer_id"): {F},
        ("customers", "segment"): {F},
        ("archive", "order_id"): {F},
        ("archive", "amount"): {F},
    }


def test_scalar_subquery_in_select(spark: Any, views: None, tmp_path: Path) -> None:
    frame = spark.sql(
        "SELECT o.order_id, "
        "(SELECT max(c.segment) FROM customers c WHERE c.customer_id = o.customer_id) AS seg "
        "FROM orders o"
    )
    out = tmp_path / "out"
    fields, _ = lineage(captured(spark, write(frame, out)), out)
    assert fields["order_id"] == {("orders", "order_id"): {I}}
    assert fields["seg"][("customers", "segment")] == {A}


def test_cte(spark: Any, views: None, tmp_path: Path) -> None:
    frame = spark.sql(
        "WITH big AS (SELECT * FROM orders WHERE amount > 10), "
        "per_customer AS (SELECT customer_id, sum(amount) AS revenue FROM big GROUP BY customer_id) "
        "SELECT p.customer_id, p.revenue FROM per_customer p JOIN big b ON p.customer_id = b.customer_id"
    )
    out = tmp_path / "out"
    fields, dataset = lineage(captured(spark, write(frame, out)), out)
    assert fields == {
        "customer_id": {("orders", "customer_id"): {I}},
        "revenue": {("orders", "amount"): {A}},
    }
    assert dataset == {("orders", "amount"): {F}, ("orders", "customer_id"): {F, G, J}}


def test_temporary_and_persistent_views(spark: Any, data: dict[str, Path], tmp_path: Path) -> None:
    spark.sql("CREATE DATABASE IF NOT EXISTS cl_views")
    spark.sql(f"CREATE TABLE IF NOT EXISTS cl_views.customers USING parquet LOCATION '{data['customers']}'")
    spark.sql(
        "CREATE OR REPLACE VIEW cl_views.gold AS "
        "SELECT customer_id, upper(name) AS name FROM cl_views.customers WHERE segment = 'gold'"
    )
    spark.read.parquet(str(data["orders"])).filter("status = 'paid'").createOrReplaceTempView("paid_orders")
    frame = spark.sql(
        "SELECT g.name, p.amount FROM cl_views.gold g JOIN paid_orders p ON g.customer_id = p.customer_id"
    )
    out = tmp_path / "out"
    try:
        fields, dataset = lineage(captured(spark, write(frame, out)), out)
    finally:
        spark.sql("DROP DATABASE cl_views CASCADE")
    assert fields == {"name": {("customers", "name"): {T}}, "amount": {("orders", "amount"): {I}}}
    assert dataset == {
        ("customers", "segment"): {F},
        ("customers", "customer_id"): {J, F},
        ("orders", "status"): {F},
        ("orders", "customer_id"): {J, F},
    }


def test_generators(spark: Any, data: dict[str, Path], tmp_path: Path) -> None:
    from pyspark.sql import functions as fn

    customers = spark.read.parquet(str(data["customers"]))
    orders = spark.read.parquet(str(data["orders"]))
    out_words, out_tags = tmp_path / "words", tmp_path / "tags"

    def body() -> None:
        orders.select("order_id", fn.explode(fn.split("note", " ")).alias("word")).write.parquet(
            str(out_words)
        )
        customers.select("customer_id", fn.posexplode("tags").alias("pos", "tag")).write.parquet(
            str(out_tags)
        )

    result = captured(spark, body)
    fields, _ = lineage(result, out_words)
    assert fields == {"order_id": {("orders", "order_id"): {I}}, "word": {("orders", "note"): {T}}}
    fields, _ = lineage(result, out_tags)
    assert fields == {
        "customer_id": {("customers", "customer_id"): {I}},
        "pos": {("customers", "tags"): {T}},
        "tag": {("customers", "tags"): {T}},
    }


def test_pivot(spark: Any, data: dict[str, Path], tmp_path: Path) -> None:
    orders = spark.read.parquet(str(data["orders"]))
    frame = orders.groupBy("customer_id").pivot("status", ["new", "paid"]).sum("amount")
    out = tmp_path / "out"
    fields, dataset = lineage(captured(spark, write(frame, out)), out)
    assert fields["customer_id"] == {("orders", "customer_id"): {I}}
    for value in ("new", "paid"):
        assert fields[value][("orders", "amount")] == {A}
        assert ("orders", "status") in fields[value]  # the pivot column decides which cell a row feeds
    assert dataset[("orders", "customer_id")] == {G}


def test_with_column_chain_and_cached_frame(spark: Any, data: dict[str, Path], tmp_path: Path) -> None:
    from pyspark.sql import functions as fn

    base = spark.read.parquet(str(data["orders"])).filter("amount > 1").cache()
    base.count()  # materialized before the task: the analyzed plan still holds the relation
    frame = (
        base.withColumn("doubled", fn.col("amount") * 2)
        .withColumn("plus_one", fn.col("doubled") + 1)
        .withColumn("status", fn.upper("status"))
        .withColumnRenamed("order_id", "id")
        .select("id", "plus_one", "status")
    )
    out = tmp_path / "out"
    try:
        fields, dataset = lineage(captured(spark, write(frame, out)), out)
    finally:
        base.unpersist()
    assert fields == {
        "id": {("orders", "order_id"): {I}},
        "plus_one": {("orders", "amount"): {T}},
        "status": {("orders", "status"): {T}},
    }
    assert dataset == {("orders", "amount"): {F}}
