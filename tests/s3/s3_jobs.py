"""The S3 jobs: Spark reading and writing ``s3a://`` paths on the test's S3 server, as users' tasks do.

The same :class:`~tests.peer.corpus.Job` style as the peer corpus: a ``setup`` outside the capture, a
``body`` that is the task's own work, run under our capture and openlineage-spark's listener at once
(tests/peer/runner.py). Sources live in bucket :data:`RAW`, outputs in :data:`LAKE`, each job writing
under a key of its own. :data:`EXPECTED` is what our capture must name for each job, exactly: the
datasets by their storage, as openlineage-spark names S3 (``s3://<bucket>`` + key without its leading
slash, ``s3a`` written ``s3``, partitions and globs trimmed to the dataset's root).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.peer.corpus import Job
from tests.peer.runner import Outcome
from tests.support.s3_server import S3Server

RAW = "raw"
LAKE = "lake"
#: The quick start's source (README.md): CSV with a header, ``customer`` sometimes empty.
ORDERS_CSV_HEADER = "order_id,customer,amount,order_date\n"

S3Body = Callable[[Any, "S3Workspace"], None]


@dataclass
class S3Run:
    """Every S3 job's outcome under both listeners, and the text of every log record of ours meanwhile."""

    outcomes: dict[str, Outcome]
    our_log: list[str]


@dataclass
class S3Workspace:
    """The buckets and keys of the S3 jobs, and the server that holds them."""

    server: S3Server

    @staticmethod
    def raw(key: str) -> str:
        return f"s3a://{RAW}/{key}"

    @staticmethod
    def lake(key: str) -> str:
        return f"s3a://{LAKE}/{key}"

    def prepare(self, spark: Any) -> None:
        """Both buckets (through the S3 API) and the sources: Parquet, CSV and JSON folders written by
        Spark, single objects put by the S3 API (one CSV, two CSVs under per-export prefixes)."""
        for bucket in (RAW, LAKE):
            self.server.create_bucket(bucket)
        orders = spark.createDataFrame(
            [(i, f"c{i % 5}", float(i * 10), f"2026-01-0{1 + i % 3}") for i in range(30)],
            "order_id int, customer string, amount double, order_date string",
        )
        orders.write.mode("overwrite").parquet(self.raw("orders_parquet"))
        orders.write.mode("overwrite").json(self.raw("events_json"))
        rows = "".join(
            f"{i},{'' if i % 7 == 0 else f'c{i % 4}'},{i * 2.5},2026-01-0{1 + i % 3}\n" for i in range(24)
        )
        self.server.put_object(RAW, "orders/part-0.csv", (ORDERS_CSV_HEADER + rows).encode())
        customers = "customer,name,country\n" + "".join(f"c{i},Customer {i},DE\n" for i in range(4))
        self.server.put_object(RAW, "single/customers.csv", customers.encode())
        for export in ("a", "b"):
            self.server.put_object(RAW, f"exports/{export}/data.csv", customers.encode())


S3_JOBS: list[Job] = []


def job(name: str, setup: S3Body | None = None) -> Callable[[S3Body], S3Body]:
    def register(body: S3Body) -> S3Body:
        S3_JOBS.append(Job(name, body, setup) if setup else Job(name, body))  # type: ignore[arg-type]
        return body

    return register


def _orders_csv(spark: Any) -> Any:
    return spark.read.option("header", True).csv(S3Workspace.raw("orders/"))


@job("s3_parquet_to_parquet")
def _(spark: Any, ws: S3Workspace) -> None:
    spark.read.parquet(ws.raw("orders_parquet")).select("order_id", "amount").write.mode("overwrite").parquet(
        ws.lake("parquet_out")
    )


@job("s3_csv_to_json")
def _(spark: Any, ws: S3Workspace) -> None:
    _orders_csv(spark).where("customer IS NOT NULL").write.mode("overwrite").json(ws.lake("csv_to_json"))


@job("s3_json_to_csv")
def _(spark: Any, ws: S3Workspace) -> None:
    spark.read.json(ws.raw("events_json")).select("order_id", "customer").write.mode("overwrite").option(
        "header", True
    ).csv(ws.lake("json_to_csv"))


@job("s3_partitioned_write")
def _(spark: Any, ws: S3Workspace) -> None:
    spark.read.parquet(ws.raw("orders_parquet")).write.mode("overwrite").partitionBy("order_date").parquet(
        ws.lake("orders_by_date/")
    )


