"""Scenarios of openlineage-spark's own integration tests, where names and facets must agree with it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from spark_helpers import captured, get, lifecycle, local, names, schema, stats

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[str]:
    spark.sql("CREATE DATABASE IF NOT EXISTS parity_db")
    yield "parity_db"
    spark.sql("DROP DATABASE IF EXISTS parity_db CASCADE")


def _input_stats(dataset: Any) -> tuple[int | None, int | None, int | None]:
    facet = dataset.input_facets["inputStatistics"]
    return facet.rowCount, facet.size, facet.fileCount


def _subset(dataset: Any, output: bool) -> Any:
    facets = dataset.output_facets if output else dataset.input_facets
    facet = facets["subset"]
    return facet.outputCondition if output else facet.inputCondition


# -- 1. single-file relations -----------------------------------------------------------------


def test_single_file_read_is_named_after_the_file(spark: Any, tmp_path: Path) -> None:
    """openlineage-spark LogicalRelationDatasetBuilder: one root path that is a file names the file."""
    words = tmp_path / "single" / "words.txt"
    words.parent.mkdir()
    words.write_text("a b\nb c\n")
    data = tmp_path / "data"
    data.mkdir()
    (data / "one.txt").write_text("a b\n")
    (data / "other.txt").write_text("c d\n")
    out = tmp_path / "dir_out"

    def body() -> None:
        spark.read.text(str(words)).collect()
        spark.read.text([str(data / "one.txt"), str(data / "other.txt")]).collect()  # several: the folder
        spark.sql(f"INSERT OVERWRITE DIRECTORY '{out}' USING parquet SELECT * FROM text.`{words}`").collect()

    result = captured(spark, body)
    assert names(result.inputs) == {local(words), local(data)}
    assert schema(get(result.inputs, words)) == [("value", "string")]
    assert names(result.outputs) == {local(out)}


# -- 4. output statistics under AQE and other wrappers ------------------------------------------


def test_output_statistics_when_the_written_query_shuffles(spark: Any, db: str, tmp_path: Path) -> None:
    out = tmp_path / "shuffled"
    table_path = Path(spark.conf.get("spark.sql.warehouse.dir").removeprefix("file:")) / f"{db}.db"
    assert spark.conf.get("spark.sql.adaptive.enabled") == "true"

    def frame() -> Any:
        return spark.range(100).union(spark.range(50)).repartition(7)

    def body() -> None:
        frame().write.mode("overwrite").parquet(str(out))
        frame().write.mode("overwrite").saveAsTable(f"{db}.saved")
        frame().createOrReplaceTempView("shuffled_view")
        spark.sql(f"CREATE TABLE {db}.ctas USING parquet AS SELECT * FROM shuffled_view")
        spark.sql(f"INSERT INTO {db}.ctas SELECT * FROM shuffled_view")

    result = captured(spark, body)
    rows, size, files = stats(get(result.outputs, out))
    assert (rows, files) == (150, 7)
    assert size
    assert size > 0
    rows, size, files = stats(get(result.outputs, table_path / "saved"))
    assert (rows, files) == (150, 7)
    rows, size, files = stats(get(result.outputs, table_path / "ctas"))
    assert (rows, files) == (300, 14)  # CTAS + INSERT, summed over the task's writes
    assert size
    assert size > 0


# -- 5. input statistics describe the dataset, not the sum of scans ----------------------------


def test_input_statistics_are_the_dataset_not_the_sum_of_scans(spark: Any, tmp_path: Path) -> None:
    csv = tmp_path / "five"
    csv.mkdir()
    (csv / "part.csv").write_text("id,name\n1,a\n2,b\n3,c\n4,d\n5,e\n")
    size = os.path.getsize(csv / "part.csv")

    def body() -> None:
        frame = spark.read.option("header", "true").csv(str(csv))
        frame.count()
        frame.collect()
        frame.union(frame).collect()

    result = captured(spark, body)
    rows, read_size, files = _input_stats(get(result.inputs, csv))
    assert (read_size, files) == (size, 1)
    assert rows is None  # a CSV file does not know its row count (openlineage-spark gives none)


# -- 6. ALTER TABLE ------------------------------------------------------------------------------


def test_alter_table_reports_the_new_schema_and_alter(spark: Any, db: str, tmp_path: Path) -> None:
    spark.sql(f"CREATE TABLE {db}.altered (a STRING, b STRING) USING parquet")
    location = Path(spark.conf.get("spark.sql.warehouse.dir").removeprefix("file:")) / f"{db}.db" / "altered"
    moved = tmp_path / "moved"

    result = captured(spark, lambda: spark.sql(f"ALTER TABLE {db}.altered ADD COLUMNS (c STRING, d INT)"))
    table = get(result.outputs, location)
    assert schema(table) == [("a", "string"), ("b", "string"), ("c", "string"), ("d", "integer")]
    assert lifecycle(table) == "ALTER"
    assert result.inputs == []

    for statement in (
        f"ALTER TABLE {db}.altered ALTER COLUMN a COMMENT 'the a'",
        f"ALTER TABLE {db}.altered SET TBLPROPERTIES ('team' = 'lineage')",
    ):
        result = captured(spark, lambda statement=statement: spark.sql(statement))
        assert lifecycle(get(result.outputs, location)) == "ALTER", statement
    table = get(result.outputs, location)
    assert table.facets["schema"].fields[0].description == "the a"

    result = captured(spark, lambda: spark.sql(f"ALTER TABLE {db}.altered SET LOCATION '{moved}'"))
    table = get(result.outputs, moved)
    assert lifecycle(table) == "ALTER"


# -- 7. subset facet for trimmed names -------------------------------------------------------


def test_trimmed_partitions_keep_their_locations_in_a_subset_facet(spark: Any, tmp_path: Path) -> None:
    events = tmp_path / "events"
    days = [events / "dt=2026-01-01", events / "dt=2026-01-02"]

    def body() -> None:
        for day in days:
            spark.range(3).write.mode("overwrite").parquet(str(day))
        for day in days:
            spark.read.parquet(str(day)).collect()

    result = captured(spark, body)
    assert names(result.outputs) == {local(events)}
    assert names(result.inputs) == {local(events)}
    written = _subset(get(result.outputs, events), output=True)
    assert (written.type, written.locations) == ("location", [str(d) for d in days])
    read = _subset(get(result.inputs, events), output=False)
    assert (read.type, read.locations) == ("location", [str(d) for d in days])


def test_subset_locations_are_bounded(spark: Any, tmp_path: Path) -> None:
    events = tmp_path / "many"
    days = [events / f"dt=2026-01-{day:02d}" for day in range(1, 6)]
    for day in days:
        spark.range(1).write.parquet(str(day))
    spark.conf.set("spark.lineage_operators.subset.maxLocations", "2")
    try:
        result = captured(spark, lambda: [spark.read.parquet(str(day)).collect() for day in days])
    finally:
        spark.conf.unset("spark.lineage_operators.subset.maxLocations")
    read = _subset(get(result.inputs, events), output=False)
    assert read.locations == [str(d) for d in days[:2]]
    assert read.omittedLocations == 3


def test_untrimmed_dataset_has_no_subset_facet(spark: Any, tmp_path: Path) -> None:
    out = tmp_path / "plain"
    result = captured(spark, lambda: spark.range(2).write.parquet(str(out)))
    assert "subset" not in get(result.outputs, out).output_facets


# -- 2. RDD-only jobs ------------------------------------------------------------------------------


def test_rdd_only_jobs_are_captured(spark: Any, tmp_path: Path) -> None:
    """openlineage-spark's spark_single_input_rdd scenario, and the other Hadoop-file RDD APIs."""
    sc = spark.sparkContext
    source = tmp_path / "rdd_input"
    source.mkdir()
    (source / "sample.txt").write_text("hello world\nhello pyspark rdd\nspark rdd transforms\nhello again\n")
    documents = tmp_path / "documents"
    documents.mkdir()
    (documents / "one.txt").write_text("one document\n")
    out = tmp_path / "rdd_output"
    pickled, hadoop, whole, seq_out, sql_out = (
        tmp_path / n for n in ("pickled", "hadoop", "whole", "seq", "sql")
    )

    def body() -> None:
        sc.textFile(str(source)).map(lambda x: x).saveAsTextFile(str(out / "20251030"))
        sc.parallelize(range(5), 2).saveAsPickleFile(str(pickled))
        sc.pickleFile(str(pickled)).map(lambda x: (str(x), str(x))).saveAsHadoopFile(
            str(hadoop), "org.apache.hadoop.mapred.TextOutputFormat"
        )
        sc.wholeTextFiles(str(documents)).map(lambda kv: kv[1]).saveAsTextFile(str(whole))
        sc.parallelize([(1, "a"), (2, "b")]).saveAsSequenceFile(str(seq_out))
        assert sorted(sc.sequenceFile(str(seq_out)).collect()) == [(1, "a"), (2, "b")]
        spark.range(3).write.parquet(str(sql_out))  # a SQL job: counted once, by the query listener

    result = captured(spark, body)
    assert names(result.outputs) == {local(p) for p in (out, pickled, hadoop, whole, seq_out, sql_out)}
    assert names(result.inputs) == {local(p) for p in (source, documents, pickled, seq_out)}
    rows, size, _ = stats(get(result.outputs, out))
    assert rows == 4
    assert size
    assert size > 0
    read_rows, read_size, _ = _input_stats(get(result.inputs, source))
    assert read_rows == 4  # the single-input job's records read
    assert read_size
    assert read_size > 0
    assert _subset(get(result.outputs, out), output=True).locations == [str(out / "20251030")]
    assert stats(get(result.outputs, pickled))[0] == 2  # records written: one pickled batch per partition
    # files written: one per task of the writing stage, as on disk (openlineage-spark counts them too)
    assert stats(get(result.outputs, pickled))[2] == len(list(pickled.glob("part-*"))) == 2
    assert stats(get(result.outputs, sql_out))[0] == 3


