"""Column lineage through every kind of write, JDBC both ways, across a task's executions, and limits."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from column_lineage_helpers import AM, A, F, G, I, T, assert_points_at_event, lineage, short
from spark_helpers import captured, get, run_captured
from tests.support.postgres import postgres  # noqa: F401  (session-scoped fixture)

from lineage_operators.column_lineage.settings import ColumnLineageSettings

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture(scope="module")
def orders(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cl_writes") / "orders"
    spark.createDataFrame(
        [(1, 10, 120.0, "paid"), (2, 11, 5.0, "new")],
        "order_id long, customer_id long, amount double, status string",
    ).write.parquet(str(path))
    return path


@pytest.fixture(scope="module")
def db(spark: Any) -> Any:
    spark.sql("CREATE DATABASE IF NOT EXISTS cl_writes")
    yield "cl_writes"
    spark.sql("DROP DATABASE IF EXISTS cl_writes CASCADE")


@pytest.fixture(scope="module")
def warehouse(spark: Any) -> Path:
    return Path(spark.conf.get("spark.sql.warehouse.dir").removeprefix("file:"))


def test_sql_table_writes(spark: Any, orders: Path, db: str, warehouse: Path) -> None:
    """CTAS, INSERT INTO (table column names differ from the query's), INSERT OVERWRITE."""
    spark.read.parquet(str(orders)).createOrReplaceTempView("cl_orders")
    spark.sql(f"CREATE TABLE {db}.totals (customer BIGINT, total DOUBLE) USING parquet")

    def body() -> None:
        spark.sql(f"CREATE TABLE {db}.paid USING parquet AS SELECT order_id, amount FROM cl_orders")
        spark.sql(f"INSERT INTO {db}.totals SELECT customer_id, sum(amount) FROM cl_orders GROUP BY 1")
        spark.sql(
            f"INSERT OVERWRITE {db}.paid SELECT order_id, amount * 2 FROM cl_orders WHERE status = 'paid'"
        )

    result = captured(spark, body)
    fields, dataset = lineage(result, warehouse / f"{db}.db" / "totals")
    assert fields == {"customer": {("orders", "customer_id"): {I}}, "total": {("orders", "amount"): {A}}}
    assert dataset == {("orders", "customer_id"): {G}}
    # CTAS then INSERT OVERWRITE of the same table: merged
    fields, dataset = lineage(result, warehouse / f"{db}.db" / "paid")
    assert fields == {"order_id": {("orders", "order_id"): {I}}, "amount": {("orders", "amount"): {I, T}}}
    assert dataset == {("orders", "status"): {F}}


def test_save_as_table_and_insert_into(spark: Any, orders: Path, db: str, warehouse: Path) -> None:
    frame = spark.read.parquet(str(orders)).selectExpr("order_id AS id", "upper(status) AS status")

    def body() -> None:
        frame.write.mode("overwrite").saveAsTable(f"{db}.saved")
        frame.selectExpr("id", "lower(status)").write.insertInto(f"{db}.saved")

    result = captured(spark, body)
    fields, dataset = lineage(result, warehouse / f"{db}.db" / "saved")
    assert fields == {"id": {("orders", "order_id"): {I}}, "status": {("orders", "status"): {T}}}
    assert dataset == {}


@pytest.mark.parametrize("fmt", ["csv", "json", "orc"])
def test_file_writes(spark: Any, orders: Path, tmp_path: Path, fmt: str) -> None:
    frame = spark.read.parquet(str(orders)).groupBy("status").count()
    out = tmp_path / fmt
    result = captured(spark, lambda: getattr(frame.write.mode("overwrite"), fmt)(str(out)))
    fields, dataset = lineage(result, out)
    assert fields == {"status": {("orders", "status"): {I}}}
    assert dataset == {("orders", "status"): {G}}
    assert list(get(result.outputs, out).facets["columnLineage"].fields) == ["status"]  # count() reads none


def test_jdbc_read_and_write(spark: Any, orders: Path, tmp_path: Path, postgres: Any) -> None:  # noqa: F811
    postgres.execute(
        "DROP TABLE IF EXISTS cl_customers; "
        "CREATE TABLE cl_customers (customer_id bigint, segment text, email text); "
        "INSERT INTO cl_customers VALUES (10, 'gold', 'a@example.com'), (11, 'std', 'b@example.com');"
    )
    props = postgres.jdbc_properties
    out = tmp_path / "by_segment"

    def body() -> None:
        customers = spark.read.jdbc(postgres.jdbc_url, "cl_customers", properties=props)
        joined = spark.read.parquet(str(orders)).join(customers, "customer_id")
        joined.groupBy("segment").agg({"amount": "sum", "email": "count"}).write.parquet(str(out))
        joined.select("order_id", "email").write.jdbc(postgres.jdbc_url, "cl_emails", "overwrite", props)

    result = captured(spark, body)
    fields, dataset = lineage(result, out)
    assert fields == {
        "segment": {("cl_customers", "segment"): {I}},
        "sum(amount)": {("orders", "amount"): {A}},
        "count(email)": {("cl_customers", "email"): {AM}},
    }
    assert dataset[("cl_customers", "segment")] == {G}
    assert set(dataset) == {
        ("cl_customers", "segment"),
        ("cl_customers", "customer_id"),
        ("orders", "customer_id"),
    }
    (jdbc_out,) = [d for d in result.outputs if d.name.endswith("cl_emails")]
    fields, _ = (
        lineage(result, Path(jdbc_out.name)) if jdbc_out.namespace == "file" else _jdbc(result, jdbc_out)
    )
    assert fields == {"order_id": {("orders", "order_id"): {I}}, "email": {("cl_customers", "email"): {I}}}
    postgres.execute("DROP TABLE IF EXISTS cl_emails; DROP TABLE IF EXISTS cl_customers;")


def _jdbc(result: Any, dataset: Any) -> Any:
    """``lineage()`` for a dataset that is not a local file."""
    from column_lineage_helpers import _deps

    assert_points_at_event(result)
    facet = dataset.facets["columnLineage"]
    return {n: _deps(f.inputFields) for n, f in facet.fields.items()}, _deps(facet.dataset)


def test_across_the_task_the_final_output_names_the_intermediate(
    spark: Any, orders: Path, tmp_path: Path
) -> None:
    stage, final = tmp_path / "stage", tmp_path / "final"

    def body() -> None:
        spark.read.parquet(str(orders)).selectExpr("customer_id", "amount * 1.2 AS gross").write.parquet(
            str(stage)
        )
        staged = spark.read.parquet(str(stage))
        staged.groupBy("customer_id").sum("gross").write.parquet(str(final))
        # a second write to the same output, from another source: merged into its lineage
        spark.read.parquet(str(orders)).selectExpr("customer_id", "amount AS `sum(gross)`").write.mode(
            "append"
        ).parquet(str(final))

    result = captured(spark, body)
    fields, _ = lineage(result, stage)
    assert fields == {"customer_id": {("orders", "customer_id"): {I}}, "gross": {("orders", "amount"): {T}}}
    fields, dataset = lineage(result, final)
    assert fields == {
        "customer_id": {("stage", "customer_id"): {I}, ("orders", "customer_id"): {I}},
        "sum(gross)": {("stage", "gross"): {A}, ("orders", "amount"): {I}},
    }
    assert dataset == {("stage", "customer_id"): {G}}


def test_dataset_dependencies_in_every_field(spark: Any, orders: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    frame = spark.read.parquet(str(orders)).filter("status = 'paid'").select("order_id", "amount")
    settings = ColumnLineageSettings(dataset_dependencies="fields")
    _, result = run_captured(spark, lambda: frame.write.parquet(str(out)), column_lineage=settings)
    facet = get(result.outputs, out).facets["columnLineage"]
    assert facet.dataset is None
    fields, dataset = lineage(result, out)
    assert fields == {
        "order_id": {("orders", "order_id"): {I}, ("orders", "status"): {F}},
        "amount": {("orders", "amount"): {I}, ("orders", "status"): {F}},
    }
    assert dataset == {}


def test_limits(spark: Any, orders: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Wider than max_columns: no facet and one log line; column lineage off: no plan JSON at all."""
    narrow, wide = tmp_path / "narrow", tmp_path / "wide"
    frame = spark.read.parquet(str(orders))

    def body() -> None:
        frame.select("order_id", "amount").write.parquet(str(narrow))
        frame.write.parquet(str(wide))

    caplog.set_level(logging.INFO, logger="lineage_operators")
    _, result = run_captured(spark, body, column_lineage=ColumnLineageSettings(max_columns=3))
    assert "columnLineage" in get(result.outputs, narrow).facets
    assert "columnLineage" not in get(result.outputs, wide).facets
    assert caplog.text.count("more than column_lineage_max_columns=3") == 1

    off, result = run_captured(
        spark,
        lambda: frame.write.mode("overwrite").parquet(str(narrow)),
        column_lineage=ColumnLineageSettings(enabled=False),
    )
    assert "columnLineage" not in get(result.outputs, narrow).facets
    assert off._columns is None  # the reader of plan JSON was never made


def test_plan_size_guard(spark: Any, orders: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A plan reading more leaf columns than column_lineage_max_plan_leaf_columns is not serialized."""
    caplog.set_level(logging.INFO, logger="lineage_operators")
    out = tmp_path / "out"
    frame = spark.read.parquet(str(orders)).select("order_id")  # the leaf still has 4 columns
    settings = ColumnLineageSettings(max_plan_leaf_columns=3)
    _, result = run_captured(spark, lambda: frame.write.parquet(str(out)), column_lineage=settings)
    assert "columnLineage" not in get(result.outputs, out).facets
    assert "schema" in get(result.outputs, out).facets
    assert caplog.text.count("the plan reads 4 leaf columns (more than 3)") == 1


def test_without_the_compact_writer_to_json_is_used_within_its_guard(
    spark: Any,
    orders: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Where the plan writer cannot be compiled, toJSON gives the same facet, for plans within the
    (lower) toJSON guard only."""
    from lineage_operators.spark.plan.columns import compact as plan_json

    caplog.set_level(logging.INFO, logger="lineage_operators")
    frame = spark.read.parquet(str(orders)).where("status = 'paid'")
    frame = frame.selectExpr("order_id", "amount * 2 AS a2")

    def facet(name: str) -> Any:
        out = tmp_path / name
        _, result = run_captured(spark, lambda: frame.write.parquet(str(out)))
        return get(result.outputs, out).facets.get("columnLineage")

    compact = facet("compact")
    to_json_calls: list[Any] = []
    original = plan_json.PlanJsonReader._to_json
    monkeypatch.setattr(plan_json, "compact_writer", lambda tools: None)

    def to_json(self: Any, root: Any) -> Any:
        to_json_calls.append(root)
        return original(self, root)

    monkeypatch.setattr(plan_json.PlanJsonReader, "_to_json", to_json)
    assert compact is not None
    assert facet("to_json") == compact
    assert len(to_json_calls) == 1
    monkeypatch.setattr(plan_json, "TO_JSON_MAX_LEAF_COLUMNS", 3)
    assert facet("guarded") is None
    assert caplog.text.count("the plan reads 4 leaf columns (more than 3)") == 1


def test_failing_plan_serialization_is_harmless(
    spark: Any,
    orders: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A plan the engine cannot read: the output keeps every other facet, no columnLineage, no error."""
    from lineage_operators.column_lineage import engine

    def broken(plan_json: Any, output_names: Any = None) -> Any:
        raise RuntimeError("unreadable plan")

    monkeypatch.setattr(engine, "lineage_of_plan", broken)
    out = tmp_path / "out"
    _, result = run_captured(spark, lambda: spark.read.parquet(str(orders)).write.parquet(str(out)))
    written = get(result.outputs, out)
    assert "schema" in written.facets
    assert "columnLineage" not in written.facets
    assert result.complete
    assert "column lineage failed for a plan" in caplog.text


def _described(items: Any) -> dict[tuple[str, str, str], set[str]]:
    """{(input dataset, field, subtype): descriptions} of a facet's input fields."""
    out: dict[tuple[str, str, str], set[str]] = {}
    for item in items or []:
        for t in item.transformations:
            out.setdefault((short(item.name), item.field, t.subtype), set()).add(t.description)
    return out


def test_descriptions_are_the_expressions_text(spark: Any, orders: Path, tmp_path: Path) -> None:
    """column_lineage_descriptions: Spark's text of the output, filter, grouping and join
    expressions; secrets redacted (the project's rules and Spark's redaction regex); long texts cut."""
    from pyspark.sql import functions as fn

    from lineage_operators.column_lineage.descriptions import MAX_DESCRIPTION_CHARS, TRUNCATED_MARKER

    totals, joined = tmp_path / "totals", tmp_path / "joined"
    frame = spark.read.parquet(str(orders))
    left, right = frame.alias("l"), frame.alias("r")

    def body() -> None:
        frame.filter("status = 'paid'").groupBy("customer_id").agg(
            fn.sum("amount").alias("total"),
            fn.expr("CASE WHEN max(amount) > 100 THEN 'big' ELSE 'small' END").alias("size"),
        ).write.parquet(str(totals))
        left.join(right, fn.col("l.order_id") == fn.col("r.order_id")).select(
            fn.col("l.order_id").alias("id"),
            fn.col("r.amount").cast("int").alias("whole"),
            fn.concat(fn.col("l.status"), fn.lit("password=hunter2")).alias("tagged"),
            fn.concat(fn.col("l.status"), fn.lit("secret_abc123")).alias("spark_redacted"),
            fn.concat(fn.col("l.status"), *[fn.lit("x" * 50)] * 40).alias("long"),
        ).write.parquet(str(joined))

    spark.conf.set("spark.sql.redaction.string.regex", "secret_[a-z0-9]+")
    try:
        settings = ColumnLineageSettings(descriptions=True)
        _, result = run_captured(spark, body, column_lineage=settings)
    finally:
        spark.conf.unset("spark.sql.redaction.string.regex")
    facet = get(result.outputs, totals).facets["columnLineage"]
    total = _described(facet.fields["total"].inputFields)
    assert total == {("orders", "amount", "AGGREGATION"): {"sum(amount) AS total"}}
    key = _described(facet.fields["customer_id"].inputFields)
    assert key == {("orders", "customer_id", "IDENTITY"): {"customer_id"}}
    case = _described(facet.fields["size"].inputFields)
    assert set(case) == {("orders", "amount", "CONDITIONAL")}  # INDIRECT: the column's text too
    for (text,) in case.values():
        assert text.startswith("CASE WHEN (max(amount) > ")
        assert text.endswith("THEN 'big' ELSE 'small' END AS size")
    assert _described(facet.dataset) == {
        ("orders", "status", "FILTER"): {"WHERE (status = 'paid')"},
        ("orders", "customer_id", "GROUP_BY"): {"GROUP BY customer_id"},
    }

    facet = get(result.outputs, joined).facets["columnLineage"]
    fields = {name: _described(f.inputFields) for name, f in facet.fields.items()}
    assert fields["id"] == {("orders", "order_id", "IDENTITY"): {"l.order_id AS id"}}  # as Spark prints it
    assert fields["whole"] == {("orders", "amount", "TRANSFORMATION"): {"CAST(r.amount AS INT) AS whole"}}
    (tagged,) = fields["tagged"][("orders", "status", "TRANSFORMATION")]
    assert tagged.startswith("concat(l.status, 'password=")
    assert "hunter2" not in tagged
    (redacted,) = fields["spark_redacted"][("orders", "status", "TRANSFORMATION")]
    assert redacted == "concat(l.status, '*********(redacted)') AS spark_redacted"
    (long,) = fields["long"][("orders", "status", "TRANSFORMATION")]
    assert len(long) == MAX_DESCRIPTION_CHARS
    assert long.endswith(TRUNCATED_MARKER)
    dataset = _described(facet.dataset)
    assert dataset[("orders", "order_id", "JOIN")] == {"INNER JOIN ON (l.order_id = r.order_id)"}
    assert dataset[("orders", "order_id", "FILTER")] == {""}  # the optimizer's IS NOT NULL: no text

    # the JVM's plan writer is shared: the next capture, descriptions off, gets no text
    again = tmp_path / "again"
    result = captured(spark, lambda: frame.groupBy("status").agg(fn.sum("amount")).write.parquet(str(again)))
    assert lineage(result, again)[0]["sum(amount)"] == {("orders", "amount"): {A}}  # descriptions == ""
