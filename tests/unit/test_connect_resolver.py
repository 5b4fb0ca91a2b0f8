"""ConnectResolver over fake server lookups: per-capture table memory, the DROP's catalog read,
write schemas reused for reads, and the capture_timeout setting reaching a Connect capture."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("pyspark.sql.connect.proto", reason="the `connect` extra is not installed")

from pyspark.sql.connect.proto import relations_pb2

from lineage_operators.spark.connect.plans import ConnectPlan, SourceRead, WriteTarget
from lineage_operators.spark.connect.resolver import ConnectResolver
from lineage_operators.spark.connect.server import TableInfo
from lineage_operators.spark.facts import TableRef
from lineage_operators.spark.plan.reader import PlanReader
from lineage_operators.spark.tables.memory import TableMemory


def _schema(*names: str) -> str:
    fields = [{"name": n, "type": "long", "nullable": True, "metadata": {}} for n in names]
    return json.dumps({"type": "struct", "fields": fields})


class FakeLookups:
    """One server's catalog: ``tables`` name -> TableInfo; every round trip is logged."""

    def __init__(self, warehouse: str, tables: dict[str, TableInfo] | None = None) -> None:
        self.warehouse = warehouse
        self.tables = tables or {}
        self.log: list[tuple[str, Any]] = []
        self.calls = 0

    def _call(self, kind: str, arg: Any) -> None:
        self.calls += 1
        self.log.append((kind, arg))

    def schema(self, relation: Any, key: Any = None) -> str:
        if key is None or ("schema", key) not in self.log:  # cached per key, as ServerLookups
            self._call("schema", key)
        return _schema("id", "name")

    def input_files(self, relation: Any, key: Any) -> list[str]:
        self._call("files", key)
        return [f"file:{p}/part-0.parquet" for p in relation.read.data_source.paths]

    def table(self, name: str) -> TableInfo:
        self._call("table", name)
        if name not in self.tables:
            raise LookupError(name)
        return self.tables[name]

    def describe(self, name: str) -> TableInfo:
        self._call("describe", name)
        return self.table(name)

    def table_schema(self, name: str) -> str:
        self._call("table_schema", name)
        return _schema("id")

    def current_database(self) -> str:
        return "default"

    def database_location(self, database: str) -> str:
        return f"file:{self.warehouse}/{database}.db"

    def conf(self) -> dict[str, str]:
        return {}

    def forget(self, kind: str) -> None: ...


def _sql(op: str, text: str) -> ConnectPlan:
    return ConnectPlan(operation_id=op, kind="sql", command_sql=text)


def _read(path: str, fmt: str = "parquet") -> SourceRead:
    relation = relations_pb2.Relation()
    relation.read.data_source.format = fmt
    relation.read.data_source.paths.append(path)
    return SourceRead(fmt, (path,), {}, relation)


def _table(location: str) -> TableInfo:
    return TableInfo("spark_catalog", "db", "t", "EXTERNAL", "parquet", location)


def test_table_memory_is_per_instance_and_bounded() -> None:
    one, two = TableMemory(max_tables=2), TableMemory()
    ref = TableRef("db", "t")
    one.remember(ref, "file:/a", "parquet")
    assert one.known(ref) == ("file:/a", "parquet")
    assert two.known(ref) is None
    one.remember(TableRef("db", "nowhere"), None, None)  # no location: nothing to remember
    one.remember(TableRef("db", "u"), "file:/u", None)
    one.remember(TableRef("db", "v"), "file:/v", None)
    assert len(one) == 2
    assert one.known(ref) is None  # the oldest went first


def test_classic_plan_readers_do_not_share_their_table_memory() -> None:
    first, second = PlanReader(None, None, None), PlanReader(None, None, None)  # type: ignore[arg-type]
    first.tables.remember(TableRef("db", "t"), "file:/elsewhere/t", "parquet")
    assert second.tables.known(TableRef("db", "t")) is None


def test_a_drop_never_takes_a_location_another_capture_remembered() -> None:
    """Two servers (or sessions) in one process, each with its own db.t: each DROP reports its own."""
    created = ConnectResolver(FakeLookups("/one", {"`db`.`t`": _table("file:/one/external/t")}))  # type: ignore[arg-type]
    created.facts(_sql("1", "CREATE TABLE db.t USING parquet AS SELECT 1 AS id"), succeeded=True)
    assert created.tables.known(TableRef("db", "t")) == ("file:/one/external/t", "parquet")

    other = ConnectResolver(FakeLookups("/two"))  # type: ignore[arg-type]  # its db.t is unknown to it
    facts = other.facts(_sql("2", "DROP TABLE db.t"), succeeded=True)
    assert facts is not None
    (dropped,) = facts.outputs
    assert (dropped.location, dropped.lifecycle) == ("file:/two/db.db/t", "DROP")  # its own default


