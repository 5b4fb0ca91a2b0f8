"""Regenerate the recorded analyzed-plan JSON samples used by test_column_lineage_engine*.py.

Run from the worktree root: ``.venv/bin/python tests/unit/column_lineage_plans/record_plans.py``.
Each case writes ``<case>.json``: Spark's own ``LogicalPlan.toJSON()`` of the analyzed plan (for a
write command, the whole analyzed command, so the tests also cover unwrapping its query). The
``jvmId`` and catalog metadata fields are dropped to keep the files small; the engine ignores them.
Exprids depend on the order in which the cases run, so a rerun rewrites every file.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

TABLES = [
    "CREATE TABLE t1 (a INT, b INT, c STRING) USING parquet",
    "CREATE TABLE t2 (a INT, c STRING, d INT) USING parquet",
    "CREATE TABLE t3 (k STRING, ts INT, amount INT) USING parquet",
    "CREATE TABLE nested (id INT, s STRUCT<x: INT, y: STRING>, arr ARRAY<STRING>, m MAP<STRING, INT>)"
    " USING parquet",
    "CREATE VIEW pv AS SELECT a, b AS pb FROM t1 WHERE a > 0",
    "CREATE TABLE hive_text (a INT, b STRING) PARTITIONED BY (p INT) STORED AS TEXTFILE",
]

# name -> SQL text (a query) or "CMD:" + SQL text (a command, analyzed but not run)
SQL_CASES: dict[str, str] = {
    "identity": "SELECT a FROM t1",
    "rename_cast": "SELECT a AS x, CAST(a AS BIGINT) AS wide, CAST(a AS INT) AS same,"
    " CAST(c AS INT) AS narrow FROM t1",
    "transform": "SELECT concat(c, 'test') AS c2, a + b AS s, upper(c) AS u FROM t1",
    "aggregation_count": "SELECT count(a) AS n FROM t1",
    "filter": "SELECT a FROM t1 WHERE b > 1",
    "multiple_indirect": "SELECT a, c FROM t1 WHERE b > 1 GROUP BY a, c ORDER BY c",
    "priority_direct": "SELECT a AS i, a + 1 AS t, sum(b) AS a, 2 * sum(b) AS ta,"
    " 2 * sum(b + 3) AS tat FROM t1 GROUP BY a",
    "masking": "SELECT a AS i, sha1(string(a + 1)) AS mt, sum(b) AS s, sha1(string(sum(b))) AS ma,"
    " md5(c) AS m5, sha2(c, 256) AS s2, hash(a, c) AS h, xxhash64(c) AS xx, crc32(c) AS crc"
    " FROM t1 GROUP BY a, c",
    "having": "SELECT a, sum(b) AS s FROM t1 GROUP BY a HAVING sum(b) > 10",
    "case_when": "SELECT CASE WHEN b > 1 THEN a ELSE a + b END AS cond FROM t1",
    "if": "SELECT IF(b > 1, a, a + b) AS cond FROM t1",
    "nullif": "SELECT NULLIF(a, b) AS cond FROM t1",
    "nvl": "SELECT NVL(a, b) AS cond FROM t1",
    "nvl2": "SELECT NVL2(a, b, d) AS cond FROM t1 JOIN t2 USING (a)",
    "coalesce": "SELECT coalesce(a, b, 0) AS cond FROM t1",
    "explode": "SELECT a FROM (SELECT explode(split(c, ' ')) AS a FROM t1)",
    "posexplode": "SELECT id, pos, v FROM nested LATERAL VIEW posexplode(arr) p AS pos, v",
    "explode_map": "SELECT id, key, value FROM nested LATERAL VIEW explode(m) e AS key, value",
    "inline": "SELECT inline(array(struct(a AS p, c AS q), struct(b AS p, c AS q))) FROM t1",
    "rank": "SELECT a, RANK() OVER (PARTITION BY b ORDER BY c) AS rank FROM t1",
    "row_number": "SELECT a, row_number() OVER (PARTITION BY b ORDER BY c) AS rn FROM t1",
    "windowed_aggregate": "SELECT sum(a) OVER (PARTITION BY b ORDER BY c) AS s FROM t1",
    "lag": "SELECT LAG(a, 3, 0) OVER (PARTITION BY b ORDER BY c) AS l FROM t1",
    "union_all": "SELECT a, b, 'table1' AS source FROM t1 UNION ALL SELECT a, c, 'table2' AS source FROM t2",
    "union_distinct": "SELECT a FROM t1 UNION SELECT d FROM t2",
    "distinct": "SELECT DISTINCT a AS a FROM t1",
    "join_inner": "SELECT t1.a, t1.c, t2.d FROM t1 JOIN t2 ON t1.a = t2.a",
    "join_left": "SELECT t1.a, t2.d FROM t1 LEFT JOIN t2 ON t1.a = t2.a AND t1.b > t2.d",
    "join_right": "SELECT t1.b, t2.d FROM t1 RIGHT JOIN t2 ON t1.a = t2.a",
    "join_full": "SELECT t1.b, t2.d FROM t1 FULL OUTER JOIN t2 ON t1.a = t2.a",
    "join_cross": "SELECT t1.b, t2.d FROM t1 CROSS JOIN t2",
    "join_semi": "SELECT * FROM t1 LEFT SEMI JOIN t2 ON t1.a = t2.a",
    "join_anti": "SELECT * FROM t1 LEFT ANTI JOIN t2 ON t1.a = t2.a",
    "join_null_safe": "SELECT t1.b, t2.d FROM t1 JOIN t2 ON t1.a <=> t2.a",
    "multiple_joins_same_table": "SELECT t1.a AS oder_id, x.a AS order_date, y.a AS shipped_date FROM t1"
    " LEFT JOIN t2 x ON t1.b = x.a LEFT JOIN t2 y ON t1.a = y.d"
    " WHERE t1.b IS NOT NULL AND t1.a IS NOT NULL",
    "intersect": "SELECT a, c FROM t1 INTERSECT SELECT a, c FROM t2",
    "except_all": "SELECT a FROM t1 EXCEPT ALL SELECT d FROM t2",
    "sort_limit": "SELECT a FROM t1 ORDER BY b DESC LIMIT 5",
    "subquery_scalar": "SELECT a, (SELECT max(d) FROM t2 WHERE t2.c = t1.c) AS m FROM t1",
    "subquery_in_exists": "SELECT a FROM t1 WHERE b IN (SELECT d FROM t2 WHERE c = 'x')"
    " AND EXISTS (SELECT 1 FROM t2 WHERE t2.a = t1.a)",
    "subquery_not_in": "SELECT a FROM t1 WHERE b NOT IN (SELECT d FROM t2)",
    "lateral_join": "SELECT t1.a, l.x FROM t1, LATERAL (SELECT t1.b * 2 AS x WHERE t1.c = 'k') l",
    "cte": "WITH x AS (SELECT a, b * 2 AS b2 FROM t1 WHERE c = 'z'), y AS (SELECT a, sum(b2) AS s FROM x"
    " GROUP BY a) SELECT y.a, y.s, x.b2 FROM y JOIN x ON y.a = x.a",
    "persistent_view": "SELECT pb AS out FROM pv",
    "temp_view": "SELECT b2 FROM tv",
    "grouping_sets_rollup": "SELECT k, ts, sum(amount) AS total FROM t3 GROUP BY ROLLUP(k, ts)",
    "cube": "SELECT k, ts, count(*) AS n FROM t3 GROUP BY CUBE(k, ts)",
    "pivot": "SELECT * FROM (SELECT k, ts, amount FROM t3)"
    " PIVOT (sum(amount) FOR ts IN (1 AS one, 2 AS two))",
    "unpivot": "SELECT * FROM t3 UNPIVOT (val FOR kind IN (ts, amount))",
    "recursive_cte": "WITH RECURSIVE r(n, k) AS (SELECT ts, k FROM t3 UNION ALL SELECT n + 1, k FROM r"
    " WHERE n < 5) SELECT n, k FROM r",
    "hive_table": "SELECT a, upper(b) AS ub, p FROM hive_text WHERE p = 1",
    "nested_struct": "SELECT id, s.x AS sx, s AS whole, upper(s.y) AS uy FROM nested",
    "struct_build": "SELECT named_struct('p', a, 'q', c) AS st FROM t1",
    "aggregate_filter": "SELECT sum(a) FILTER (WHERE b > 0) AS s FROM t1",
    "count_star": "SELECT count(*) AS n, count(DISTINCT c) AS nd FROM t1",
    "lambda": "SELECT transform(arr, x -> upper(x)) AS up FROM nested",
    "tablesample": "SELECT a FROM t1 TABLESAMPLE (50 PERCENT)",
    "values": "SELECT col1 AS v FROM VALUES (1), (2)",
    "range": "SELECT id * 2 AS dbl FROM range(10)",
    "one_row": "SELECT 1 AS one, current_date() AS d",
    "repartition_hint": "SELECT /*+ REPARTITION(3, a) */ a, b FROM t1",
    "nested_combo": "SELECT seg, sum(rev) AS revenue, max(rk) AS best FROM (SELECT upper(t1.c) AS seg,"
    " t2.d * t1.b AS rev, rank() OVER (PARTITION BY t1.c ORDER BY t2.d) AS rk FROM t1 JOIN t2"
    " ON t1.a = t2.a WHERE t2.c IS NOT NULL) GROUP BY seg ORDER BY revenue DESC",
    "ctas": "CMD:CREATE TABLE out_ctas USING parquet AS SELECT a, concat(c, 'x') AS c2 FROM t1 WHERE b > 0",
    "insert_into": "CMD:INSERT INTO t2 SELECT b, c, a + 1 FROM t1",
    "insert_overwrite": "CMD:INSERT OVERWRITE TABLE t2 SELECT a, c, b FROM t1 WHERE b > 3",
}


def _df_cases(spark: Any) -> dict[str, Callable[[], Any]]:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    t1 = spark.table("t1")
    t2 = spark.table("t2")
    t3 = spark.table("t3")

    def with_column_chain() -> Any:
        return (
            t1.withColumn("a2", F.col("a") * 2)
            .withColumn("a3", F.col("a2") + F.col("b"))
            .withColumnRenamed("c", "label")
            .drop("b")
        )

    def union_by_name() -> Any:
        return t1.select("a", "c").unionByName(t2.select("c", "a"))

    def dedup() -> Any:
        return t1.dropDuplicates(["a"])

    def pivot_df() -> Any:
        return t3.groupBy("k").pivot("ts", [1, 2]).agg(F.sum("amount"))

    def cached() -> Any:
        df = t1.filter("a > 1").select("a", "c").cache()
        return df.select(F.upper("c").alias("uc"), "a")

    def window_df() -> Any:
        w = Window.partitionBy("k").orderBy("ts")
        return t3.select("k", F.lag("amount").over(w).alias("prev"), F.sum("amount").over(w).alias("run"))

    def local_rel() -> Any:
        return spark.createDataFrame([(1, "x")], "n INT, s STRING").select((F.col("n") + 1).alias("n1"))

    def rdd_rel() -> Any:
        rdd = spark.sparkContext.parallelize([(1, "x")])
        return spark.createDataFrame(rdd, "n INT, s STRING").select("s")

    def repartition() -> Any:
        return t1.repartition(4, "a").sample(0.5, seed=1).coalesce(1).limit(10).select("c")

    def joined_df() -> Any:
        return t1.join(t2, on="a", how="left").select("a", t1.c, "d")

    return {
        "df_with_column_chain": with_column_chain,
        "df_union_by_name": union_by_name,
        "df_drop_duplicates": dedup,
        "df_pivot": pivot_df,
        "df_cached": cached,
        "df_window": window_df,
        "df_local_relation": local_rel,
        "df_logical_rdd": rdd_rel,
        "df_repartition_sample_limit": repartition,
        "df_join_using": joined_df,
    }


_UNUSED = {"jvmId", "catalogTable", "tableMeta", "desc"}  # noise for the engine (catalog metadata)


def _strip(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k not in _UNUSED}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def _write(name: str, plan_json: str) -> None:
    text = json.dumps(_strip(json.loads(plan_json)), separators=(",", ":"))
    (HERE / f"{name}.json").write_text(text + "\n")


def main() -> int:
    from pyspark.sql import SparkSession

    work = Path(tempfile.mkdtemp(prefix="cl-plans-"))
    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.warehouse.dir", str(work / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={work / 'derby'}")
        .enableHiveSupport()  # for a HiveTableRelation leaf (a text-format Hive table)
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        for ddl in TABLES:
            spark.sql(ddl)
        spark.sql("SELECT a, b * 2 AS b2 FROM t1").createOrReplaceTempView("tv")
        state = spark._jsparkSession.sessionState()
        for name, text in SQL_CASES.items():
            if text.startswith("CMD:"):
                analyzed = state.analyzer().execute(state.sqlParser().parsePlan(text[4:]))
            else:
                analyzed = spark.sql(text)._jdf.queryExecution().analyzed()
            _write(name, analyzed.toJSON())
        for name, build in _df_cases(spark).items():
            _write(name, build()._jdf.queryExecution().analyzed().toJSON())
        # Parquet read through DataSource V2 (a DataSourceV2Relation leaf)
        files = str(work / "v2")
        spark.table("t1").write.parquet(files)
        spark.conf.set("spark.sql.sources.useV1SourceList", "")
        v2 = spark.read.parquet(files).selectExpr("a * 2 AS a2", "c").where("b > 0")
        _write("df_v2_relation", v2._jdf.queryExecution().analyzed().toJSON())
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
