"""The Hive jobs: Spark SQL on tables of a real Hive metastore (tests/support/hive_metastore.py), as users'
tasks run it against a shared metastore.

The same :class:`~tests.peer.corpus.Job` style as the peer corpus: a ``setup`` outside the capture (the
table the job needs, a clean target), a ``body`` that is the task's own work, run under our capture and
openlineage-spark's listener at once (tests/peer/runner.py). Two databases, ``sales`` (the sources) and
``analytics`` (most outputs), each under the metastore's warehouse; external tables live under the
workspace's own folder, outside the warehouse.

:data:`EXPECTED` is what our capture must name for each job, exactly, as openlineage-spark names a table of
a Hive metastore: the dataset is the table's location (``file`` + its path), its ``symlinks`` facet the
table as the metastore knows it (``hive://<metastore host:port>`` + ``db.table``, type ``TABLE``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.peer.corpus import Job
from tests.peer.runner import Outcome
from tests.support.hive_metastore import HiveMetastore
from tests.support.s3_server import S3Server

HiveBody = Callable[[Any, "HiveWorkspace"], None]


@dataclass
class HiveRun:
    """Every Hive job's outcome under both listeners, and the text of every log record of ours meanwhile."""

    outcomes: dict[str, Outcome]
    our_log: list[str]


@dataclass
class HiveWorkspace:
    """The metastore the jobs use, the folder that holds their files outside its warehouse, and the S3 API
    that holds the S3 jobs' database and tables (hive_s3_jobs.py)."""

    metastore: HiveMetastore
    root: Path
    s3: S3Server

    def out(self, name: str) -> str:
        """A plain output folder (not a table)."""
        return str(self.root / "out" / name)

    def external(self, name: str) -> str:
        """The location of an external table, outside the warehouse."""
        return str(self.root / "external" / name)

    def prepare(self, spark: Any) -> None:
        """Both databases (created through Spark, so placed under the warehouse as Spark places them), the
        managed source ``sales.orders`` (Hive format, Parquet) and the external ``sales.customers_ext``
        (delimited text written here, declared over its folder)."""
        for database in ("sales", "analytics"):
            spark.sql(f"CREATE DATABASE IF NOT EXISTS {database}")
        spark.createDataFrame(
            [(i, f"c{i % 5}", float(i * 10), f"2026-01-0{1 + i % 3}") for i in range(30)],
            "order_id int, customer string, amount double, order_date string",
        ).createOrReplaceTempView("orders_rows")
        spark.sql("DROP TABLE IF EXISTS sales.orders")
        spark.sql(
            "CREATE TABLE sales.orders (order_id INT, customer STRING, amount DOUBLE, order_date STRING) "
            "STORED AS PARQUET"
        )
        spark.sql("INSERT OVERWRITE TABLE sales.orders SELECT * FROM orders_rows")
        customers = Path(self.external("customers"))
        customers.mkdir(parents=True, exist_ok=True)
        (customers / "part-0.txt").write_text(
            "".join(f"c{i},Customer {i},{'DE' if i % 2 else 'FR'}\n" for i in range(5))
        )
        spark.sql("DROP TABLE IF EXISTS sales.customers_ext")
        spark.sql(
            "CREATE EXTERNAL TABLE sales.customers_ext (customer STRING, name STRING, country STRING) "
            f"ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' STORED AS TEXTFILE LOCATION '{customers}'"
        )


HIVE_JOBS: list[Job] = []


def job(name: str, *setup: str, into: list[Job] = HIVE_JOBS) -> Callable[[HiveBody], HiveBody]:
    """Register a job in ``into``; ``setup`` are SQL statements (``{ws}`` is the workspace) run before it."""

    def prepare(spark: Any, ws: HiveWorkspace) -> None:
        for statement in setup:
            spark.sql(statement.format(ws=ws))

    def register(body: HiveBody) -> HiveBody:
        into.append(Job(name, body, prepare))  # type: ignore[arg-type]
        return body

    return register


@job("hive_ctas_across_databases", "DROP TABLE IF EXISTS analytics.big_orders")
def _(spark: Any, ws: HiveWorkspace) -> None:
    spark.sql(
        "CREATE TABLE analytics.big_orders STORED AS PARQUET AS "
        "SELECT order_id, customer, amount FROM sales.orders WHERE amount > 50"
    )


@job("hive_ctas_datasource", "DROP TABLE IF EXISTS analytics.customer_totals")
def _(spark: Any, ws: HiveWorkspace) -> None:
    spark.sql(
        "CREATE TABLE analytics.customer_totals USING parquet AS "
        "SELECT customer, sum(amount) AS total FROM sales.orders GROUP BY customer"
    )


@job(
    "hive_insert_overwrite_partition",
    "DROP TABLE IF EXISTS analytics.daily",
    "CREATE TABLE analytics.daily (order_id INT, amount DOUBLE) PARTITIONED BY (dt STRING) STORED AS PARQUET",
)
def _(spark: Any, ws: HiveWorkspace) -> None:
    spark.sql(
        "INSERT OVERWRITE TABLE analytics.daily PARTITION (dt='2026-01-01') "
        "SELECT order_id, amount FROM sales.orders WHERE order_date = '2026-01-01'"
    )


