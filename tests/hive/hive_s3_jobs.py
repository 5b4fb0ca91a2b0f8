"""The Hive jobs on S3: a database whose location is in a bucket, its managed tables, external tables and
tables created with an ``s3a://`` location, on the same metastore and in the same session as
:mod:`hive_jobs` (the S3 API is S3Proxy on loopback, tests/support/s3_server.py).

Bucket :data:`LAKE` holds the database ``s3db`` (``s3a://lake/warehouse/s3db.db``: the warehouse side on
S3, each managed table a folder under it that the metastore server makes) and the tables created at a
location; bucket :data:`RAW` the external source (delimited text put through the S3 API). ``s3db.orders`` is
the managed source on S3, filled when the workspace is prepared.

:data:`S3_EXPECTED` is what our capture must name for each job, exactly, as openlineage-spark names a table
of a Hive metastore stored on S3: the dataset is its location (``s3://<bucket>`` + key, ``s3a`` written
``s3``), its ``symlinks`` facet the table as the metastore knows it (``hive://<host:port>`` + ``db.table``).
"""

from __future__ import annotations

from typing import Any

from hive_jobs import EXPECTED, HIVE_JOBS, HiveWorkspace, Named, job
from tests.peer.corpus import Job

LAKE = "lake"
RAW = "raw"
S3_DATABASE = "s3db"
S3_DATABASE_LOCATION = f"s3a://{LAKE}/warehouse/{S3_DATABASE}.db"
CUSTOMERS = f"s3a://{RAW}/customers"

HIVE_S3_JOBS: list[Job] = []


def prepare_s3(spark: Any, ws: HiveWorkspace) -> None:
    """Both buckets, the database on S3, its managed source ``s3db.orders`` (Parquet, Hive format, the rows
    of ``orders_rows``: :meth:`HiveWorkspace.prepare` first) and the external ``s3db.customers_ext``
    (delimited text put as an object, declared over its prefix)."""
    for bucket in (LAKE, RAW):
        ws.s3.create_bucket(bucket)
    customers = "".join(f"c{i},Customer {i},{'DE' if i % 2 else 'FR'}\n" for i in range(5))
    ws.s3.put_object(RAW, "customers/part-0.txt", customers.encode())
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {S3_DATABASE} LOCATION '{S3_DATABASE_LOCATION}'")
    spark.sql("DROP TABLE IF EXISTS s3db.orders")
    spark.sql(
        "CREATE TABLE s3db.orders (order_id INT, customer STRING, amount DOUBLE, order_date STRING) "
        "STORED AS PARQUET"
    )
    spark.sql("INSERT OVERWRITE TABLE s3db.orders SELECT * FROM orders_rows")
    spark.sql("DROP TABLE IF EXISTS s3db.customers_ext")
    spark.sql(
        "CREATE EXTERNAL TABLE s3db.customers_ext (customer STRING, name STRING, country STRING) "
        f"ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' STORED AS TEXTFILE LOCATION '{CUSTOMERS}'"
    )


def s3_job(name: str, *setup: str) -> Any:
    return job(name, *setup, into=HIVE_S3_JOBS)


@s3_job("hive_s3_ctas_managed", "DROP TABLE IF EXISTS s3db.big_orders")
def _(spark: Any, ws: HiveWorkspace) -> None:
    """A Hive-format CTAS into the S3 database: a managed table in a folder of the bucket."""
    spark.sql(
        "CREATE TABLE s3db.big_orders STORED AS PARQUET AS "
        "SELECT order_id, customer, amount FROM sales.orders WHERE amount > 50"
    )


@s3_job("hive_s3_ctas_location", "DROP TABLE IF EXISTS analytics.s3_totals")
def _(spark: Any, ws: HiveWorkspace) -> None:
    """A data source CTAS with an S3 location, in a database on local disk, from the S3 source."""
    spark.sql(
        f"CREATE TABLE analytics.s3_totals USING parquet LOCATION 's3a://{LAKE}/tables/totals' AS "
        "SELECT customer, sum(amount) AS total FROM s3db.orders GROUP BY customer"
    )


@s3_job("hive_s3_save_as_table_managed", "DROP TABLE IF EXISTS s3db.orders_sat")
def _(spark: Any, ws: HiveWorkspace) -> None:
    spark.table("sales.orders").select("order_id", "customer").write.saveAsTable("s3db.orders_sat")


@s3_job("hive_s3_save_as_table_path", "DROP TABLE IF EXISTS analytics.orders_s3_path")
def _(spark: Any, ws: HiveWorkspace) -> None:
    """``saveAsTable`` with a ``path`` in the bucket: an external table, from the S3 source."""
    spark.table("s3db.orders").select("order_id", "amount").write.option(
        "path", f"s3a://{LAKE}/tables/orders_by_path"
    ).saveAsTable("analytics.orders_s3_path")


