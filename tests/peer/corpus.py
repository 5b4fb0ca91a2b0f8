"""The peer corpus: Spark jobs of the kinds users run, written for this project, run under both listeners.

A :class:`Job` has a ``setup`` (run outside the capture: tables it needs, a clean target) and a
``body`` (the task's own work, the part both sides report). Sources shared by every job (files of
each format, a partitioned folder, catalog tables, a PostgreSQL table) are made once by
:meth:`Workspace.prepare`. Outputs go to a folder or table named after the job, so no job sees
another's data. Jobs that must fail (``failed_*``) raise from their body.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Body = Callable[[Any, "Workspace"], None]


def _nothing(spark: Any, ws: Workspace) -> None:
    return None


@dataclass(frozen=True)
class Job:
    name: str
    body: Body
    setup: Body = _nothing


@dataclass
class Workspace:
    """Where a corpus run keeps its files, and how it reaches PostgreSQL."""

    root: Path
    jdbc_url: str = ""
    jdbc_properties: dict[str, str] = field(default_factory=dict)

    def out(self, job: str, name: str = "out") -> str:
        return str(self.root / "out" / job / name)

    @property
    def orders(self) -> str:
        return str(self.root / "src" / "orders_parquet")

    @property
    def customers_csv(self) -> str:
        return str(self.root / "src" / "customers.csv")

    @property
    def events_json(self) -> str:
        return str(self.root / "src" / "events.json")

    @property
    def orders_orc(self) -> str:
        return str(self.root / "src" / "orders_orc")

    @property
    def lines_txt(self) -> str:
        return str(self.root / "src" / "lines.txt")

    @property
    def sales(self) -> str:
        return str(self.root / "src" / "sales_partitioned")

    def prepare(self, spark: Any) -> None:
        """The shared sources: files of every format, catalog tables and a PostgreSQL table."""
        src = self.root / "src"
        src.mkdir(parents=True, exist_ok=True)
        orders = spark.createDataFrame(
            [(i, f"c{i % 5}", float(i * 10), f"2026-01-{1 + i % 28:02d}", f"eu{i % 2}") for i in range(40)],
            "id int, customer string, amount double, created_at string, region string",
        )
        orders.write.mode("overwrite").parquet(self.orders)
        orders.write.mode("overwrite").orc(self.orders_orc)
        orders.write.mode("overwrite").partitionBy("region").parquet(self.sales)
        Path(self.customers_csv).write_text(
            "customer,name,country\n"
            + "".join(f"c{i},Customer {i},{'DE' if i % 2 else 'FR'}\n" for i in range(5))
        )
        Path(self.events_json).write_text(
            "".join(
                json.dumps({"id": i, "kind": "click" if i % 3 else "view", "tags": ["a", "b"][: i % 3]})
                + "\n"
                for i in range(12)
            )
        )
        Path(self.lines_txt).write_text("".join(f"line {i} of the text\n" for i in range(20)))
        spark.sql("DROP TABLE IF EXISTS peer_orders")
        orders.write.saveAsTable("peer_orders")
        spark.sql("DROP TABLE IF EXISTS peer_customers_ext")
        spark.sql(
            f"CREATE TABLE peer_customers_ext (customer string, name string, country string) USING csv "
            f"OPTIONS (header 'true') LOCATION '{Path(self.customers_csv).parent / 'customers_ext'}'"
        )
        spark.read.option("header", True).csv(self.customers_csv).write.mode("overwrite").insertInto(
            "peer_customers_ext"
        )
        if self.jdbc_url:
            orders.write.jdbc(self.jdbc_url, "peer_accounts", "overwrite", self.jdbc_properties)


JOBS: list[Job] = []


def job(name: str, setup: Body = _nothing) -> Callable[[Body], Body]:
    def register(body: Body) -> Body:
        JOBS.append(Job(name, body, setup))
        return body

    return register


def _drop(*tables: str) -> Body:
    def setup(spark: Any, ws: Workspace) -> None:
        for table in tables:
            spark.sql(f"DROP TABLE IF EXISTS {table}")

    return setup


def _sql(*statements: str) -> Body:
    def run(spark: Any, ws: Workspace) -> None:
        for statement in statements:
            spark.sql(statement.format(ws=ws))

    return run


def _orders(spark: Any, ws: Workspace) -> Any:
    return spark.read.parquet(ws.orders)


def _customers(spark: Any, ws: Workspace) -> Any:
    return spark.read.option("header", True).csv(ws.customers_csv)


# ---------------------------------------------------------------------------------------------
# files: every format, single files, partitioned folders, URIs
# ---------------------------------------------------------------------------------------------


@job("parquet_to_parquet")
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).select("id", "amount").write.mode("overwrite").parquet(ws.out("parquet_to_parquet"))


@job("csv_file_to_json")
def _(spark: Any, ws: Workspace) -> None:
    _customers(spark, ws).write.mode("overwrite").json(ws.out("csv_file_to_json"))


@job("json_file_to_csv")
def _(spark: Any, ws: Workspace) -> None:
    spark.read.json(ws.events_json).select("id", "kind").write.mode("overwrite").csv(
        ws.out("json_file_to_csv")
    )


@job("orc_to_orc")
def _(spark: Any, ws: Workspace) -> None:
    spark.read.orc(ws.orders_orc).where("amount > 100").write.mode("overwrite").orc(ws.out("orc_to_orc"))


@job("text_to_text")
def _(spark: Any, ws: Workspace) -> None:
    spark.read.text(ws.lines_txt).where("value like '%1%'").write.mode("overwrite").text(
        ws.out("text_to_text")
    )


@job("partitioned_folder_read")
def _(spark: Any, ws: Workspace) -> None:
    spark.read.parquet(ws.sales).where("region = 'eu1'").write.mode("overwrite").parquet(
        ws.out("partitioned_folder_read")
    )


@job("partitioned_write")
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).write.mode("overwrite").partitionBy("region").parquet(ws.out("partitioned_write"))


@job("file_uri_paths")
def _(spark: Any, ws: Workspace) -> None:
    spark.read.parquet("file://" + ws.orders).write.mode("overwrite").parquet(
        "file://" + ws.out("file_uri_paths")
    )


@job("relative_paths")
def _(spark: Any, ws: Workspace) -> None:
    """Paths relative to the driver's working directory (the JVM's, which pyspark starts in ours)."""
    import os

    here = os.getcwd()
    source, target = os.path.relpath(ws.orders, here), os.path.relpath(ws.out("relative_paths"), here)
    spark.read.parquet(source).select("id").write.mode("overwrite").parquet(target)


@job("append_twice")
def _(spark: Any, ws: Workspace) -> None:
    df = _orders(spark, ws).select("id", "customer")
    df.write.mode("overwrite").parquet(ws.out("append_twice"))
    df.write.mode("append").parquet(ws.out("append_twice"))


@job("chain_of_writes")
def _(spark: Any, ws: Workspace) -> None:
    first = ws.out("chain_of_writes", "first")
    _orders(spark, ws).select("id", "amount").write.mode("overwrite").parquet(first)
    spark.read.parquet(first).selectExpr("id", "amount * 2 AS doubled").write.mode("overwrite").json(
        ws.out("chain_of_writes", "second")
    )


@job("csv_options_write")
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).coalesce(1).write.mode("overwrite").option("header", True).option("sep", ";").csv(
        ws.out("csv_options_write")
    )


@job("format_save_load")
def _(spark: Any, ws: Workspace) -> None:
    spark.read.format("parquet").load(ws.orders).write.format("json").mode("overwrite").save(
        ws.out("format_save_load")
    )


@job("read_only_count")
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).where("amount > 10").count()


@job("collect_only")
def _(spark: Any, ws: Workspace) -> None:
    _customers(spark, ws).collect()


@job("two_inputs_one_output")
def _(spark: Any, ws: Workspace) -> None:
    orders = spark.read.orc(ws.orders_orc).select("id", "customer")
    events = spark.read.json(ws.events_json).select("id", "kind")
    orders.join(events, "id").write.mode("overwrite").parquet(ws.out("two_inputs_one_output"))


# ---------------------------------------------------------------------------------------------
# catalog tables: managed and external, CTAS, INSERT, saveAsTable, insertInto, ALTER, DROP, views
# ---------------------------------------------------------------------------------------------


@job("ctas", setup=_drop("p_ctas"))
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(
        "CREATE TABLE p_ctas USING parquet AS SELECT id, customer, amount FROM peer_orders WHERE amount > 50"
    )


@job("ctas_external_location", setup=_drop("p_ctas_ext"))
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(
        f"CREATE TABLE p_ctas_ext USING parquet LOCATION '{ws.out('ctas_external_location')}' "
        "AS SELECT id, amount FROM peer_orders"
    )


@job(
    "insert_into_select",
    setup=_sql("DROP TABLE IF EXISTS p_ins", "CREATE TABLE p_ins (id int, amount double) USING parquet"),
)
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("INSERT INTO p_ins SELECT id, amount FROM peer_orders WHERE id < 10")


@job(
    "insert_overwrite_select",
    setup=_sql(
        "DROP TABLE IF EXISTS p_insov", "CREATE TABLE p_insov (id int, customer string) USING parquet"
    ),
)
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("INSERT OVERWRITE TABLE p_insov SELECT id, upper(customer) FROM peer_orders")


@job(
    "insert_values",
    setup=_sql("DROP TABLE IF EXISTS p_values", "CREATE TABLE p_values (id int, name string) USING parquet"),
)
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("INSERT INTO p_values VALUES (1, 'a'), (2, 'b')")


@job(
    "insert_with_column_list",
    setup=_sql(
        "DROP TABLE IF EXISTS p_cols",
        "CREATE TABLE p_cols (id int, customer string, amount double) USING parquet",
    ),
)
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("INSERT INTO p_cols (amount, id, customer) SELECT amount, id, customer FROM peer_orders")


@job("save_as_table_new", setup=_drop("p_sat_new"))
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).select("id", "customer").write.saveAsTable("p_sat_new")


@job(
    "save_as_table_overwrite",
    setup=_sql(
        "DROP TABLE IF EXISTS p_sat_ov", "CREATE TABLE p_sat_ov (id int, customer string) USING parquet"
    ),
)
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).select("id", "customer").write.mode("overwrite").saveAsTable("p_sat_ov")


@job(
    "save_as_table_append",
    setup=_sql(
        "DROP TABLE IF EXISTS p_sat_app", "CREATE TABLE p_sat_app (id int, customer string) USING parquet"
    ),
)
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).select("id", "customer").write.mode("append").saveAsTable("p_sat_app")


@job(
    "insert_into_api",
    setup=_sql(
        "DROP TABLE IF EXISTS p_insapi", "CREATE TABLE p_insapi (id int, amount double) USING parquet"
    ),
)
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).select("id", "amount").write.insertInto("p_insapi")


@job("table_to_file")
def _(spark: Any, ws: Workspace) -> None:
    spark.table("peer_orders").groupBy("customer").count().write.mode("overwrite").parquet(
        ws.out("table_to_file")
    )


@job("external_table_read")
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("SELECT country, count(*) AS n FROM peer_customers_ext GROUP BY country").write.mode(
        "overwrite"
    ).json(ws.out("external_table_read"))


@job(
    "alter_add_columns",
    setup=_sql("DROP TABLE IF EXISTS p_alter", "CREATE TABLE p_alter (id int) USING parquet"),
)
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("ALTER TABLE p_alter ADD COLUMNS (note string)")


@job(
    "alter_rename",
    setup=_sql(
        "DROP TABLE IF EXISTS p_renamed",
        "DROP TABLE IF EXISTS p_torename",
        "CREATE TABLE p_torename (id int) USING parquet",
    ),
)
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("ALTER TABLE p_torename RENAME TO p_renamed")


@job(
    "alter_properties",
    setup=_sql("DROP TABLE IF EXISTS p_props", "CREATE TABLE p_props (id int) USING parquet"),
)
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("ALTER TABLE p_props SET TBLPROPERTIES ('owner_team' = 'data')")


@job("drop_table", setup=_sql("DROP TABLE IF EXISTS p_drop", "CREATE TABLE p_drop (id int) USING parquet"))
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("DROP TABLE p_drop")


@job(
    "truncate_table",
    setup=_sql(
        "DROP TABLE IF EXISTS p_trunc", "CREATE TABLE p_trunc USING parquet AS SELECT id FROM peer_orders"
    ),
)
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("TRUNCATE TABLE p_trunc")


@job("create_table_schema_only", setup=_drop("p_schema_only"))
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("CREATE TABLE p_schema_only (id int, name string) USING parquet")


@job("create_table_like", setup=_drop("p_like"))
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("CREATE TABLE p_like LIKE peer_orders")


@job(
    "view_read",
    setup=_sql(
        "DROP VIEW IF EXISTS p_view",
        "CREATE VIEW p_view AS SELECT id, amount FROM peer_orders WHERE amount > 100",
    ),
)
def _(spark: Any, ws: Workspace) -> None:
    spark.table("p_view").write.mode("overwrite").parquet(ws.out("view_read"))


@job("temp_view_sql")
def _(spark: Any, ws: Workspace) -> None:
    _customers(spark, ws).createOrReplaceTempView("p_customers_tmp")
    spark.sql("SELECT country, count(*) AS n FROM p_customers_tmp GROUP BY country").write.mode(
        "overwrite"
    ).parquet(ws.out("temp_view_sql"))


@job("insert_overwrite_directory")
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(
        f"INSERT OVERWRITE DIRECTORY '{ws.out('insert_overwrite_directory')}' USING parquet "
        "SELECT id, customer FROM peer_orders"
    )


@job("cache_table_then_write")
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("CACHE TABLE p_cached AS SELECT id, amount FROM peer_orders WHERE id < 20")
    spark.table("p_cached").write.mode("overwrite").parquet(ws.out("cache_table_then_write"))
    spark.sql("UNCACHE TABLE p_cached")


@job("cached_dataframe")
def _(spark: Any, ws: Workspace) -> None:
    df = _orders(spark, ws).select("id", "customer").cache()
    df.count()
    df.write.mode("overwrite").parquet(ws.out("cached_dataframe"))
    df.unpersist()


@job(
    "partitioned_table_static",
    setup=_sql(
        "DROP TABLE IF EXISTS p_part",
        "CREATE TABLE p_part (id int, amount double, region string) USING parquet PARTITIONED BY (region)",
    ),
)
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(
        "INSERT OVERWRITE TABLE p_part PARTITION (region = 'eu0') "
        "SELECT id, amount FROM peer_orders WHERE region = 'eu0'"
    )


@job(
    "partitioned_table_dynamic",
    setup=_sql(
        "DROP TABLE IF EXISTS p_dyn",
        "CREATE TABLE p_dyn (id int, amount double, region string) USING parquet PARTITIONED BY (region)",
    ),
)
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("INSERT INTO p_dyn SELECT id, amount, region FROM peer_orders")


@job(
    "cte_insert",
    setup=_sql(
        "DROP TABLE IF EXISTS p_cte", "CREATE TABLE p_cte (customer string, total double) USING parquet"
    ),
)
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(
        "WITH big AS (SELECT customer, amount FROM peer_orders WHERE amount > 20), "
        "totals AS (SELECT customer, sum(amount) AS total FROM big GROUP BY customer) "
        "INSERT INTO p_cte SELECT customer, total FROM totals"
    )


# ---------------------------------------------------------------------------------------------
# JDBC to the real PostgreSQL
# ---------------------------------------------------------------------------------------------


@job("jdbc_read_to_parquet")
def _(spark: Any, ws: Workspace) -> None:
    spark.read.jdbc(ws.jdbc_url, "peer_accounts", properties=ws.jdbc_properties).write.mode(
        "overwrite"
    ).parquet(ws.out("jdbc_read_to_parquet"))


@job("jdbc_write_overwrite")
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).select("id", "customer").write.jdbc(
        ws.jdbc_url, "peer_jdbc_out", "overwrite", ws.jdbc_properties
    )


@job("jdbc_append_format")
def _(spark: Any, ws: Workspace) -> None:
    (
        _orders(spark, ws)
        .select("id", "amount")
        .write.format("jdbc")
        .options(url=ws.jdbc_url, dbtable="peer_jdbc_append", **ws.jdbc_properties)
        .mode("append")
        .save()
    )


@job("jdbc_query_option")
def _(spark: Any, ws: Workspace) -> None:
    (
        spark.read.format("jdbc")
        .options(
            url=ws.jdbc_url,
            query="SELECT id, amount FROM peer_accounts WHERE amount > 100",
            **ws.jdbc_properties,
        )
        .load()
        .write.mode("overwrite")
        .parquet(ws.out("jdbc_query_option"))
    )


@job("jdbc_to_table", setup=_drop("p_from_jdbc"))
def _(spark: Any, ws: Workspace) -> None:
    spark.read.jdbc(ws.jdbc_url, "peer_accounts", properties=ws.jdbc_properties).select(
        "id", "region"
    ).write.saveAsTable("p_from_jdbc")


@job("jdbc_join_file")
def _(spark: Any, ws: Workspace) -> None:
    accounts = spark.read.jdbc(ws.jdbc_url, "peer_accounts", properties=ws.jdbc_properties).select(
        "id", "customer"
    )
    accounts.join(_customers(spark, ws), "customer").write.mode("overwrite").parquet(ws.out("jdbc_join_file"))


# ---------------------------------------------------------------------------------------------
# RDD-only jobs
# ---------------------------------------------------------------------------------------------


@job("rdd_text_to_text")
def _(spark: Any, ws: Workspace) -> None:
    spark.sparkContext.textFile(ws.lines_txt).map(str.upper).saveAsTextFile(ws.out("rdd_text_to_text"))


@job("rdd_parallelize_to_text")
def _(spark: Any, ws: Workspace) -> None:
    spark.sparkContext.parallelize(range(10), 2).map(str).saveAsTextFile(ws.out("rdd_parallelize_to_text"))


@job("rdd_count_only")
def _(spark: Any, ws: Workspace) -> None:
    spark.sparkContext.textFile(ws.lines_txt).filter(lambda line: "1" in line).count()


@job("rdd_from_dataframe")
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).rdd.map(lambda row: f"{row.id},{row.amount}").saveAsTextFile(
        ws.out("rdd_from_dataframe")
    )


# ---------------------------------------------------------------------------------------------
# transformations and column lineage patterns
# ---------------------------------------------------------------------------------------------


@job("join_inner")
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).join(_customers(spark, ws), "customer").select("id", "name", "amount").write.mode(
        "overwrite"
    ).parquet(ws.out("join_inner"))


@job("join_left_with_condition")
def _(spark: Any, ws: Workspace) -> None:
    o, c = _orders(spark, ws).alias("o"), _customers(spark, ws).alias("c")
    o.join(c, o.customer == c.customer, "left").selectExpr("o.id", "c.country").write.mode(
        "overwrite"
    ).parquet(ws.out("join_left_with_condition"))


@job("self_join")
def _(spark: Any, ws: Workspace) -> None:
    a, b = _orders(spark, ws).alias("a"), _orders(spark, ws).alias("b")
    a.join(b, a.id == b.id + 1).selectExpr("a.id", "b.amount AS previous_amount").write.mode(
        "overwrite"
    ).parquet(ws.out("self_join"))


@job("union_by_name")
def _(spark: Any, ws: Workspace) -> None:
    left = _orders(spark, ws).select("id", "customer")
    right = spark.read.orc(ws.orders_orc).select("customer", "id")
    left.unionByName(right).write.mode("overwrite").parquet(ws.out("union_by_name"))


@job("union_positional")
def _(spark: Any, ws: Workspace) -> None:
    left = _orders(spark, ws).selectExpr("id", "customer AS who")
    right = spark.read.json(ws.events_json).selectExpr("cast(id AS int) AS id", "kind")
    left.union(right).write.mode("overwrite").parquet(ws.out("union_positional"))


@job("window_rank")
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(
        "SELECT id, customer, rank() OVER (PARTITION BY customer ORDER BY amount DESC) AS r FROM peer_orders"
    ).write.mode("overwrite").parquet(ws.out("window_rank"))


@job("aggregate_group_by")
def _(spark: Any, ws: Workspace) -> None:
    from pyspark.sql import functions as F

    _orders(spark, ws).groupBy("customer").agg(
        F.sum("amount").alias("total"), F.max("created_at").alias("last")
    ).write.mode("overwrite").parquet(ws.out("aggregate_group_by"))


@job("python_udf")
def _(spark: Any, ws: Workspace) -> None:
    from pyspark.sql import functions as F

    shout = F.udf(lambda s: s.upper() + "!", "string")
    _orders(spark, ws).select("id", shout("customer").alias("loud")).write.mode("overwrite").parquet(
        ws.out("python_udf")
    )


@job("explode_array")
def _(spark: Any, ws: Workspace) -> None:
    spark.read.json(ws.events_json).selectExpr("id", "explode(tags) AS tag").write.mode("overwrite").parquet(
        ws.out("explode_array")
    )


@job("pivot")
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).groupBy("customer").pivot("region", ["eu0", "eu1"]).sum("amount").write.mode(
        "overwrite"
    ).parquet(ws.out("pivot"))


@job("case_when")
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(
        "SELECT id, CASE WHEN amount > 200 THEN 'large' WHEN amount > 50 THEN 'medium' ELSE customer END "
        "AS size FROM peer_orders"
    ).write.mode("overwrite").parquet(ws.out("case_when"))


@job("filter_sort_limit")
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).where("amount > 30").orderBy("created_at").limit(10).select("id").write.mode(
        "overwrite"
    ).parquet(ws.out("filter_sort_limit"))


@job("distinct")
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).select("customer", "region").distinct().write.mode("overwrite").parquet(
        ws.out("distinct")
    )


@job("expressions")
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).selectExpr(
        "concat(customer, '-', region) AS key",
        "coalesce(amount, 0D) AS amount",
        "cast(created_at AS date) AS day",
        "amount * id AS weight",
    ).write.mode("overwrite").parquet(ws.out("expressions"))


@job("nested_struct")
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).selectExpr(
        "id", "named_struct('who', customer, 'money', named_struct('amount', amount)) AS detail"
    ).write.mode("overwrite").parquet(ws.out("nested_struct"))


@job("in_subquery")
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(
        "SELECT id, amount FROM peer_orders WHERE customer IN "
        f"(SELECT customer FROM csv.`{ws.customers_csv}`)"
    ).write.mode("overwrite").parquet(ws.out("in_subquery"))


@job("sql_join_group_to_table", setup=_drop("p_report"))
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(
        "CREATE TABLE p_report USING parquet AS SELECT c.country, sum(o.amount) AS total FROM peer_orders o "
        "JOIN peer_customers_ext c ON o.customer = c.customer GROUP BY c.country HAVING sum(o.amount) > 0"
    )


@job("rollup")
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(
        "SELECT region, customer, sum(amount) AS total FROM peer_orders GROUP BY ROLLUP(region, customer)"
    ).write.mode("overwrite").parquet(ws.out("rollup"))


@job("with_column_chain")
def _(spark: Any, ws: Workspace) -> None:
    from pyspark.sql import functions as F

    (
        _orders(spark, ws)
        .withColumn("tax", F.col("amount") * 0.2)
        .withColumn("gross", F.col("amount") + F.col("tax"))
        .drop("tax")
        .withColumnRenamed("customer", "client")
        .write.mode("overwrite")
        .parquet(ws.out("with_column_chain"))
    )


# ---------------------------------------------------------------------------------------------
# dataset-wide entries only Spark's optimizer puts in a plan: a filter under a generator of a
# column (explode_array above), none under one of an expression; IS NOT NULL on inner-join keys and
# DISTINCT's GROUP BY where the jar reads the optimized plan (a file write), none in a CTAS
# ---------------------------------------------------------------------------------------------

_JOIN = "FROM peer_orders o JOIN peer_customers_ext c ON o.customer = c.customer"


@job("inferred_explode_split")
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(
        "SELECT part FROM (SELECT explode(split(created_at, '-')) AS part FROM peer_orders)"
    ).write.mode("overwrite").parquet(ws.out("inferred_explode_split"))


@job("inferred_explode_split_frame")
def _(spark: Any, ws: Workspace) -> None:
    from pyspark.sql import functions as F

    _orders(spark, ws).select(F.explode(F.split("created_at", "-")).alias("part")).write.mode(
        "overwrite"
    ).parquet(ws.out("inferred_explode_split_frame"))


@job("inferred_explode_split_two_columns")
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("SELECT explode(split(created_at, region)) AS part FROM peer_orders").write.mode(
        "overwrite"
    ).parquet(ws.out("inferred_explode_split_two_columns"))


@job("inferred_explode_aliased_split")
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(
        "SELECT explode(x) AS part FROM (SELECT split(created_at, '-') AS x FROM peer_orders)"
    ).write.mode("overwrite").parquet(ws.out("inferred_explode_aliased_split"))


@job("inferred_join_write")
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(f"SELECT concat(o.customer, c.customer) AS both_keys {_JOIN}").write.mode("overwrite").parquet(
        ws.out("inferred_join_write")
    )


@job("inferred_join_ctas", setup=_drop("p_inferred_join"))
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(
        f"CREATE TABLE p_inferred_join USING parquet AS SELECT concat(o.customer, c.customer) AS k {_JOIN}"
    )


@job("inferred_join_aggregate_save_as_table", setup=_drop("p_inferred_totals"))
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(f"SELECT c.country, count(o.id) AS n {_JOIN} GROUP BY c.country").write.saveAsTable(
        "p_inferred_totals"
    )


@job("inferred_distinct_renamed_ctas", setup=_drop("p_inferred_distinct"))
def _(spark: Any, ws: Workspace) -> None:
    spark.sql(
        "CREATE TABLE p_inferred_distinct USING parquet AS SELECT DISTINCT customer AS who FROM peer_orders"
    )


@job("inferred_distinct_renamed_write")
def _(spark: Any, ws: Workspace) -> None:
    spark.sql("SELECT DISTINCT customer AS who FROM peer_orders").write.mode("overwrite").parquet(
        ws.out("inferred_distinct_renamed_write")
    )


# ---------------------------------------------------------------------------------------------
# failed jobs: both sides report what the failed job touched
# ---------------------------------------------------------------------------------------------


def _boom(value: Any) -> str:
    raise ValueError("planned failure of the peer corpus")


@job("failed_udf_write")
def _(spark: Any, ws: Workspace) -> None:
    from pyspark.sql import functions as F

    _orders(spark, ws).select(F.udf(_boom, "string")("customer").alias("x")).write.mode("overwrite").parquet(
        ws.out("failed_udf_write")
    )


@job("failed_after_a_write")
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).select("id").write.mode("overwrite").parquet(ws.out("failed_after_a_write"))
    spark.sql("SELECT no_such_column FROM peer_orders").collect()


@job("failed_insert_into_missing_table")
def _(spark: Any, ws: Workspace) -> None:
    _orders(spark, ws).select("id").write.insertInto("p_no_such_table")


def by_name() -> dict[str, Job]:
    names = [j.name for j in JOBS]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise ValueError(f"corpus jobs named twice: {sorted(duplicates)}")
    return {j.name: j for j in JOBS}