# -- 3. files behind an RDD turned back into a DataFrame ------------------------------------------


def test_inputs_behind_an_rdd_turned_into_a_dataframe(spark: Any, tmp_path: Path) -> None:
    """openlineage-spark's spark_rdd_with_parquet scenario, and createDataFrame over a text RDD."""
    sc = spark.sparkContext
    rdd_a, rdd_b, rdd_c = tmp_path / "rdd_a", tmp_path / "rdd_b", tmp_path / "rdd_c"
    text = tmp_path / "lines"
    text.mkdir()
    (text / "part.txt").write_text("x\ny\n")
    typed = tmp_path / "typed"
    spark.createDataFrame([("x", "z"), ("y", "z")], "a string, b string").write.parquet(str(rdd_a))
    spark.createDataFrame([("x", "z")], "a string, b string").write.parquet(str(rdd_b))

    def body() -> None:
        left, right = spark.read.parquet(str(rdd_a)).rdd, spark.read.parquet(str(rdd_b)).rdd
        left.union(right).map(lambda r: (r["a"] + r["b"],)).toDF(["ab"]).write.mode("overwrite").parquet(
            str(rdd_c)
        )
        rows = sc.textFile(str(text)).map(lambda line: (line,))
        spark.createDataFrame(rows, "value string").write.parquet(str(typed))

    result = captured(spark, body)
    assert {local(rdd_a), local(rdd_b), local(text)} <= names(result.inputs)
    assert names(result.outputs) == {local(rdd_c), local(typed)}
    assert schema(get(result.outputs, rdd_c)) == [("ab", "string")]
