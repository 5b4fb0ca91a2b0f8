"""Column-lineage parity: the scenarios of the classic column-lineage tests
(``test_column_lineage_writes.py``, ``test_column_lineage_patterns.py``) that a Spark Connect
client can express as DataFrame writes, run through a classic session and through the real local
Connect server; the ``columnLineage`` facets must be identical (fields, input fields, type,
subtype, masking and the ``dataset`` list).

Scenarios of those tests not here, and why (also in the README, "Spark Connect"):

* SQL beyond a simple ``SELECT ... FROM ... [JOIN] [WHERE] [GROUP BY] [ORDER BY]`` (HAVING,
  windows in SQL, subqueries, CTEs, persistent views): a Connect server gives a client no analyzed
  plan of SQL text (``AnalyzePlan`` explains it as display text only), so simple SELECTs are
  derived from the text (``sql_table_writes``, ``sql_query_written`` here) and the rest gets
  openlineage-sql's lineage (DIRECT without subtype, no dataset-wide dependencies).
* ``pivot``: the classic analyzer rewrites it into a two-level aggregate with ``PivotFirst``; not
  translated (no columnLineage facet over Connect).
* JDBC (needs PostgreSQL; the JDBC leaves are translated as any other read), limits and plan-size
  guards (classic plan-serialisation knobs, nothing to compare), ``.cache()`` (a classic
  session-only concern).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from column_lineage_helpers import write_pattern_inputs
from spark_helpers import PATIENT, run_captured

pytestmark = pytest.mark.filterwarnings("ignore")


@dataclass(frozen=True)
class Scenario:
    name: str
    body: Callable[[Any, Any, Any, dict[str, Path], Path], None]  # spark, fn, Window, data, out


def _write(frame: Any, out: Path) -> None:
    frame.write.mode("overwrite").parquet(str(out))


def _projection(spark: Any, fn: Any, window: Any, data: dict[str, Path], out: Path) -> None:
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
    _write(frame, out)


def _filter_and_sort(spark: Any, fn: Any, window: Any, data: dict[str, Path], out: Path) -> None:
    orders = spark.read.parquet(str(data["orders"]))
    _write(orders.filter("amount > 10 AND status IS NOT NULL").orderBy("ts").select("order_id"), out)


def _join(how: str) -> Callable[[Any, Any, Any, dict[str, Path], Path], None]:
    def body(spark: Any, fn: Any, window: Any, data: dict[str, Path], out: Path) -> None:
        orders = spark.read.parquet(str(data["orders"])).alias("o")
        customers = spark.read.parquet(str(data["customers"])).alias("c")
        if how == "cross":
            joined = orders.crossJoin(customers)
        else:
            joined = orders.join(customers, orders.customer_id == customers.customer_id, how)
        frame = (
            joined.select("amount") if how.startswith("left_") else joined.select("o.order_id", "c.segment")
        )
        _write(frame, out)

    return body


def _join_using(spark: Any, fn: Any, window: Any, data: dict[str, Path], out: Path) -> None:
    orders = spark.read.parquet(str(data["orders"]))
    customers = spark.read.parquet(str(data["customers"]))
    _write(orders.join(customers, "customer_id", "full").select("customer_id", "amount", "segment"), out)


def _union(by_name: bool) -> Callable[[Any, Any, Any, dict[str, Path], Path], None]:
    def body(spark: Any, fn: Any, window: Any, data: dict[str, Path], out: Path) -> None:
        orders = spark.read.parquet(str(data["orders"])).select("order_id", "amount")
        archive = spark.read.parquet(str(data["archive"]))
        frame = (
            orders.unionByName(archive.select("amount", "order_id"))
            if by_name
            else orders.union(archive.select("order_id", (archive.amount * 2).alias("amount")))
        )
        _write(frame, out)

    return body


def _generators(spark: Any, fn: Any, window: Any, data: dict[str, Path], out: Path) -> None:
    orders = spark.read.parquet(str(data["orders"]))
    customers = spark.read.parquet(str(data["customers"]))
    _write(orders.select("order_id", fn.explode(fn.split("note", " ")).alias("word")), out / "words")
    _write(customers.select("customer_id", fn.posexplode("tags").alias("pos", "tag")), out / "tags")


def _with_column_chain(spark: Any, fn: Any, window: Any, data: dict[str, Path], out: Path) -> None:
    base = spark.read.parquet(str(data["orders"])).filter("amount > 1")
    frame = (
        base.withColumn("doubled", fn.col("amount") * 2)
        .withColumn("plus_one", fn.col("doubled") + 1)
        .withColumn("status", fn.upper("status"))
        .withColumnRenamed("order_id", "id")
        .select("id", "plus_one", "status")
    )
    _write(frame, out)


def _windows(spark: Any, fn: Any, window: Any, data: dict[str, Path], out: Path) -> None:
    orders = spark.read.parquet(str(data["orders"]))
    by_customer = window.partitionBy("customer_id")
    ordered = by_customer.orderBy("ts")
    frame = orders.select(
        "order_id",
        fn.row_number().over(ordered).alias("rn"),
        fn.sum("amount").over(by_customer).alias("customer_total"),
        fn.lag("amount").over(ordered).alias("previous_amount"),
    )
    _write(frame, out)


def _aggregations(spark: Any, fn: Any, window: Any, data: dict[str, Path], out: Path) -> None:
    orders = spark.read.parquet(str(data["orders"]))
    _write(orders.groupBy("status").count(), out / "counted")
    summary = orders.groupBy("customer_id").agg(
        fn.sum("amount").alias("revenue"), fn.count("order_id").alias("n"), fn.max("ts").alias("last_ts")
    )
    _write(summary.filter(fn.col("revenue") > 10), out / "revenue")
    _write(orders.agg({"amount": "sum"}), out / "total")
    _write(orders.dropDuplicates(["customer_id"]).select("customer_id", "amount"), out / "dedup")
    _write(orders.select("status").distinct(), out / "distinct")


def _select_expr_and_insert_into(spark: Any, fn: Any, window: Any, data: dict[str, Path], out: Path) -> None:
    frame = spark.read.parquet(str(data["orders"])).selectExpr("order_id AS id", "upper(status) AS status")
    table = f"cl_parity.saved_{out.name}"
    frame.write.mode("overwrite").saveAsTable(table)
    frame.selectExpr("id", "lower(status)").write.insertInto(table)


def _across_the_task(spark: Any, fn: Any, window: Any, data: dict[str, Path], out: Path) -> None:
    stage, final = out / "stage", out / "final"
    orders = spark.read.parquet(str(data["orders"]))
    orders.selectExpr("customer_id", "amount * 1.2 AS gross").write.parquet(str(stage))
    spark.read.parquet(str(stage)).groupBy("customer_id").sum("gross").write.parquet(str(final))
    orders.selectExpr("customer_id", "amount AS `sum(gross)`").write.mode("append").parquet(str(final))


def _temp_view_and_drop(spark: Any, fn: Any, window: Any, data: dict[str, Path], out: Path) -> None:
    spark.read.parquet(str(data["orders"])).filter("status = 'paid'").createOrReplaceTempView("cl_paid")
    frame = spark.table("cl_paid").drop("note", "ts").withColumnsRenamed({"amount": "value"})
    _write(frame.toDF(*[c.upper() for c in frame.columns]), out)


def _unpivot(spark: Any, fn: Any, window: Any, data: dict[str, Path], out: Path) -> None:
    orders = spark.read.parquet(str(data["orders"])).select("order_id", "customer_id", "amount")
    _write(orders.unpivot("order_id", ["customer_id", "amount"], "column", "value"), out)


def _views(spark: Any, data: dict[str, Path]) -> None:
    """Temp views over the inputs, made in the task (a view made before it is not expanded)."""
    for name, path in data.items():
        spark.read.parquet(str(path)).createOrReplaceTempView(f"cl_{name}")


def _sql_table_writes(spark: Any, fn: Any, window: Any, data: dict[str, Path], out: Path) -> None:
    """CTAS, INSERT INTO (table column names differ from the query's) with GROUP BY 1, INSERT OVERWRITE."""
    _views(spark, data)
    spark.sql("DROP TABLE IF EXISTS cl_parity.paid")
    spark.sql("DROP TABLE IF EXISTS cl_parity.totals")
    spark.sql("CREATE TABLE cl_parity.totals (customer BIGINT, total DOUBLE) USING parquet")
    spark.sql("CREATE TABLE cl_parity.paid USING parquet AS SELECT order_id, amount FROM cl_orders")
    spark.sql("INSERT INTO cl_parity.totals SELECT customer_id, sum(amount) FROM cl_orders GROUP BY 1")
    spark.sql(
        "INSERT OVERWRITE cl_parity.paid SELECT order_id, amount * 2 FROM cl_orders WHERE status = 'paid'"
    )


def _sql_query_written(spark: Any, fn: Any, window: Any, data: dict[str, Path], out: Path) -> None:
    """spark.sql(SELECT ... JOIN ... WHERE ... GROUP BY) written, as is and under DataFrame operators."""
    _views(spark, data)
    joined = spark.sql(
        "SELECT c.segment, sum(o.amount) AS revenue, count(o.order_id) AS n FROM cl_orders o "
        "JOIN cl_customers c ON o.customer_id = c.customer_id WHERE o.status = 'paid' GROUP BY c.segment"
    )
    _write(joined, out / "as_is")
    _write(joined.withColumn("segment", fn.upper("segment")).filter("n > 0"), out / "under_frames")
    _write(spark.sql(f"SELECT DISTINCT status FROM parquet.`{data['orders']}` ORDER BY status"), out / "path")


SCENARIOS = [
    Scenario("projection_renames_casts_and_expressions", _projection),
    Scenario("filter_and_sort", _filter_and_sort),
    *[Scenario(f"join_{how}", _join(how)) for how in ("inner", "left", "right", "full", "cross")],
    *[Scenario(f"join_{how}", _join(how)) for how in ("left_semi", "left_anti")],
    Scenario("join_using_full", _join_using),
    Scenario("union", _union(by_name=False)),
    Scenario("union_by_name", _union(by_name=True)),
    Scenario("generators", _generators),
    Scenario("with_column_chain", _with_column_chain),
    Scenario("windows", _windows),
    Scenario("aggregations", _aggregations),
    Scenario("select_expr_save_as_table_and_insert_into", _select_expr_and_insert_into),
    Scenario("across_the_task", _across_the_task),
    Scenario("temp_view_drop_rename_to_df", _temp_view_and_drop),
    Scenario("unpivot", _unpivot),
    Scenario("sql_table_writes", _sql_table_writes),
    Scenario("sql_query_written", _sql_query_written),
]


@pytest.fixture(scope="module")
def sides(spark: Any, connect_spark: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Per side: (session, functions module, Window class, input paths, warehouse)."""
    from pyspark.sql import Window as ClassicWindow
    from pyspark.sql import functions as classic_fn
    from pyspark.sql.connect import functions as connect_fn
    from pyspark.sql.connect.window import Window as ConnectWindow

    result = {}
    modules = {"classic": (classic_fn, ClassicWindow), "connect": (connect_fn, ConnectWindow)}
    for label, session in (("classic", spark), ("connect", connect_spark)):
        root = tmp_path_factory.mktemp(f"cl_parity_{label}")
        paths = write_pattern_inputs(session, root)
        session.sql("CREATE DATABASE IF NOT EXISTS cl_parity")
        warehouse = str(session.conf.get("spark.sql.warehouse.dir")).removeprefix("file:")
        result[label] = (session, *modules[label], paths, root, warehouse)
    yield result
    for side in result.values():
        side[0].sql("DROP DATABASE IF EXISTS cl_parity CASCADE")


def _facets(side: tuple[Any, ...], scenario: Scenario, descriptions: bool = False) -> dict[str, Any]:
    """output (placeholders for the side's directories) -> its columnLineage, comparable;
    ``descriptions``: captured with column_lineage_descriptions on, and the texts compared too."""
    from lineage_operators.column_lineage.settings import ColumnLineageSettings

    session, fn, window, paths, root, warehouse = side
    out = root / scenario.name

    def norm(name: str) -> str:
        return name.replace(warehouse.rstrip("/"), "<warehouse>").replace(str(root), "<root>")

    def inputs(fields: Any) -> dict[tuple[str, str, str], set[tuple[str, str | None, bool]]]:
        return {
            (i.namespace, norm(i.name), i.field): {
                (t.type, t.subtype, bool(t.masking), *((t.description,) if descriptions else ()))
                for t in i.transformations
            }
            for i in fields or []
        }

    settings = ColumnLineageSettings(descriptions=descriptions)
    _, result = run_captured(
        session,
        lambda: scenario.body(session, fn, window, paths, out),
        timeout=PATIENT,
        column_lineage=settings,
    )
    found = {}
    for dataset in result.outputs:
        facet = dataset.facets.get("columnLineage")
        found[norm(dataset.name)] = facet and {
            "fields": {column: inputs(f.inputFields) for column, f in facet.fields.items()},
            "dataset": inputs(facet.dataset),
        }
    return found


#: Where Spark's analyzer rewrites an expression (or the translation builds another operator), the
#: Connect text differs from the classic one: (scenario, output, field, input field) -> the Connect
#: texts and why. Every other entry must have the classic text exactly.
_CAST = "implicit cast the analyzer adds (type coercion)"
_FRAME = "window frame the analyzer adds (and lag's default)"
_RENAME = "rename: the analyzer projects an alias, the translation renames the column in place"
_GENERATOR = "generator: the analyzer makes a Generate (no project entry); the translation a projected alias"
_UNPIVOT = "unpivot: the classic Expand keeps the id column's text, the translation's has none"
_SQL_SELECT = "simple SELECT cut into a Relation: its internal column names / qualifiers show in the text"
_BINARY = "sha2 on a string: the analyzer casts it to BINARY"
_P = "projection_renames_casts_and_expressions"
CONNECT_TEXT_DIFFERENCES: dict[tuple[str, str, str], tuple[set[str], str]] = {
    (_P, "big", "amount"): ({"CASE WHEN (amount > 100) THEN order_id ELSE 0 END AS big"}, _CAST),
    (_P, "big", "order_id"): ({"CASE WHEN (amount > 100) THEN order_id ELSE 0 END AS big"}, _CAST),
    (_P, "calc", "amount"): ({"((amount * 2) + order_id) AS calc"}, _CAST),
    (_P, "calc", "order_id"): ({"((amount * 2) + order_id) AS calc"}, _CAST),
    (_P, "status_hash", "status"): ({"sha2(status, 256) AS status_hash"}, _BINARY),
    ("filter_and_sort", "dataset", "amount"): ({"WHERE ((amount > 10) AND (status IS NOT NULL))"}, _CAST),
    ("filter_and_sort", "dataset", "status"): ({"WHERE ((amount > 10) AND (status IS NOT NULL))"}, _CAST),
    ("generators/tags", "pos", "tags"): ({""}, _GENERATOR),
    ("generators/tags", "tag", "tags"): ({""}, _GENERATOR),
    ("generators/words", "word", "note"): ({"explode(split(note, ' ', -1)) AS word"}, _GENERATOR),
    ("with_column_chain", "dataset", "amount"): ({"WHERE (amount > 1)"}, _CAST),
    ("with_column_chain", "id", "order_id"): ({"order_id"}, _RENAME),
    ("with_column_chain", "plus_one", "amount"): ({"(doubled + 1) AS plus_one"}, _CAST),
    **{
        ("windows", "customer_total", field): (
            {"sum(amount) OVER (PARTITION BY customer_id) AS customer_total"},
            _FRAME,
        )
        for field in ("amount", "customer_id")
    },
    **{
        ("windows", "previous_amount", field): (
            {"lag(amount, 1) OVER (PARTITION BY customer_id ORDER BY ts ASC NULLS FIRST) AS previous_amount"},
            _FRAME,
        )
        for field in ("amount", "customer_id", "ts")
    },
    **{
        ("windows", "rn", field): (
            {"row_number() OVER (PARTITION BY customer_id ORDER BY ts ASC NULLS FIRST) AS rn"},
            _FRAME,
        )
        for field in ("customer_id", "ts")
    },
    ("aggregations/revenue", "dataset", "amount"): ({"WHERE (revenue > 10)"}, _CAST),
    ("across_the_task/stage", "gross", "amount"): ({"(amount * 1.2BD) AS gross"}, _CAST),
    ("temp_view_drop_rename_to_df", "CUSTOMER_ID", "customer_id"): ({"cl_paid.customer_id"}, _RENAME),
    ("temp_view_drop_rename_to_df", "ORDER_ID", "order_id"): ({"cl_paid.order_id"}, _RENAME),
    ("temp_view_drop_rename_to_df", "STATUS", "status"): ({"cl_paid.status"}, _RENAME),
    ("temp_view_drop_rename_to_df", "VALUE", "amount"): ({"cl_paid.amount"}, _RENAME),
    ("unpivot", "order_id", "order_id"): ({""}, _UNPIVOT),
    ("cl_parity.db/paid", "amount", "amount"): (
        {"(cl_orders.amount * 2) AS `*(amount, col)`", "cl_orders.amount"},
        _CAST + "; " + _SQL_SELECT,
    ),
    ("cl_parity.db/paid", "order_id", "order_id"): (
        {"cl_orders.order_id"},
        _SQL_SELECT + " (4.3's classic INSERT OVERWRITE adds `cl_orders.order_id AS order_id`, 4.0's not)",
    ),
    ("cl_parity.db/totals", "customer", "customer_id"): ({"cl_orders._v0 AS customer_id"}, _SQL_SELECT),
    ("sql_query_written/as_is", "segment", "segment"): ({"c._v0 AS segment"}, _SQL_SELECT),
    ("sql_query_written/under_frames", "dataset", "order_id"): ({"WHERE (n > 0)"}, _CAST),
    ("sql_query_written/under_frames", "segment", "segment"): ({"upper(segment) AS segment"}, _SQL_SELECT),
}


def _texts(facets: dict[str, Any]) -> dict[tuple[str, str, str], set[str]]:
    """(output, field or "dataset", input field) -> its transformations' descriptions."""
    out: dict[tuple[str, str, str], set[str]] = {}
    for name, facet in facets.items():
        for column, deps in [*facet["fields"].items(), ("dataset", facet["dataset"])]:
            for key, kinds in deps.items():
                out[(name, column, key[2])] = {t[3] for t in kinds}
    return out


def _without_texts(facets: dict[str, Any]) -> dict[str, Any]:
    def inputs(deps: Any) -> Any:
        return {key: {t[:3] for t in kinds} for key, kinds in deps.items()}

    return {
        out: {"fields": {c: inputs(d) for c, d in f["fields"].items()}, "dataset": inputs(f["dataset"])}
        for out, f in facets.items()
    }


def _differences(output: str) -> dict[tuple[str, str], tuple[set[str], str]]:
    """The expected differences of one output ((field, input field) -> Connect texts, reason)."""
    return {
        (field, source): found
        for (where, field, source), found in CONNECT_TEXT_DIFFERENCES.items()
        if output.endswith("/" + where)
    }


@pytest.mark.parametrize("scenario", [pytest.param(s, id=s.name) for s in SCENARIOS])
def test_connect_column_lineage_is_the_classic_one(sides: dict[str, Any], scenario: Scenario) -> None:
    """Same facets, descriptions on (one capture per side: the texts are compared in the same run):
    every text the classic session's, but for :data:`CONNECT_TEXT_DIFFERENCES`."""
    expected = _facets(sides["classic"], scenario, descriptions=True)
    actual = _facets(sides["connect"], scenario, descriptions=True)
    assert expected, "the scenario must write"
    assert all(expected.values()), f"the classic session must give column lineage: {expected}"
    assert _without_texts(actual) == _without_texts(expected)
    classic, connect = _texts(expected), _texts(actual)
    assert any(t - {""} for t in classic.values()), f"classic descriptions are filled: {classic}"
    for (output, field, source), texts in classic.items():
        difference = _differences(output).get((field, source))
        want = texts if difference is None else difference[0]
        assert connect[(output, field, source)] == want, (output, field, source, texts, difference)
        if difference is not None and "4.0's not" not in difference[1]:
            assert texts != want, f"listed as different, but the same: {(output, field, source)}"
