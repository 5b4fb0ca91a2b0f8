"""Declared checks evaluated while a real Spark write runs (lineage_operators.quality.observe): the
values each check sees equal what Spark computes independently, the write runs no extra job, its
configuration is kept, and writes the checks do not name (or made after the task) run untouched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lineage_operators.quality import DataQuality, between, expression, in_set, not_null, row_count, unique
from lineage_operators.quality.observe import checking


@pytest.fixture(scope="module")
def orders(spark: Any) -> Any:
    rows = [
        (i, float(i % 50) if i % 7 else None, "new" if i % 3 else "old", f"c{i % 10}") for i in range(1, 301)
    ]
    return spark.createDataFrame(rows, "id INT, amount DOUBLE, status STRING, customer STRING")


def _jobs(spark: Any, group: str, action: Any) -> int:
    sc = spark.sparkContext
    sc.setJobGroup(group, group)
    try:
        action()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    return len(sc.statusTracker().getJobIdsForGroup(group))


def test_checks_see_what_spark_computes_and_cost_no_job(spark: Any, orders: Any, tmp_path: Path) -> None:
    target = tmp_path / "checked"
    checks = [
        not_null("amount"),
        unique("id"),
        unique("customer"),
        between("amount", 0, 40),
        in_set("status", ["new"]),
        row_count(min=1, max=1000),
        expression("id > 0", name="positive_id"),
    ]
    spec = DataQuality({str(target): checks})
    with checking(spec) as run:
        checked_jobs = _jobs(spark, "checked", lambda: orders.write.mode("overwrite").parquet(str(target)))
    plain_jobs = _jobs(
        spark, "plain", lambda: orders.write.mode("overwrite").parquet(str(tmp_path / "plain"))
    )
    assert run is not None
    assert checked_jobs == plain_jobs  # the aggregates ride on the write's own job
    (write,) = run.writes
    assert write.dataset == str(target)
    nulls = orders.filter("amount IS NULL").count()
    wrong_status = orders.filter("status <> 'new'").count()
    stats = orders.selectExpr("min(amount) AS lo", "max(amount) AS hi").first()
    assert write.observed["rowCount"] == orders.count() == 300
    assert write.observed["rowCount"] - write.observed["amount.count"] == nulls > 0
    assert (write.observed["amount.min"], write.observed["amount.max"]) == (stats.lo, stats.hi)
    assert write.observed["in_set_status.failures"] == wrong_status > 0
    verdicts = {v.check.name: (v.status, v.actual) for v in write.verdicts}
    assert verdicts == {
        "not_null_amount": ("fail", str(nulls)),
        "unique_id": ("pass", f"{write.observed['id.distinctCount']} distinct of 300"),
        "unique_customer": ("fail", f"{write.observed['customer.distinctCount']} distinct of 300"),
        "between_amount": ("fail", f"min {stats.lo}, max {stats.hi}"),
        "in_set_status": ("fail", str(wrong_status)),
        "row_count": ("pass", "300"),
        "positive_id": ("pass", "0"),
    }
    assert spark.read.parquet(str(target)).count() == 300  # the data was written as asked


def test_the_writers_configuration_is_kept(spark: Any, orders: Any, tmp_path: Path) -> None:
    target = tmp_path / "by_status"
    with checking(DataQuality({f"file:{target}": [row_count(min=1)]})) as run:
        (
            orders.write.format("json")
            .mode("overwrite")
            .partitionBy("status")
            .option("compression", "gzip")
            .save(str(target))
        )
    assert run is not None
    assert [w.verdicts[0].status for w in run.writes] == ["pass"]
    assert sorted(p.name for p in target.iterdir() if p.is_dir()) == ["status=new", "status=old"]
    assert all(f.name.endswith(".json.gz") for f in (target / "status=new").glob("part-*"))


def test_tables_are_matched_by_name(spark: Any, orders: Any) -> None:
    spark.sql("DROP TABLE IF EXISTS quality_orders")
    try:
        with checking(DataQuality({"default.quality_orders": [not_null("id")]})) as run:
            orders.write.saveAsTable("quality_orders")
            orders.write.insertInto("quality_orders")
        assert run is not None
        assert [(w.target, w.observed["rowCount"], w.verdicts[0].status) for w in run.writes] == [
            ("quality_orders", 300, "pass"),
            ("quality_orders", 300, "pass"),
        ]
    finally:
        spark.sql("DROP TABLE IF EXISTS quality_orders")


def test_v2_writes_are_checked(spark: Any, orders: Any) -> None:
    """``df.writeTo(table)``: the table is known before the writer is configured; its writes are checked
    (the session catalog's tables take ``create``; appends need a V2 catalog, as Iceberg's)."""
    tables = ("quality_v2", "quality_v2_plain", "quality_v2_other")
    for table in tables:
        spark.sql(f"DROP TABLE IF EXISTS {table}")
    try:
        with checking(DataQuality({"default.quality_v2": [not_null("amount"), row_count(min=1)]})) as run:
            checked_jobs = _jobs(spark, "v2", lambda: orders.writeTo("quality_v2").using("parquet").create())
            orders.writeTo("quality_v2_other").using("parquet").create()  # not checked
        plain = orders.writeTo("quality_v2_plain").using("parquet")
        plain_jobs = _jobs(spark, "v2_plain", plain.create)
        assert run is not None
        (write,) = run.writes
        nulls = orders.filter("amount IS NULL").count()
        assert (write.target, write.observed["rowCount"]) == ("quality_v2", 300)
        assert write.observed["rowCount"] - write.observed["amount.count"] == nulls > 0
        assert [v.status for v in write.verdicts] == ["fail", "pass"]
        assert checked_jobs == plain_jobs
        assert spark.table("quality_v2").count() == 300
    finally:
        for table in tables:
            spark.sql(f"DROP TABLE IF EXISTS {table}")


def _broken(frame: Any, column: str) -> Any:
    """``frame`` whose job fails on its row with id 7 (the write starts, then raises)."""
    return frame.selectExpr("id", f"IF(id = 7, raise_error('broken row'), {column}) AS {column}")


def _skipped(run: Any) -> list[tuple[str, bool, dict[str, Any], list[tuple[str, str]]]]:
    return [
        (w.target, w.finished, w.observed, [(v.check.name, v.status) for v in w.verdicts]) for w in run.writes
    ]


def test_a_write_that_fails_mid_job_records_its_checks_as_skipped(
    spark: Any, orders: Any, tmp_path: Path
) -> None:
    """A checked write that raises (``df.write`` and ``df.writeTo``): its error reaches the task as is,
    and its checks are remembered as ``skip``, with no value read (the task's FAIL event lists them)."""
    target = tmp_path / "broken"
    spark.sql("DROP TABLE IF EXISTS quality_broken_v2")
    spec = DataQuality(
        {str(target): [not_null("amount"), row_count(min=1)], "quality_broken_v2": [row_count(min=1)]}
    )
    try:
        with checking(spec) as run:
            with pytest.raises(Exception, match="broken row"):
                _broken(orders, "amount").write.mode("overwrite").parquet(str(target))
            with pytest.raises(Exception, match="broken row"):
                _broken(orders, "amount").writeTo("quality_broken_v2").using("parquet").create()
    finally:
        spark.sql("DROP TABLE IF EXISTS quality_broken_v2")
    assert run is not None
    assert _skipped(run) == [
        (str(target), False, {}, [("not_null_amount", "skip"), ("row_count", "skip")]),
        ("quality_broken_v2", False, {}, [("row_count", "skip")]),
    ]
    assert run.failed == []


def test_unchecked_writes_and_writes_after_the_task_run_untouched(
    spark: Any, orders: Any, tmp_path: Path
) -> None:
    checked = tmp_path / "checked"
    with checking(DataQuality({str(checked): [row_count(min=1)]})) as run:
        orders.write.parquet(str(tmp_path / "other"))
    orders.write.parquet(str(checked))  # after the task: the patch no longer acts
    assert run is not None
    assert run.writes == []


def test_checks_over_spark_connect(connect_spark: Any, tmp_path: Path) -> None:
    """The same checks on a Connect session's write (Spark 4.x): the server computes them."""
    frame = connect_spark.range(0, 100).selectExpr("id", "IF(id % 10 = 0, NULL, id) AS v")
    target = tmp_path / "connect"
    with checking(DataQuality({str(target): [not_null("v"), between("id", 0, 99)]})) as run:
        frame.write.format("parquet").mode("overwrite").save(str(target))
    assert run is not None
    (write,) = run.writes
    assert (write.observed["rowCount"], write.observed["v.count"]) == (100, 90)
    assert [(v.check.name, v.status) for v in write.verdicts] == [
        ("not_null_v", "fail"),
        ("between_id", "pass"),
    ]
    assert connect_spark.read.parquet(str(target)).count() == 100


def test_v2_writes_are_checked_over_spark_connect(connect_spark: Any) -> None:
    frame = connect_spark.range(0, 50).selectExpr("id", "IF(id < 5, NULL, id) AS v")
    connect_spark.sql("DROP TABLE IF EXISTS quality_connect_v2")
    try:
        with checking(DataQuality({"quality_connect_v2": [not_null("v"), row_count(max=10)]})) as run:
            frame.writeTo("quality_connect_v2").using("parquet").create()
        assert run is not None
        (write,) = run.writes
        assert (write.observed["rowCount"], write.observed["v.count"]) == (50, 45)
        verdicts = [(v.check.name, v.status) for v in write.verdicts]
        assert verdicts == [("not_null_v", "fail"), ("row_count", "fail")]
        assert connect_spark.table("quality_connect_v2").count() == 50
    finally:
        connect_spark.sql("DROP TABLE IF EXISTS quality_connect_v2")


def test_a_write_that_fails_mid_job_over_spark_connect(connect_spark: Any, tmp_path: Path) -> None:
    frame = _broken(connect_spark.range(0, 20).selectExpr("id", "id AS v"), "v")
    target = tmp_path / "connect_broken"
    connect_spark.sql("DROP TABLE IF EXISTS quality_connect_broken")
    spec = DataQuality({str(target): [not_null("v")], "quality_connect_broken": [row_count(min=1)]})
    try:
        with checking(spec) as run:
            with pytest.raises(Exception, match="broken row"):
                frame.write.format("parquet").save(str(target))
            with pytest.raises(Exception, match="broken row"):
                frame.writeTo("quality_connect_broken").using("parquet").create()
    finally:
        connect_spark.sql("DROP TABLE IF EXISTS quality_connect_broken")
    assert run is not None
    assert _skipped(run) == [
        (str(target), False, {}, [("not_null_v", "skip")]),
        ("quality_connect_broken", False, {}, [("row_count", "skip")]),
    ]


def test_the_tasks_own_observations_become_the_outputs_metrics(
    spark: Any, orders: Any, tmp_path: Path
) -> None:
    """``df.observe(...)`` in the task's own code, without ``data_quality=``: the written dataset gets a
    ``dataQualityMetrics`` facet from the values Spark observed while writing (names by the convention
    of :mod:`lineage_operators.quality.metrics`); a metric outside it is dropped; the checks' own
    observation is not reported twice; an observation made on a read below a filter is the input's."""
    from pyspark.sql import functions as F
    from spark_helpers import get, run_captured

    target = tmp_path / "observed"
    source = tmp_path / "orders_source"
    orders.write.parquet(str(source))
    read_observed = spark.read.parquet(str(source)).observe(  # on the read, below a filter: the input's
        "read_quality", F.count(F.lit(1)).alias("rowCount"), F.max("id").alias("id.max")
    )
    observed = orders.observe(
        "orders_quality",
        F.count(F.lit(1)).alias("rowCount"),
        F.sum(F.col("amount").isNull().cast("int")).alias("amount.nullCount"),
        F.min("amount").alias("amount.min"),
        F.max("amount").alias("amount.max"),
        F.sum("id").alias("id.sum"),
        F.count("customer").alias("not_a_convention"),
    )

    def body() -> None:
        with checking(DataQuality({str(tmp_path / "other"): [row_count(min=1)]})):
            observed.write.parquet(str(target))
            orders.write.parquet(str(tmp_path / "other"))
            read_observed.where("id > 250").write.parquet(str(tmp_path / "filtered"))

    _, result = run_captured(spark, body)
    facet = get(result.outputs, target).facets["dataQualityMetrics"]
    stats = orders.selectExpr("min(amount) AS lo", "max(amount) AS hi", "sum(id) AS total").first()
    nulls = orders.filter("amount IS NULL").count()
    assert facet.rowCount == 300
    assert facet.columnMetrics["amount"].nullCount == nulls > 0
    assert (facet.columnMetrics["amount"].min, facet.columnMetrics["amount"].max) == (stats.lo, stats.hi)
    assert facet.columnMetrics["id"].sum == stats.total
    assert set(facet.columnMetrics) == {"amount", "id"}
    assert "dataQualityMetrics" not in get(result.outputs, tmp_path / "other").facets  # the checks' own
    on_read = get(result.inputs, source).input_facets["dataQualityMetrics"]
    assert (on_read.rowCount, on_read.columnMetrics["id"].max) == (300, 300)
    assert "dataQualityMetrics" not in get(result.outputs, tmp_path / "filtered").facets


def test_the_tasks_own_observations_over_spark_connect(connect_spark: Any, tmp_path: Path) -> None:
    """The same over Spark Connect: the server sends the observed values with the write's responses."""
    from pyspark.sql.connect import functions as CF
    from spark_helpers import get, run_captured

    frame = connect_spark.range(0, 100).selectExpr("id", "IF(id % 10 = 0, NULL, id * 1.5) AS v")
    target = tmp_path / "connect_observed"
    observed = frame.observe(
        "connect_quality",
        CF.count(CF.lit(1)).alias("rowCount"),
        CF.sum(CF.col("v").isNull().cast("int")).alias("v.nullCount"),
        CF.max("v").alias("v.max"),
    )
    _, result = run_captured(connect_spark, lambda: observed.write.parquet(str(target)))
    facet = get(result.outputs, target).facets["dataQualityMetrics"]
    assert facet.rowCount == 100
    assert facet.columnMetrics["v"].nullCount == 10
    assert facet.columnMetrics["v"].max == 99 * 1.5