def test_the_catalog_entry_read_before_a_drop_gives_its_location() -> None:
    lookups = FakeLookups("/wh", {"`db`.`t`": _table("file:/external/t")})
    resolver = ConnectResolver(lookups)  # type: ignore[arg-type]
    resolver.before_drop("9", "DROP TABLE db.t")
    del lookups.tables["`db`.`t`"]  # the DROP ran
    facts = resolver.facts(_sql("9", "DROP TABLE db.t"), succeeded=True)
    assert facts is not None
    (dropped,) = facts.outputs
    assert (dropped.location, dropped.provider, dropped.table) == (
        "file:/external/t",
        "parquet",
        TableRef("db", "t", None),
    )
    resolver.before_drop("10", "DROP TABLE IF EXISTS db.gone")  # no such table: nothing read
    assert "10" not in resolver.dropping


def test_a_table_this_capture_saw_needs_no_read_before_its_drop() -> None:
    lookups = FakeLookups("/wh", {"`db`.`t`": _table("file:/external/t")})
    resolver = ConnectResolver(lookups)  # type: ignore[arg-type]
    resolver.facts(_sql("1", "CREATE TABLE db.t USING parquet AS SELECT 1 AS id"), succeeded=True)
    resolver.before_drop("2", "DROP TABLE db.t")
    assert ("describe", "`db`.`t`") not in lookups.log


def _write(op: str, path: str, *, mode: str = "overwrite", partitioned: bool = False) -> ConnectPlan:
    query = relations_pb2.Relation()
    query.range.end = 10
    target = WriteTarget(v2=False, mode=mode, source="parquet", path=path, partitioned=partitioned)
    return ConnectPlan(operation_id=op, kind="write", write=target, query=query)


@pytest.mark.parametrize(
    ("write", "looked_up"),
    [
        pytest.param(_write("w", "/out"), False, id="overwrite-reused"),
        pytest.param(_write("w", "/out", mode="append"), True, id="append-analysed"),
        pytest.param(_write("w", "/out", partitioned=True), True, id="partitioned-analysed"),
    ],
)
def test_a_read_of_what_the_task_wrote_reuses_the_written_schema(write: ConnectPlan, looked_up: bool) -> None:
    lookups = FakeLookups("/wh")
    resolver = ConnectResolver(lookups)  # type: ignore[arg-type]
    read = _read("/out")
    plans = [write, ConnectPlan(operation_id="r", kind="query", reads=[read])]
    resolver.prefetch(plans)
    for plan in plans:
        resolver.facts(plan, succeeded=True)
    schema_calls = [key for kind, key in lookups.log if kind == "schema"]
    assert ("query", "w") in schema_calls
    assert (read.key in schema_calls) is looked_up
    assert ("files", read.key) not in lookups.log  # a directory the task wrote: no listing


def test_a_written_plain_read_takes_the_reads_schema() -> None:
    lookups = FakeLookups("/wh")
    resolver = ConnectResolver(lookups)  # type: ignore[arg-type]
    read = _read("/in", fmt="csv")
    target = WriteTarget(v2=False, mode="overwrite", source="parquet", path="/out")
    plan = ConnectPlan(operation_id="w", kind="write", reads=[read], write=target, query=read.relation)
    facts = resolver.facts(plan, succeeded=True)
    assert facts is not None
    assert facts.outputs[0].schema_text == facts.inputs[0].schema_text
    assert [key for kind, key in lookups.log if kind == "schema"] == [read.key]  # one analysis


def test_a_sql_query_written_as_is_gets_its_column_lineage() -> None:
    """``spark.sql("SELECT ...").write.parquet(...)``: openlineage-sql's lineage of the query."""
    resolver = ConnectResolver(FakeLookups("/wh"))  # type: ignore[arg-type]
    text = "SELECT id, upper(name) AS name FROM parquet.`/in` WHERE id > 1"
    query = relations_pb2.Relation()
    query.sql.query = text
    target = WriteTarget(v2=False, mode="overwrite", source="parquet", path="/out")
    plan = ConnectPlan(operation_id="w", kind="write", sql=[text], write=target, query=query)
    facts = resolver.facts(plan, succeeded=True)
    assert facts is not None
    assert facts.column_lineage is not None
    (source,) = facts.inputs
    assert source.location == "file:/in"  # qualified like the files the server listed
    ids = {s.expr_id: s.name for deps in facts.column_lineage.fields.values() for s in deps}
    assert set(source.expr_ids) == set(ids)
    assert {c: sorted(ids[s.expr_id] for s in deps) for c, deps in facts.column_lineage.fields.items()} == {
        "id": ["id"],
        "name": ["name"],
    }


class _ConnectLike:
    """Stands for a pyspark.sql.connect session (``is_connect_session`` goes by the module)."""


_ConnectLike.__module__ = "pyspark.sql.connect.session"


def test_a_connect_capture_gets_capture_timeout_and_column_lineage_settings() -> None:
    from lineage_operators.column_lineage.settings import ColumnLineageSettings
    from lineage_operators.spark.capture.chooser import new_capture
    from lineage_operators.spark.connect.capture import SparkConnectLineageCapture

    settings = ColumnLineageSettings(enabled=False)
    capture = new_capture(_ConnectLike(), timeout=1.5, column_lineage=settings)
    assert isinstance(capture, SparkConnectLineageCapture)
    assert capture._timeout == 1.5
    assert capture._column_lineage is settings