@s3_job(
    "hive_s3_external_read",
    "DROP TABLE IF EXISTS analytics.customers_from_s3",
    "CREATE TABLE analytics.customers_from_s3 (customer STRING, name STRING, country STRING) "
    "STORED AS PARQUET",
)
def _(spark: Any, ws: HiveWorkspace) -> None:
    spark.sql("INSERT OVERWRITE TABLE analytics.customers_from_s3 SELECT * FROM s3db.customers_ext")


@s3_job(
    "hive_s3_external_write",
    "DROP TABLE IF EXISTS s3db.orders_ext_out",
    "CREATE EXTERNAL TABLE s3db.orders_ext_out (order_id INT, amount DOUBLE) STORED AS PARQUET "
    f"LOCATION 's3a://{LAKE}/external/orders_out'",
)
def _(spark: Any, ws: HiveWorkspace) -> None:
    spark.sql("INSERT INTO s3db.orders_ext_out SELECT order_id, amount FROM sales.orders")


@s3_job("hive_s3_read_back")
def _(spark: Any, ws: HiveWorkspace) -> None:
    """The managed S3 table read back by name into a folder on local disk."""
    spark.table("s3db.orders").groupBy("customer").count().write.mode("overwrite").parquet(
        ws.out("s3_read_back")
    )


@s3_job(
    "hive_s3_insert_partition",
    "DROP TABLE IF EXISTS s3db.daily",
    "CREATE TABLE s3db.daily (order_id INT, amount DOUBLE) PARTITIONED BY (dt STRING) STORED AS PARQUET",
)
def _(spark: Any, ws: HiveWorkspace) -> None:
    """INSERT into a static partition of a partitioned managed table on S3 (the metastore makes its
    folder)."""
    spark.sql(
        "INSERT INTO s3db.daily PARTITION (dt='2026-01-02') "
        "SELECT order_id, amount FROM s3db.orders WHERE order_date = '2026-01-02'"
    )


def _s3(location: str) -> str:
    """``s3a://bucket/key`` as openlineage-spark names it: ``s3://bucket:key``."""
    bucket, _, key = location.removeprefix("s3a://").partition("/")
    return f"s3://{bucket}:{key}"


ORDERS = "input file:{wh}/sales.db/orders"
S3_ORDERS = f"input {_s3(S3_DATABASE_LOCATION)}/orders"
#: job -> {"input|output <namespace>:<name>" (``{wh}`` the warehouse, ``{root}`` the workspace): what ours
#: names}
S3_EXPECTED: dict[str, dict[str, Named]] = {
    "hive_s3_ctas_managed": {
        ORDERS: Named("sales.orders"),
        f"output {_s3(S3_DATABASE_LOCATION)}/big_orders": Named("s3db.big_orders", "CREATE"),
    },
    "hive_s3_ctas_location": {
        S3_ORDERS: Named("s3db.orders"),
        f"output s3://{LAKE}:tables/totals": Named("analytics.s3_totals", "CREATE"),
    },
    "hive_s3_save_as_table_managed": {
        ORDERS: Named("sales.orders"),
        f"output {_s3(S3_DATABASE_LOCATION)}/orders_sat": Named("s3db.orders_sat", "CREATE"),
    },
    "hive_s3_save_as_table_path": {
        S3_ORDERS: Named("s3db.orders"),
        f"output s3://{LAKE}:tables/orders_by_path": Named("analytics.orders_s3_path", "CREATE"),
    },
    "hive_s3_external_read": {
        f"input {_s3(CUSTOMERS)}": Named("s3db.customers_ext"),
        "output file:{wh}/analytics.db/customers_from_s3": Named("analytics.customers_from_s3", "OVERWRITE"),
    },
    "hive_s3_external_write": {
        ORDERS: Named("sales.orders"),
        f"output s3://{LAKE}:external/orders_out": Named("s3db.orders_ext_out"),
    },
    "hive_s3_read_back": {
        S3_ORDERS: Named("s3db.orders"),
        "output file:{root}/out/s3_read_back": Named(None, "OVERWRITE"),
    },
    "hive_s3_insert_partition": {
        S3_ORDERS: Named("s3db.orders"),
        f"output {_s3(S3_DATABASE_LOCATION)}/daily": Named("s3db.daily"),
    },
}

#: Every Hive job, on local disk and on S3: the suite runs them all in one session, local ones first.
EVERY_JOB: list[Job] = [*HIVE_JOBS, *HIVE_S3_JOBS]
EVERY_EXPECTED: dict[str, dict[str, Named]] = {**EXPECTED, **S3_EXPECTED}
