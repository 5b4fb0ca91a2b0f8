# ruff: noqa: E501  (SQL text: one statement clause per line reads better than wrapped at 110)
"""The SQL corpus of tests/spark/test_connect_sql_corpus.py: the TPC-H schema, its 22 queries
(tpch/, see its README) and statements of our own in the styles real analytical SQL has (ORDER BY
of aggregates and hidden names, windows over aggregates, grouping(), intervals, backticked
aliases, joins with set operations, CTEs used several times, ROLLUP, scalar subqueries, date
arithmetic), all over the TPC-H tables. Each writes one table: ``{out}`` is its name."""

from __future__ import annotations

from pathlib import Path

DATABASE = "tpch_corpus"
TPCH_SCHEMA = {
    "nation": "n_nationkey BIGINT, n_name STRING, n_regionkey BIGINT, n_comment STRING",
    "region": "r_regionkey BIGINT, r_name STRING, r_comment STRING",
    "part": "p_partkey BIGINT, p_name STRING, p_mfgr STRING, p_brand STRING, p_type STRING, p_size INT, "
    "p_container STRING, p_retailprice DECIMAL(12,2), p_comment STRING",
    "supplier": "s_suppkey BIGINT, s_name STRING, s_address STRING, s_nationkey BIGINT, s_phone STRING, "
    "s_acctbal DECIMAL(12,2), s_comment STRING",
    "partsupp": "ps_partkey BIGINT, ps_suppkey BIGINT, ps_availqty INT, ps_supplycost DECIMAL(12,2), "
    "ps_comment STRING",
    "customer": "c_custkey BIGINT, c_name STRING, c_address STRING, c_nationkey BIGINT, c_phone STRING, "
    "c_acctbal DECIMAL(12,2), c_mktsegment STRING, c_comment STRING",
    "orders": "o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus STRING, o_totalprice DECIMAL(12,2), "
    "o_orderdate DATE, o_orderpriority STRING, o_clerk STRING, o_shippriority INT, o_comment STRING",
    "lineitem": "l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INT, l_quantity DECIMAL(12,2), "
    "l_extendedprice DECIMAL(12,2), l_discount DECIMAL(12,2), l_tax DECIMAL(12,2), l_returnflag STRING, "
    "l_linestatus STRING, l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct STRING, "
    "l_shipmode STRING, l_comment STRING",
}


def ctas(query: str) -> tuple[str, ...]:
    return (f"CREATE TABLE {{out}} USING parquet AS {query}",)


def tpch() -> dict[str, tuple[str, ...]]:
    folder = Path(__file__).resolve().parent / "tpch"
    return {f"tpch_{path.stem}": ctas(path.read_text()) for path in sorted(folder.glob("q*.sql"))}


