"""The lakehouse corpus on S3: Delta Lake and Iceberg tables whose data lives on ``s3a://``.

The same jobs style as :mod:`tests.peer.corpus_lakehouse`, in the same session (the conftest of
tests/peer/lakehouse adds S3A against S3Proxy on loopback, tests/support/s3_server.py). Everything is in
bucket :data:`BUCKET`: sources under ``src/``, Delta tables under ``delta/``, the warehouse of the Iceberg
Hadoop catalog :data:`ICEBERG_S3_CATALOG` under ``iceberg/``, plain outputs under ``out/``. Delta tables are
written, read and merged by ``s3a://`` path and made in the session catalog (``saveAsTable`` with a path,
CTAS with ``LOCATION``); Iceberg tables are made, appended to and read back in the S3 catalog.
:data:`EXPECTED` is what our capture must name for each job, exactly (both sides name S3 ``s3://<bucket>`` +
key); the jar is compared facet by facet, as in the local corpus.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.peer.corpus import Job
from tests.support.s3_server import S3Server

BUCKET = "lake"
#: The Iceberg Hadoop catalog whose warehouse is ``s3a://lake/iceberg``.
ICEBERG_S3_CATALOG = "ice_s3"
ICEBERG_S3_NAMESPACE = f"{ICEBERG_S3_CATALOG}.db"
ICEBERG_S3_WAREHOUSE = f"s3a://{BUCKET}/iceberg"


@dataclass
class S3LakeWorkspace:
    """The S3 keys of the jobs, and the server that holds them."""

    server: S3Server
    found: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def key(key: str) -> str:
        return f"s3a://{BUCKET}/{key}"

    @classmethod
    def delta(cls, job: str) -> str:
        return cls.key(f"delta/{job}")

    @classmethod
    def out(cls, job: str) -> str:
        return cls.key(f"out/{job}")

    @classmethod
    def orders(cls) -> str:
        return cls.key("src/orders")

    @classmethod
    def updates(cls) -> str:
        return cls.key("src/updates")

    def prepare(self, spark: Any) -> None:
        """The bucket (through the S3 API), the sources as Parquet on S3, the Iceberg namespace."""
        self.server.create_bucket(BUCKET)
        spark.createDataFrame(
            [(i, f"c{i % 5}", float(i * 10), f"eu{i % 2}") for i in range(20)],
            "id int, customer string, amount double, region string",
        ).write.mode("overwrite").parquet(self.orders())
        spark.createDataFrame(
            [(i, f"c{i % 3}", float(i), f"eu{i % 2}") for i in range(10, 30)],
            "id int, customer string, amount double, region string",
        ).write.mode("overwrite").parquet(self.updates())
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {ICEBERG_S3_NAMESPACE}")


S3LakeBody = Callable[[Any, S3LakeWorkspace], None]
LAKE_S3_JOBS: list[Job] = []


def job(name: str, setup: S3LakeBody | None = None) -> Callable[[S3LakeBody], S3LakeBody]:
    def register(body: S3LakeBody) -> S3LakeBody:
        LAKE_S3_JOBS.append(Job(name, body, setup) if setup else Job(name, body))  # type: ignore[arg-type]
        return body

    return register


def _orders(spark: Any) -> Any:
    return spark.read.parquet(S3LakeWorkspace.orders())


def _updates(spark: Any) -> Any:
    return spark.read.parquet(S3LakeWorkspace.updates())


def _delta_path_with_orders(job_name: str) -> S3LakeBody:
    def setup(spark: Any, ws: S3LakeWorkspace) -> None:
        _orders(spark).write.format("delta").mode("overwrite").save(ws.delta(job_name))

    return setup


def _drop(*tables: str) -> S3LakeBody:
    def setup(spark: Any, ws: S3LakeWorkspace) -> None:
        for table in tables:
            spark.sql(f"DROP TABLE IF EXISTS {table}")

    return setup


# ---- Delta Lake by s3a:// path ----------------------------------------------------------------


@job("s3_delta_path_overwrite")
def _(spark: Any, ws: S3LakeWorkspace) -> None:
    _orders(spark).select("id", "amount").write.format("delta").mode("overwrite").save(
        ws.delta("s3_delta_path_overwrite")
    )


@job("s3_delta_path_append", setup=_delta_path_with_orders("s3_delta_path_append"))
def _(spark: Any, ws: S3LakeWorkspace) -> None:
    _updates(spark).write.format("delta").mode("append").save(ws.delta("s3_delta_path_append"))


@job("s3_delta_path_merge", setup=_delta_path_with_orders("s3_delta_path_merge"))
def _(spark: Any, ws: S3LakeWorkspace) -> None:
    """SQL MERGE into a Delta table named by its ``s3a://`` path (``DeltaTable.forPath`` cannot run on 4.1:
    corpus_lakehouse.BROKEN), from the updates on S3."""
    spark.sql(
        f"MERGE INTO delta.`{ws.delta('s3_delta_path_merge')}` t USING parquet.`{ws.updates()}` s "
        "ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.amount = s.amount WHEN NOT MATCHED THEN INSERT *"
    )


@job("s3_delta_path_read", setup=_delta_path_with_orders("s3_delta_path_read"))
def _(spark: Any, ws: S3LakeWorkspace) -> None:
    spark.read.format("delta").load(ws.delta("s3_delta_path_read")).where("amount > 50").select(
        "id", "customer"
    ).write.mode("overwrite").parquet(ws.out("s3_delta_path_read"))


# ---- Delta Lake tables of the session catalog, located on S3 ----------------------------------


@job("s3_delta_save_as_table", setup=_drop("d_s3_sat"))
def _(spark: Any, ws: S3LakeWorkspace) -> None:
    _orders(spark).select("id", "customer").write.format("delta").option(
        "path", ws.delta("tables/d_s3_sat")
    ).saveAsTable("d_s3_sat")


@job("s3_delta_ctas_location", setup=_drop("d_s3_ctas"))
def _(spark: Any, ws: S3LakeWorkspace) -> None:
    spark.sql(
        f"CREATE TABLE d_s3_ctas USING delta LOCATION '{ws.delta('tables/d_s3_ctas')}' "
        f"AS SELECT id, amount * 2 AS doubled FROM parquet.`{ws.orders()}`"
    )


def _delta_table_on_s3(spark: Any, ws: S3LakeWorkspace) -> None:
    spark.sql("DROP TABLE IF EXISTS d_s3_read")
    _orders(spark).write.format("delta").option("path", ws.delta("tables/d_s3_read")).saveAsTable("d_s3_read")


@job("s3_delta_table_read", setup=_delta_table_on_s3)
def _(spark: Any, ws: S3LakeWorkspace) -> None:
    """No aggregate or join: in a session with Delta's extension the jar drops every event of a query whose
    plan is adaptive (any shuffle), so it would report nothing to compare (docs/comparison.md)."""
    spark.table("d_s3_read").where("region = 'eu0'").select("id", "customer").write.mode("overwrite").parquet(
        ws.out("s3_delta_table_read")
    )


# ---- Iceberg: a Hadoop catalog whose warehouse is on S3 ---------------------------------------


def _iceberg_s3_table(name: str) -> S3LakeBody:
    """``ice_s3.db.<name>`` holding the orders, partitioned by region (dropped first)."""

    def setup(spark: Any, ws: S3LakeWorkspace) -> None:
        from pyspark.sql.functions import col

        table = f"{ICEBERG_S3_NAMESPACE}.{name}"
        spark.sql(f"DROP TABLE IF EXISTS {table}")
        _orders(spark).writeTo(table).partitionedBy(col("region")).create()

    return setup


@job("s3_iceberg_ctas", setup=_drop(f"{ICEBERG_S3_NAMESPACE}.i_s3_ctas"))
def _(spark: Any, ws: S3LakeWorkspace) -> None:
    spark.sql(
        f"CREATE TABLE {ICEBERG_S3_NAMESPACE}.i_s3_ctas USING iceberg AS "
        f"SELECT id, upper(customer) AS customer FROM parquet.`{ws.orders()}` WHERE amount > 50"
    )


@job("s3_iceberg_append", setup=_iceberg_s3_table("i_s3_append"))
def _(spark: Any, ws: S3LakeWorkspace) -> None:
    _updates(spark).writeTo(f"{ICEBERG_S3_NAMESPACE}.i_s3_append").append()


@job("s3_iceberg_read", setup=_iceberg_s3_table("i_s3_read"))
def _(spark: Any, ws: S3LakeWorkspace) -> None:
    table = spark.table(f"{ICEBERG_S3_NAMESPACE}.i_s3_read")
    table.where("region = 'eu1'").select("id", "amount").write.mode("overwrite").parquet(
        ws.out("s3_iceberg_read")
    )


_NS = f"s3://{BUCKET}"
_ORDERS, _UPDATES = f"input {_NS}:src/orders", f"input {_NS}:src/updates"

#: job -> every dataset our capture must report ("input|output namespace:name"), exactly.
EXPECTED: dict[str, set[str]] = {
    "s3_delta_path_overwrite": {_ORDERS, f"output {_NS}:delta/s3_delta_path_overwrite"},
    "s3_delta_path_append": {_UPDATES, f"output {_NS}:delta/s3_delta_path_append"},
    "s3_delta_path_merge": {
        _UPDATES,
        f"input {_NS}:delta/s3_delta_path_merge",
        f"output {_NS}:delta/s3_delta_path_merge",
    },
    "s3_delta_path_read": {f"input {_NS}:delta/s3_delta_path_read", f"output {_NS}:out/s3_delta_path_read"},
    "s3_delta_save_as_table": {_ORDERS, f"output {_NS}:delta/tables/d_s3_sat"},
    "s3_delta_ctas_location": {_ORDERS, f"output {_NS}:delta/tables/d_s3_ctas"},
    "s3_delta_table_read": {f"input {_NS}:delta/tables/d_s3_read", f"output {_NS}:out/s3_delta_table_read"},
    "s3_iceberg_ctas": {_ORDERS, f"output {_NS}:iceberg/db/i_s3_ctas"},
    "s3_iceberg_append": {_UPDATES, f"output {_NS}:iceberg/db/i_s3_append"},
    "s3_iceberg_read": {f"input {_NS}:iceberg/db/i_s3_read", f"output {_NS}:out/s3_iceberg_read"},
}

_DELTA_CATALOG = {"framework": "delta", "type": "delta", "name": "spark_catalog", "source": "spark"}
_ICEBERG_CATALOG = {
    "framework": "iceberg",
    "type": "hadoop",
    "name": ICEBERG_S3_CATALOG,
    "warehouseUri": ICEBERG_S3_WAREHOUSE,
    "source": "spark",
}


def _iceberg_table(name: str) -> dict[str, Any]:
    return {"symlinks": [(f"{_NS}/iceberg", f"db.{name}", "TABLE")], "catalog": _ICEBERG_CATALOG}


#: dataset ("input|output namespace:name") -> its ``symlinks`` (namespace, name, type) and ``catalog`` facet,
#: as ours must give them; a dataset not listed has neither. A Delta catalog table located outside the
#: warehouse has no symlink (the jar's rule for catalog tables without a metastore) but its catalog's facet.
TABLE_IDENTITY: dict[str, dict[str, Any]] = {
    f"output {_NS}:delta/tables/d_s3_sat": {"symlinks": None, "catalog": _DELTA_CATALOG},
    f"output {_NS}:delta/tables/d_s3_ctas": {"symlinks": None, "catalog": _DELTA_CATALOG},
    f"input {_NS}:delta/tables/d_s3_read": {"symlinks": None, "catalog": _DELTA_CATALOG},
    f"output {_NS}:iceberg/db/i_s3_ctas": _iceberg_table("i_s3_ctas"),
    f"output {_NS}:iceberg/db/i_s3_append": _iceberg_table("i_s3_append"),
    f"input {_NS}:iceberg/db/i_s3_read": _iceberg_table("i_s3_read"),
}

__all__ = [
    "EXPECTED",
    "ICEBERG_S3_CATALOG",
    "ICEBERG_S3_WAREHOUSE",
    "LAKE_S3_JOBS",
    "TABLE_IDENTITY",
    "S3LakeWorkspace",
]
