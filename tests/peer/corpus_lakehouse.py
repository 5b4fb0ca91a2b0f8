"""The peer's lakehouse corpus: Delta Lake and Apache Iceberg jobs, run under both listeners.

The same :class:`~tests.peer.corpus.Job` style as the main corpus: a ``setup`` outside the capture
(tables a job needs, in the state it needs them), a ``body`` that is the task's own work. Every job
owns its tables and paths (named after the job), so the order of the jobs changes nothing.

The session (tests/peer/lakehouse/conftest.py) has Delta's extension and ``DeltaCatalog`` as
``spark_catalog`` (Delta tables by name and by path), and an Iceberg Hadoop ``SparkCatalog`` named
:data:`ICEBERG_CATALOG` on a local warehouse. The corpus is kept small (a few seconds a job): it is
about the lineage of each kind of lakehouse command, not about the data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.peer.corpus import Body, Job

#: The Iceberg catalog of the lakehouse session.
ICEBERG_CATALOG = "ice"
ICEBERG_NAMESPACE = f"{ICEBERG_CATALOG}.db"


@dataclass
class LakeWorkspace:
    """Where the lakehouse corpus keeps its files: sources, Delta paths, outputs."""

    root: Path
    #: Values a setup found for its body (an Iceberg snapshot id), by job name.
    found: dict[str, Any] = field(default_factory=dict)

    def path(self, job: str, name: str = "t") -> str:
        return str(self.root / "lake" / job / name)

    def out(self, job: str) -> str:
        return str(self.root / "out" / job)

    @property
    def orders(self) -> str:
        return str(self.root / "src" / "orders_parquet")

    @property
    def updates(self) -> str:
        return str(self.root / "src" / "updates_parquet")

    def prepare(self, spark: Any) -> None:
        """The shared sources: orders and a batch of updates (half of them new ids), as Parquet."""
        orders = spark.createDataFrame(
            [(i, f"c{i % 5}", float(i * 10), f"eu{i % 2}") for i in range(20)],
            "id int, customer string, amount double, region string",
        )
        orders.write.mode("overwrite").parquet(self.orders)
        updates = spark.createDataFrame(
            [(i, f"c{i % 3}", float(i), f"eu{i % 2}") for i in range(10, 30)],
            "id int, customer string, amount double, region string",
        )
        updates.write.mode("overwrite").parquet(self.updates)
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {ICEBERG_NAMESPACE}")


LAKE_JOBS: list[Job] = []

#: (job, Spark line) -> what its failure must say: a job that cannot run on that line, for a reason outside
#: both listeners. The test checks that it still fails so (a release that fixes it makes the test fail).
BROKEN = {
    # Delta 4.1.0's Scala API was built against a Spark 4.1 class that pyspark 4.1.4 no longer has
    ("delta_table_merge_api", "4.1"): "NoClassDefFoundError: org/apache/spark/sql/catalyst/plans/logical/"
    "IgnoreCachedData",
}

LakeBody = Callable[[Any, LakeWorkspace], None]


def job(name: str, setup: LakeBody | None = None) -> Callable[[LakeBody], LakeBody]:
    def register(body: LakeBody) -> LakeBody:
        LAKE_JOBS.append(Job(name, body, setup or _nothing))  # type: ignore[arg-type]
        return body

    return register


def _nothing(spark: Any, ws: LakeWorkspace) -> None:
    return None


def _sql(*statements: str) -> LakeBody:
    def run(spark: Any, ws: LakeWorkspace) -> None:
        for statement in statements:
            spark.sql(statement.format(ws=ws, ice=ICEBERG_NAMESPACE))

    return run


def _orders(spark: Any, ws: LakeWorkspace) -> Any:
    return spark.read.parquet(ws.orders)


def _updates(spark: Any, ws: LakeWorkspace) -> Any:
    return spark.read.parquet(ws.updates)


def _delta_table(name: str) -> LakeBody:
    """A managed Delta table ``name`` holding the orders (dropped first)."""

    def setup(spark: Any, ws: LakeWorkspace) -> None:
        spark.sql(f"DROP TABLE IF EXISTS {name}")
        _orders(spark, ws).write.format("delta").saveAsTable(name)

    return setup


def _iceberg_table(name: str) -> LakeBody:
    """An Iceberg table ``ice.db.<name>`` holding the orders, partitioned by region (dropped first)."""

    def setup(spark: Any, ws: LakeWorkspace) -> None:
        table = f"{ICEBERG_NAMESPACE}.{name}"
        spark.sql(f"DROP TABLE IF EXISTS {table}")
        _orders(spark, ws).writeTo(table).partitionedBy(_col("region")).create()

    return setup


def _col(name: str) -> Any:
    from pyspark.sql.functions import col

    return col(name)


# ---------------------------------------------------------------------------------------------
# Delta Lake
# ---------------------------------------------------------------------------------------------


@job("delta_save_overwrite")
def _(spark: Any, ws: LakeWorkspace) -> None:
    _orders(spark, ws).select("id", "amount").write.format("delta").mode("overwrite").save(
        ws.path("delta_save_overwrite")
    )


def _delta_path_with_orders(job_name: str) -> LakeBody:
    def setup(spark: Any, ws: LakeWorkspace) -> None:
        _orders(spark, ws).write.format("delta").mode("overwrite").save(ws.path(job_name))

    return setup


@job("delta_save_append", setup=_delta_path_with_orders("delta_save_append"))
def _(spark: Any, ws: LakeWorkspace) -> None:
    _updates(spark, ws).write.format("delta").mode("append").save(ws.path("delta_save_append"))


@job("delta_save_as_table_new", setup=_sql("DROP TABLE IF EXISTS d_sat"))
def _(spark: Any, ws: LakeWorkspace) -> None:
    _orders(spark, ws).select("id", "customer").write.format("delta").saveAsTable("d_sat")


def _delta_ctas_setup(spark: Any, ws: LakeWorkspace) -> None:
    _delta_table("d_ctas_src")(spark, ws)
    spark.sql("DROP TABLE IF EXISTS d_ctas")


@job("delta_ctas", setup=_delta_ctas_setup)
def _(spark: Any, ws: LakeWorkspace) -> None:
    spark.sql("CREATE TABLE d_ctas USING delta AS SELECT id, amount * 2 AS doubled FROM d_ctas_src")


def _delta_insert_setup(spark: Any, ws: LakeWorkspace) -> None:
    _delta_table("d_ins_src")(spark, ws)
    spark.sql("DROP TABLE IF EXISTS d_ins")
    spark.sql("CREATE TABLE d_ins (id int, amount double) USING delta")


@job("delta_insert_select", setup=_delta_insert_setup)
def _(spark: Any, ws: LakeWorkspace) -> None:
    spark.sql("INSERT INTO d_ins SELECT id, amount FROM d_ins_src WHERE id < 10")


def _delta_two_versions(spark: Any, ws: LakeWorkspace) -> None:
    path = ws.path("delta_read_version_as_of")
    _orders(spark, ws).write.format("delta").mode("overwrite").save(path)
    _updates(spark, ws).write.format("delta").mode("append").save(path)


@job("delta_read_version_as_of", setup=_delta_two_versions)
def _(spark: Any, ws: LakeWorkspace) -> None:
    old = spark.read.format("delta").option("versionAsOf", 0).load(ws.path("delta_read_version_as_of"))
    old.select("id", "customer").write.mode("overwrite").parquet(ws.out("delta_read_version_as_of"))


def _delta_merge_setup(spark: Any, ws: LakeWorkspace) -> None:
    _delta_table("d_merge")(spark, ws)
    spark.sql("DROP TABLE IF EXISTS d_merge_src")
    _updates(spark, ws).write.format("delta").saveAsTable("d_merge_src")


@job("delta_merge_sql", setup=_delta_merge_setup)
def _(spark: Any, ws: LakeWorkspace) -> None:
    """Issue 49's statement: the target's ids 0-9 match no source row and keep their own ``amount``."""
    spark.sql(
        "MERGE INTO d_merge t USING d_merge_src s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET t.amount = s.amount "
        "WHEN NOT MATCHED THEN INSERT *"
    )


@job("delta_update", setup=_delta_table("d_upd"))
def _(spark: Any, ws: LakeWorkspace) -> None:
    spark.sql("UPDATE d_upd SET amount = amount + 1 WHERE region = 'eu1'")


@job("delta_delete", setup=_delta_table("d_del"))
def _(spark: Any, ws: LakeWorkspace) -> None:
    spark.sql("DELETE FROM d_del WHERE amount > 100")


def _delta_table_for_path(spark: Any, path: str) -> Any:
    """Delta's ``DeltaTable.forPath(spark, path)`` (a JVM object), its class loaded by Spark's class
    loader, so that a class that cannot load says why (py4j's lookup only says it "does not exist")."""
    from py4j.protocol import Py4JJavaError

    jvm, gateway = spark.sparkContext._jvm, spark.sparkContext._gateway
    try:
        cls = jvm.org.apache.spark.util.Utils.classForName("io.delta.tables.DeltaTable", True, False)
    except Py4JJavaError as error:  # the cause's own words (see BROKEN)
        raise RuntimeError(f"DeltaTable cannot be loaded: {error.java_exception.toString()}") from None
    method = next(m for m in cls.getMethods() if m.getName() == "forPath" and len(m.getParameterTypes()) == 2)
    arguments = gateway.new_array(jvm.java.lang.Object, 2)
    arguments[0], arguments[1] = spark._jsparkSession, path
    return method.invoke(None, arguments)


@job("delta_table_merge_api", setup=_delta_path_with_orders("delta_table_merge_api"))
def _(spark: Any, ws: LakeWorkspace) -> None:
    """``DeltaTable.forPath(...).merge(...)``: Delta's Python API is a thin layer over these JVM calls."""
    target = _delta_table_for_path(spark, ws.path("delta_table_merge_api"))
    source = _updates(spark, ws)
    (
        target.alias("t")
        .merge(source.alias("s")._jdf, "t.id = s.id")
        .whenMatched()
        .updateAll()
        .whenNotMatched()
        .insertAll()
        .execute()
    )


@job("delta_drop_table", setup=_delta_table("d_drop"))
def _(spark: Any, ws: LakeWorkspace) -> None:
    spark.sql("DROP TABLE d_drop")


# ---------------------------------------------------------------------------------------------
# Apache Iceberg (Hadoop catalog `ice`)
# ---------------------------------------------------------------------------------------------


@job("iceberg_create_table", setup=_sql("DROP TABLE IF EXISTS {ice}.i_create"))
def _(spark: Any, ws: LakeWorkspace) -> None:
    spark.sql(
        f"CREATE TABLE {ICEBERG_NAMESPACE}.i_create (id int, customer string) USING iceberg "
        "PARTITIONED BY (customer)"
    )


@job(
    "iceberg_insert_select",
    setup=_sql(
        "DROP TABLE IF EXISTS {ice}.i_insert",
        "CREATE TABLE {ice}.i_insert (id int, amount double) USING iceberg",
    ),
)
def _(spark: Any, ws: LakeWorkspace) -> None:
    spark.sql(f"INSERT INTO {ICEBERG_NAMESPACE}.i_insert SELECT id, amount FROM parquet.`{ws.orders}`")


@job("iceberg_ctas", setup=_sql("DROP TABLE IF EXISTS {ice}.i_ctas"))
def _(spark: Any, ws: LakeWorkspace) -> None:
    spark.sql(
        f"CREATE TABLE {ICEBERG_NAMESPACE}.i_ctas USING iceberg AS "
        f"SELECT id, upper(customer) AS customer FROM parquet.`{ws.orders}` WHERE amount > 50"
    )


@job("iceberg_rtas", setup=_iceberg_table("i_rtas"))
def _(spark: Any, ws: LakeWorkspace) -> None:
    spark.sql(
        f"REPLACE TABLE {ICEBERG_NAMESPACE}.i_rtas USING iceberg AS "
        f"SELECT id, amount FROM parquet.`{ws.updates}`"
    )


@job("iceberg_write_to_append", setup=_iceberg_table("i_append"))
def _(spark: Any, ws: LakeWorkspace) -> None:
    _updates(spark, ws).writeTo(f"{ICEBERG_NAMESPACE}.i_append").append()


@job("iceberg_overwrite_partitions", setup=_iceberg_table("i_ovp"))
def _(spark: Any, ws: LakeWorkspace) -> None:
    _updates(spark, ws).where("region = 'eu1'").writeTo(f"{ICEBERG_NAMESPACE}.i_ovp").overwritePartitions()


def _iceberg_merge_setup(spark: Any, ws: LakeWorkspace) -> None:
    _iceberg_table("i_merge")(spark, ws)
    spark.sql(f"DROP TABLE IF EXISTS {ICEBERG_NAMESPACE}.i_merge_src")
    _updates(spark, ws).writeTo(f"{ICEBERG_NAMESPACE}.i_merge_src").create()


@job("iceberg_merge", setup=_iceberg_merge_setup)
def _(spark: Any, ws: LakeWorkspace) -> None:
    spark.sql(
        f"MERGE INTO {ICEBERG_NAMESPACE}.i_merge t USING {ICEBERG_NAMESPACE}.i_merge_src s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET t.amount = s.amount "
        "WHEN NOT MATCHED THEN INSERT *"
    )


@job("iceberg_update", setup=_iceberg_table("i_upd"))
def _(spark: Any, ws: LakeWorkspace) -> None:
    spark.sql(f"UPDATE {ICEBERG_NAMESPACE}.i_upd SET amount = amount + 1 WHERE customer = 'c1'")


@job("iceberg_delete", setup=_iceberg_table("i_del"))
def _(spark: Any, ws: LakeWorkspace) -> None:
    spark.sql(f"DELETE FROM {ICEBERG_NAMESPACE}.i_del WHERE amount > 100")


def _iceberg_two_snapshots(spark: Any, ws: LakeWorkspace) -> None:
    table = f"{ICEBERG_NAMESPACE}.i_versions"
    _iceberg_table("i_versions")(spark, ws)
    ws.found["iceberg_read_version_as_of"] = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots").first()[
        0
    ]
    _updates(spark, ws).writeTo(table).append()


@job("iceberg_read_version_as_of", setup=_iceberg_two_snapshots)
def _(spark: Any, ws: LakeWorkspace) -> None:
    table, first = f"{ICEBERG_NAMESPACE}.i_versions", ws.found["iceberg_read_version_as_of"]
    spark.sql(f"SELECT id, amount FROM {table} VERSION AS OF {first}").write.mode("overwrite").parquet(
        ws.out("iceberg_read_version_as_of")
    )


__all__ = ["BROKEN", "ICEBERG_CATALOG", "LAKE_JOBS", "Body", "LakeWorkspace"]