#: Our own statements: name -> the statements of the write (the last one is captured).
OWN: dict[str, tuple[str, ...]] = {
    "order_by_aggregate": ctas(
        "SELECT l_returnflag, count(*) AS n FROM lineitem GROUP BY l_returnflag ORDER BY sum(l_quantity) DESC"
    ),
    "order_by_qualified_group": ctas(
        "SELECT n.n_name, count(*) AS suppliers FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey "
        "GROUP BY n.n_name ORDER BY n.n_name"
    ),
    "order_by_expression_of_group": ctas(
        "SELECT p_brand, max(p_retailprice) AS top FROM part GROUP BY p_brand ORDER BY substr(p_brand, 1, 7), top"
    ),
    "order_by_hidden_name": ctas(
        "SELECT o_orderpriority AS o_orderstatus, count(*) AS n FROM orders GROUP BY o_orderpriority "
        "ORDER BY o_orderstatus"
    ),
    "window_rank_of_aggregate": ctas(
        "SELECT c_mktsegment, c_nationkey, sum(c_acctbal) AS balance, "
        "rank() OVER (PARTITION BY c_mktsegment ORDER BY sum(c_acctbal) DESC) AS place "
        "FROM customer GROUP BY c_mktsegment, c_nationkey"
    ),
    "window_share_of_aggregate": ctas(
        "SELECT o_custkey, sum(o_totalprice) AS spent, sum(o_totalprice) / sum(sum(o_totalprice)) OVER () AS share "
        "FROM orders GROUP BY o_custkey"
    ),
    "window_in_expression": ctas(
        "SELECT l_orderkey, l_linenumber, l_quantity - avg(l_quantity) OVER (PARTITION BY l_orderkey) AS above "
        "FROM lineitem"
    ),
    "windows_lag_and_sum": ctas(
        "SELECT ps_partkey, ps_suppkey, lag(ps_supplycost) OVER (PARTITION BY ps_partkey ORDER BY ps_suppkey) "
        "AS previous, sum(ps_availqty) OVER (PARTITION BY ps_partkey) AS available FROM partsupp"
    ),
    "window_top_per_group": ctas(
        "SELECT * FROM (SELECT o_custkey, o_orderkey, row_number() OVER (PARTITION BY o_custkey "
        "ORDER BY o_totalprice DESC) AS rn FROM orders) WHERE rn = 1"
    ),
    "grouping_flag_rollup": ctas(
        "SELECT r_name, n_name, count(*) AS nations, grouping(n_name) AS is_total FROM nation "
        "JOIN region ON n_regionkey = r_regionkey GROUP BY ROLLUP(r_name, n_name)"
    ),
    "grouping_id_cube": ctas(
        "SELECT p_mfgr, p_brand, avg(p_size) AS mean_size, grouping_id(p_mfgr, p_brand) AS level FROM part "
        "GROUP BY CUBE(p_mfgr, p_brand)"
    ),
    "rollup_ordered": ctas(
        "SELECT l_returnflag, l_linestatus, sum(l_extendedprice) AS revenue FROM lineitem "
        "GROUP BY ROLLUP(l_returnflag, l_linestatus) ORDER BY l_returnflag, l_linestatus"
    ),
    "interval_days": ctas(
        "SELECT o_orderkey, o_orderdate + INTERVAL 30 days AS due FROM orders "
        "WHERE o_orderdate + INTERVAL 30 days > DATE '1995-06-01'"
    ),
    "interval_year_and_functions": ctas(
        "SELECT l_orderkey, add_months(l_shipdate, 1) AS next_month, datediff(l_receiptdate, l_shipdate) AS transit "
        "FROM lineitem WHERE l_shipdate >= DATE '1994-01-01' - INTERVAL 1 YEAR"
    ),
    "date_arithmetic": ctas(
        "SELECT o_orderkey, date_add(o_orderdate, 7) AS week_later, date_sub(o_orderdate, 1) AS day_before, "
        "months_between(DATE '1999-01-01', o_orderdate) AS age FROM orders"
    ),
    "date_trunc_group": ctas(
        "SELECT date_trunc('MONTH', o_orderdate) AS month, count(*) AS n FROM orders "
        "GROUP BY date_trunc('MONTH', o_orderdate) ORDER BY month"
    ),
    "backticked_aliases": ctas(
        "SELECT c_name AS `customer name`, c_acctbal * 2 AS `doubled balance` FROM customer WHERE c_acctbal > 0"
    ),
    "backticked_alias_reused": ctas(
        "SELECT `order total`, `order total` + 1 AS `total plus one` "
        "FROM (SELECT o_totalprice AS `order total` FROM orders) t"
    ),
    "join_with_intersect": ctas(
        "SELECT c.c_name FROM customer c JOIN (SELECT o_custkey AS k FROM orders INTERSECT "
        "SELECT c_custkey FROM customer WHERE c_acctbal > 100) common ON c.c_custkey = common.k"
    ),
    "cte_twice_in_subqueries": ctas(
        "WITH big AS (SELECT o_custkey, sum(o_totalprice) AS spent FROM orders GROUP BY o_custkey) "
        "SELECT c_name FROM customer WHERE c_custkey IN (SELECT o_custkey FROM big WHERE spent > 1000) "
        "AND c_custkey NOT IN (SELECT o_custkey FROM big WHERE spent > 100000)"
    ),
    "cte_having_scalar": ctas(
        "WITH per_nation AS (SELECT s_nationkey, sum(s_acctbal) AS total FROM supplier GROUP BY s_nationkey) "
        "SELECT s_nationkey, total FROM per_nation GROUP BY s_nationkey, total "
        "HAVING total > (SELECT avg(total) FROM per_nation)"
    ),
    "cte_joined_to_itself": ctas(
        "WITH yearly AS (SELECT year(o_orderdate) AS y, sum(o_totalprice) AS revenue FROM orders "
        "GROUP BY year(o_orderdate)) SELECT cur.y, cur.revenue, cur.revenue - prev.revenue AS growth "
        "FROM yearly cur LEFT JOIN yearly prev ON cur.y = prev.y + 1"
    ),
    "scalar_subquery_select": ctas(
        "SELECT p_partkey, p_retailprice - (SELECT avg(p_retailprice) FROM part) AS diff FROM part"
    ),
    "correlated_scalar_count": ctas(
        "SELECT s_name, (SELECT count(*) FROM partsupp WHERE ps_suppkey = s_suppkey) AS parts FROM supplier"
    ),
    "case_in_aggregate": ctas(
        "SELECT l_shipmode, sum(CASE WHEN l_discount > 0.05 THEN l_extendedprice ELSE 0 END) AS discounted "
        "FROM lineitem GROUP BY l_shipmode"
    ),
    "exists_like": ctas(
        "SELECT r_name FROM region r WHERE EXISTS (SELECT 1 FROM nation n WHERE n.n_regionkey = r.r_regionkey "
        "AND n.n_name LIKE 'A%')"
    ),
    "union_of_aggregates": ctas(
        "SELECT 'supplier' AS kind, s_nationkey AS nation, count(*) AS n FROM supplier GROUP BY s_nationkey "
        "UNION ALL SELECT 'customer', c_nationkey, count(*) FROM customer GROUP BY c_nationkey"
    ),
    "except_distinct": ctas("SELECT ps_partkey FROM partsupp EXCEPT SELECT l_partkey FROM lineitem"),
    "left_join_coalesce": ctas(
        "SELECT c_custkey, coalesce(sum(o_totalprice), 0) AS spent FROM customer "
        "LEFT JOIN orders ON c_custkey = o_custkey GROUP BY c_custkey"
    ),
    "having_count_distinct": ctas(
        "SELECT o_clerk, count(DISTINCT o_custkey) AS customers FROM orders GROUP BY o_clerk "
        "HAVING count(DISTINCT o_custkey) > 1"
    ),
    "aggregate_filter_clause": ctas(
        "SELECT l_suppkey, count(*) FILTER (WHERE l_returnflag = 'R') AS returned, max(l_quantity) AS most "
        "FROM lineitem GROUP BY l_suppkey"
    ),
    "casts_strings_hash": ctas(
        "SELECT concat(p_mfgr, '-', cast(p_size AS STRING)) AS code, upper(p_name) AS name, "
        "sha2(p_comment, 256) AS hashed FROM part"
    ),
    "double_colon_cast": ctas(
        "SELECT l_orderkey, l_quantity::int AS q, l_shipdate::string AS d FROM lineitem"
    ),
    "values_join": ctas(
        "SELECT n.n_name, v.label FROM nation n JOIN VALUES (0, 'zero'), (1, 'one') AS v(k, label) "
        "ON n.n_regionkey = v.k"
    ),
    "lateral_view_words": ctas(
        "SELECT p_partkey, word FROM part LATERAL VIEW explode(split(p_name, ' ')) w AS word"
    ),
    "insert_ordered_by_count": (
        "CREATE TABLE {out} (nation STRING, suppliers BIGINT) USING parquet",
        "INSERT INTO {out} SELECT n_name, count(*) FROM nation JOIN supplier ON n_nationkey = s_nationkey "
        "GROUP BY n_name ORDER BY count(*) DESC",
    ),
    "insert_column_list": (
        "CREATE TABLE {out} (name STRING, total DECIMAL(22,2), segment STRING) USING parquet",
        "INSERT INTO {out} (total, name) SELECT sum(c_acctbal), c_name FROM customer GROUP BY c_name",
    ),
    "insert_overwrite_window": (
        "CREATE TABLE {out} (k BIGINT, running DECIMAL(22,2)) USING parquet",
        "INSERT OVERWRITE {out} SELECT o_custkey, sum(o_totalprice) OVER (PARTITION BY o_custkey "
        "ORDER BY o_orderdate ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM orders",
    ),
}

CORPUS: dict[str, tuple[str, ...]] = {**tpch(), **OWN}