@job("s3_single_object_read")
def _(spark: Any, ws: S3Workspace) -> None:
    spark.read.option("header", True).csv(ws.raw("single/customers.csv")).write.mode("overwrite").parquet(
        ws.lake("single_object")
    )


@job("s3_glob_prefix_read")
def _(spark: Any, ws: S3Workspace) -> None:
    spark.read.option("header", True).csv(ws.raw("exports/*/data.csv")).write.mode("overwrite").parquet(
        ws.lake("exports_merged")
    )


def _drop(*tables: str) -> S3Body:
    def setup(spark: Any, ws: S3Workspace) -> None:
        for table in tables:
            spark.sql(f"DROP TABLE IF EXISTS {table}")

    return setup


@job("s3_save_as_table", setup=_drop("s3_orders_sat"))
def _(spark: Any, ws: S3Workspace) -> None:
    spark.read.parquet(ws.raw("orders_parquet")).select("order_id", "customer").write.option(
        "path", ws.lake("tables/orders_sat")
    ).saveAsTable("s3_orders_sat")


@job("s3_ctas_location", setup=_drop("s3_ctas"))
def _(spark: Any, ws: S3Workspace) -> None:
    spark.sql(
        f"CREATE TABLE s3_ctas USING parquet LOCATION '{ws.lake('tables/ctas')}' "
        f"AS SELECT order_id, amount FROM parquet.`{ws.raw('orders_parquet')}` WHERE amount > 50"
    )


def _external_orders_table(spark: Any, ws: S3Workspace) -> None:
    spark.sql("DROP TABLE IF EXISTS s3_ext_read")
    spark.sql(f"CREATE TABLE s3_ext_read USING parquet LOCATION '{ws.raw('orders_parquet')}'")


@job("s3_table_to_file", setup=_external_orders_table)
def _(spark: Any, ws: S3Workspace) -> None:
    """An external table on S3 read by name: its dataset is its location."""
    spark.table("s3_ext_read").groupBy("customer").count().write.mode("overwrite").parquet(
        ws.lake("table_to_file")
    )


#: job -> {"input|output namespace:name": {facet: what ours must say}}: exact names, key facets. A
#: facet listed with None must be present (its value checked elsewhere, e.g. the schema per format).
EXPECTED: dict[str, dict[str, dict[str, Any]]] = {
    "s3_parquet_to_parquet": {
        "input s3://raw:orders_parquet": {"storage": "parquet"},
        "output s3://lake:parquet_out": {"storage": "parquet", "lifecycle": "OVERWRITE"},
    },
    "s3_csv_to_json": {
        "input s3://raw:orders": {"storage": "csv"},
        "output s3://lake:csv_to_json": {"storage": "json", "lifecycle": "OVERWRITE"},
    },
    "s3_json_to_csv": {
        "input s3://raw:events_json": {"storage": "json"},
        "output s3://lake:json_to_csv": {"storage": "csv", "lifecycle": "OVERWRITE"},
    },
    "s3_partitioned_write": {
        "input s3://raw:orders_parquet": {"storage": "parquet"},
        "output s3://lake:orders_by_date": {"storage": "parquet", "lifecycle": "OVERWRITE"},
    },
    "s3_single_object_read": {
        "input s3://raw:single/customers.csv": {"storage": "csv"},
        "output s3://lake:single_object": {"storage": "parquet", "lifecycle": "OVERWRITE"},
    },
    # the glob is expanded before the plan: each matched object, named by its folder (both sides agree)
    "s3_glob_prefix_read": {
        "input s3://raw:exports/a": {"storage": "csv"},
        "input s3://raw:exports/b": {"storage": "csv"},
        "output s3://lake:exports_merged": {"storage": "parquet", "lifecycle": "OVERWRITE"},
    },
    "s3_save_as_table": {
        "input s3://raw:orders_parquet": {"storage": "parquet"},
        "output s3://lake:tables/orders_sat": {"storage": "parquet", "lifecycle": "CREATE"},
    },
    "s3_ctas_location": {
        "input s3://raw:orders_parquet": {"storage": "parquet"},
        "output s3://lake:tables/ctas": {"storage": "parquet", "lifecycle": "CREATE"},
    },
    "s3_table_to_file": {
        "input s3://raw:orders_parquet": {"storage": "parquet"},
        "output s3://lake:table_to_file": {"storage": "parquet", "lifecycle": "OVERWRITE"},
    },
}