@job(
    "hive_external_table_read",
    "DROP TABLE IF EXISTS analytics.customers_copy",
    "CREATE TABLE analytics.customers_copy (customer STRING, name STRING, country STRING) STORED AS PARQUET",
)
def _(spark: Any, ws: HiveWorkspace) -> None:
    spark.sql("INSERT OVERWRITE TABLE analytics.customers_copy SELECT * FROM sales.customers_ext")


@job(
    "hive_external_table_write",
    "DROP TABLE IF EXISTS analytics.orders_ext_out",
    "CREATE EXTERNAL TABLE analytics.orders_ext_out (order_id INT, amount DOUBLE) STORED AS PARQUET "
    "LOCATION '{ws.root}/external/orders_out'",
)
def _(spark: Any, ws: HiveWorkspace) -> None:
    spark.sql("INSERT INTO analytics.orders_ext_out SELECT order_id, amount FROM sales.orders")


@job(
    "hive_view_read",
    "DROP VIEW IF EXISTS analytics.v_big_orders",
    "CREATE VIEW analytics.v_big_orders AS SELECT order_id, amount FROM sales.orders WHERE amount > 100",
)
def _(spark: Any, ws: HiveWorkspace) -> None:
    spark.table("analytics.v_big_orders").write.mode("overwrite").parquet(ws.out("view_read"))


@job(
    "hive_alter_add_columns",
    "DROP TABLE IF EXISTS analytics.alter_me",
    "CREATE TABLE analytics.alter_me (id INT) STORED AS PARQUET",
)
def _(spark: Any, ws: HiveWorkspace) -> None:
    spark.sql("ALTER TABLE analytics.alter_me ADD COLUMNS (note STRING)")


@job(
    "hive_drop_table",
    "DROP TABLE IF EXISTS analytics.drop_me",
    "CREATE TABLE analytics.drop_me (id INT) STORED AS PARQUET",
)
def _(spark: Any, ws: HiveWorkspace) -> None:
    spark.sql("DROP TABLE analytics.drop_me")


@job("hive_save_as_table", "DROP TABLE IF EXISTS analytics.orders_sat")
def _(spark: Any, ws: HiveWorkspace) -> None:
    spark.table("sales.orders").select("order_id", "customer").write.saveAsTable("analytics.orders_sat")


@dataclass(frozen=True)
class Named:
    """A dataset our capture must report: its ``symlinks`` table (``db.table``, None for a plain folder)
    and, for an output, its lifecycle change (None: none)."""

    table: str | None
    lifecycle: str | None = None


ORDERS = "input file:{wh}/sales.db/orders"
#: job -> {"input|output file:<path>" with ``{wh}`` the warehouse, ``{root}`` the workspace: what ours names}
EXPECTED: dict[str, dict[str, Named]] = {
    "hive_ctas_across_databases": {
        ORDERS: Named("sales.orders"),
        "output file:{wh}/analytics.db/big_orders": Named("analytics.big_orders", "CREATE"),
    },
    "hive_ctas_datasource": {
        ORDERS: Named("sales.orders"),
        "output file:{wh}/analytics.db/customer_totals": Named("analytics.customer_totals", "CREATE"),
    },
    "hive_insert_overwrite_partition": {
        ORDERS: Named("sales.orders"),
        "output file:{wh}/analytics.db/daily": Named("analytics.daily", "OVERWRITE"),
    },
    "hive_external_table_read": {
        "input file:{root}/external/customers": Named("sales.customers_ext"),
        "output file:{wh}/analytics.db/customers_copy": Named("analytics.customers_copy", "OVERWRITE"),
    },
    "hive_external_table_write": {
        ORDERS: Named("sales.orders"),
        "output file:{root}/external/orders_out": Named("analytics.orders_ext_out"),
    },
    # a view is read through: the dataset is the table under it
    "hive_view_read": {
        ORDERS: Named("sales.orders"),
        "output file:{root}/out/view_read": Named(None, "OVERWRITE"),
    },
    "hive_alter_add_columns": {
        "output file:{wh}/analytics.db/alter_me": Named("analytics.alter_me", "ALTER"),
    },
    "hive_drop_table": {
        "output file:{wh}/analytics.db/drop_me": Named("analytics.drop_me", "DROP"),
    },
    "hive_save_as_table": {
        ORDERS: Named("sales.orders"),
        "output file:{wh}/analytics.db/orders_sat": Named("analytics.orders_sat", "CREATE"),
    },
}


def expected_for(
    job: str, ws: HiveWorkspace, expected: dict[str, dict[str, Named]] = EXPECTED
) -> dict[str, Named]:
    """``expected`` (:data:`EXPECTED`) of ``job`` with the workspace's paths filled in."""
    paths = {"wh": str(ws.metastore.warehouse), "root": str(ws.root)}
    return {key.format(**paths): named for key, named in expected[job].items()}
