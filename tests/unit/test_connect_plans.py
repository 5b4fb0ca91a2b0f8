"""Pure parsing of Spark Connect requests, SQL text and read roots (no server)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("pyspark.sql.connect.proto", reason="the `connect` extra is not installed")

from pyspark.sql.connect.proto import base_pb2

from lineage_operators.spark.connect.capture import write_statistics
from lineage_operators.spark.connect.paths import source_roots
from lineage_operators.spark.connect.plans import SourceRead, TableRead, read_plan
from lineage_operators.spark.connect.server import table_info_from_rows
from lineage_operators.spark.connect.sql import parse_statement, statement_kind


def _request(**plan: Any) -> Any:
    request = base_pb2.ExecutePlanRequest(operation_id="op-1")
    request.plan.CopyFrom(base_pb2.Plan(**plan))
    return request


def _join_of_reads() -> Any:
    from pyspark.sql.connect.proto import relations_pb2

    left = relations_pb2.Relation()
    left.read.data_source.format = "parquet"
    left.read.data_source.paths.append("/data/a")
    left.read.data_source.options["mergeSchema"] = "true"
    right = relations_pb2.Relation()
    right.read.named_table.unparsed_identifier = "db.dim"
    sql = relations_pb2.Relation()
    sql.sql.query = "SELECT * FROM db.other"
    union = relations_pb2.Relation()
    union.set_op.left_input.CopyFrom(right)
    union.set_op.right_input.CopyFrom(sql)
    join = relations_pb2.Relation()
    join.join.left.CopyFrom(left)
    join.join.right.CopyFrom(union)
    return join


def test_query_reads_nested_sources_tables_and_sql() -> None:
    plan = read_plan(_request(root=_join_of_reads()))
    assert plan.kind == "query"
    source, table = plan.reads
    assert isinstance(source, SourceRead)
    assert (source.format, source.paths, dict(source.options)) == (
        "parquet",
        ("/data/a",),
        {"mergeSchema": "true"},
    )
    assert source.relation.read.data_source.paths == ["/data/a"]  # the leaf alone, for analysis
    assert isinstance(table, TableRead)
    assert table.name == "db.dim"
    assert plan.sql == ["SELECT * FROM db.other"]


def test_write_operation_path_mode_and_format() -> None:
    from pyspark.sql.connect.proto import commands_pb2

    command = commands_pb2.Command()
    write = command.write_operation
    write.input.CopyFrom(_join_of_reads())
    write.source = "csv"
    write.path = "/out"
    write.mode = commands_pb2.WriteOperation.SAVE_MODE_OVERWRITE
    write.options["password"] = "s3cret"
    plan = read_plan(_request(command=command))
    assert plan.kind == "write"
    assert plan.write is not None
    assert (plan.write.path, plan.write.source, plan.write.mode, plan.write.v2) == (
        "/out",
        "csv",
        "overwrite",
        False,
    )
    assert plan.query is not None
    assert len(plan.reads) == 2


def test_save_as_table_and_write_to() -> None:
    from pyspark.sql.connect.proto import commands_pb2

    command = commands_pb2.Command()
    command.write_operation.table.table_name = "db.t"
    command.write_operation.table.save_method = (
        commands_pb2.WriteOperation.SaveTable.TABLE_SAVE_METHOD_SAVE_AS_TABLE
    )
    command.write_operation.mode = commands_pb2.WriteOperation.SAVE_MODE_APPEND
    plan = read_plan(_request(command=command))
    assert plan.write is not None
    assert (plan.write.table, plan.write.save_method, plan.write.mode) == ("db.t", "save_as_table", "append")

    v2 = commands_pb2.Command()
    v2.write_operation_v2.table_name = "cat.db.t"
    v2.write_operation_v2.mode = commands_pb2.WriteOperationV2.MODE_CREATE_OR_REPLACE
    plan = read_plan(_request(command=v2))
    assert plan.write is not None
    assert (plan.write.table, plan.write.mode, plan.write.v2) == ("cat.db.t", "create_or_replace", True)


def _stream_start(**fields: Any) -> Any:
    from pyspark.sql.connect.proto import commands_pb2

    command = commands_pb2.Command()
    start = command.write_stream_operation_start
    start.input.CopyFrom(_join_of_reads())
    start.input.join.left.read.is_streaming = True
    for name, value in fields.items():
        if name == "options":
            start.options.update(value)
        elif name in ("foreach_batch", "foreach_writer"):
            getattr(start, name).python_function.command = b"f"
        else:
            setattr(start, name, value)
    return read_plan(_request(command=command))


@pytest.mark.parametrize(
    ("fields", "target"),
    [
        ({"format": "parquet", "path": "/out"}, ("/out", None, "parquet")),
        ({"format": "JSON", "options": {"path": "/opt"}}, ("/opt", None, "json")),
        ({"path": "/default"}, ("/default", None, None)),  # the session's default source
        ({"format": "parquet", "table_name": "db.sink"}, (None, "db.sink", "parquet")),
        ({"table_name": "db.sink"}, (None, "db.sink", None)),
        ({"format": "console"}, None),
        ({"format": "memory", "query_name": "q"}, None),
        ({"format": "kafka", "options": {"path": "/not-a-file-sink"}}, None),
        ({"format": "parquet", "path": "/out", "foreach_batch": True}, None),
        ({"foreach_writer": True}, None),
    ],
)
def test_stream_start_reads_its_source_and_names_a_file_sink(
    fields: dict[str, Any], target: tuple[str | None, str | None, str | None] | None
) -> None:
    """A stream's start: what it reads, always; what it writes only for a file sink (path or
    ``toTable``), appended to by every micro-batch. Other sinks write nothing a client sees."""
    plan = _stream_start(**fields)
    assert plan.kind == "stream"
    assert [type(read).__name__ for read in plan.reads] == ["SourceRead", "TableRead"]
    assert plan.query is not None
    if target is None:
        assert plan.write is None
        return
    assert plan.write is not None
    assert (plan.write.path, plan.write.table, plan.write.source) == target
    assert (plan.write.mode, plan.write.v2, plan.write.stream) == ("append", False, True)


def test_sql_command_and_temp_view() -> None:
    from pyspark.sql.connect.proto import commands_pb2

    command = commands_pb2.Command()
    command.sql_command.input.sql.query = "DROP TABLE db.t"
    plan = read_plan(_request(command=command))
    assert (plan.kind, plan.command_sql) == ("sql", "DROP TABLE db.t")

    view = commands_pb2.Command()
    view.create_dataframe_view.name = "v"
    view.create_dataframe_view.input.CopyFrom(_join_of_reads())
    plan = read_plan(_request(command=view))
    assert (plan.kind, plan.view, len(plan.reads)) == ("view", "v", 2)


@pytest.mark.parametrize(
    ("text", "kind", "inputs", "outputs"),
    [
        (
            "CREATE TABLE db.t USING parquet PARTITIONED BY (p) AS SELECT * FROM a JOIN b USING (id)",
            "create",
            ["a", "b"],
            ["db.t"],
        ),
        ("create or replace table t using delta as select 1", "replace", [], ["t"]),
        ("INSERT OVERWRITE TABLE t SELECT * FROM parquet.`/data/x`", "insert_overwrite", ["/data/x"], ["t"]),
        ("-- note\nINSERT INTO db.t VALUES (1)", "insert", [], ["db.t"]),
        ("DROP TABLE IF EXISTS spark_catalog.db.t", "drop", [], ["spark_catalog.db.t"]),
        ("TRUNCATE TABLE t", "truncate", [], ["t"]),
        ("SELECT * FROM a WHERE id IN (SELECT id FROM b)", "query", ["a", "b"], []),
        ("CREATE OR REPLACE TEMP VIEW v AS SELECT * FROM a", "other", [], []),
        ("INSERT OVERWRITE DIRECTORY '/d' USING parquet SELECT 1", "other", [], []),
    ],
)
def test_sql_statements(text: str, kind: str, inputs: list[str], outputs: list[str]) -> None:
    statement = parse_statement(text)
    assert statement.kind == kind

    def names(tables: Any) -> list[str]:
        return [t.path or ".".join(p for p in (t.catalog, t.database, t.name) if p) for t in tables]

    assert sorted(names(statement.inputs)) == inputs
    assert names(statement.outputs) == outputs


def test_rename_keeps_the_old_name() -> None:
    statement = parse_statement("ALTER TABLE db.a RENAME TO db.b")
    assert statement.lifecycle == "RENAME"
    assert statement.previous is not None
    assert (statement.previous.database, statement.previous.name) == ("db", "a")
    assert [(t.database, t.name) for t in statement.outputs] == [("db", "b")]
    assert statement_kind("alter table a add columns (x int)") == "other"


@pytest.mark.parametrize(
    ("paths", "files", "roots"),
    [
        (("/d",), ["file:///d/part-0.parquet", "file:///d/part-1.parquet"], ["file:/d"]),
        (("/d/part-0.csv",), ["file:///d/part-0.csv"], ["file:/d/part-0.csv"]),  # a single file: itself
        (("/d/a.csv", "/d/b.csv"), ["file:///d/a.csv", "file:///d/b.csv"], ["file:/d"]),  # several: the dir
        (("/d/*.json",), ["file:///d/a.json"], ["file:/d/a.json"]),  # a glob matching one file
        (("/d/*.json",), ["file:///d/a.json", "file:///d/b.json"], ["file:/d"]),
        (
            ("/d/2024-*",),
            ["file:///d/2024-01/x", "file:///d/2024-02/y"],
            ["file:/d/2024-01", "file:/d/2024-02"],
        ),
        (("/empty",), [], ["/empty"]),
        (("s3a://bucket/t",), ["s3a://bucket/t/p=1/x.parquet"], ["s3a://bucket/t"]),
        (("/a b",), ["file:///a%20b/x"], ["file:/a b"]),
    ],
)
def test_source_roots(paths: tuple[str, ...], files: list[str], roots: list[str]) -> None:
    assert source_roots(paths, files) == roots


def test_describe_rows() -> None:
    rows = [
        ("id", "bigint"),
        ("", ""),
        ("# Detailed Table Information", ""),
        ("Catalog", "spark_catalog"),
        ("Database", "db"),
        ("Table", "t"),
        ("Type", "MANAGED"),
        ("Provider", "parquet"),
        ("Location", "file:/wh/db.db/t"),
        ("# Partition Information", ""),
        ("Location", "ignored"),
    ]
    info = table_info_from_rows("db.t", rows)
    assert (info.catalog, info.database, info.table, info.kind, info.provider, info.location) == (
        "spark_catalog",
        "db",
        "t",
        "MANAGED",
        "parquet",
        "file:/wh/db.db/t",
    )


def test_write_statistics_from_a_metrics_message() -> None:
    response = base_pb2.ExecutePlanResponse()
    scan = response.metrics.metrics.add(name="Scan parquet")
    scan.execution_metrics["numOutputRows"].value = 99
    write = response.metrics.metrics.add(name="Execute InsertIntoHadoopFsRelationCommand")
    for key, value in (("numOutputRows", 6), ("numOutputBytes", 1234), ("numFiles", 2)):
        write.execution_metrics[key].value = value
    assert write_statistics(response.metrics) == (6, 1234, 2)
    assert write_statistics(base_pb2.ExecutePlanResponse().metrics) is None


def test_a_stream_into_a_table_is_no_v1_ctas() -> None:
    """saveAsTable of a Parquet table runs as a V1 CTAS (column lineage from the analyzed query, as
    openlineage-spark reads it); a stream's micro-batches append to their table, read as optimized."""
    from lineage_operators.spark.connect.resolver import _runs_v1_ctas
    from lineage_operators.spark.facts import RelationFacts

    table = RelationFacts(location="/warehouse/t", provider="parquet")
    save_as_table = read_plan(_request(command=_save_as_table_command())).write
    stream = _stream_start(format="parquet", table_name="db.t").write
    assert _runs_v1_ctas(save_as_table, None, table)
    assert not _runs_v1_ctas(stream, None, table)


def _save_as_table_command() -> Any:
    from pyspark.sql.connect.proto import commands_pb2

    command = commands_pb2.Command()
    command.write_operation.table.table_name = "db.t"
    command.write_operation.table.save_method = (
        commands_pb2.WriteOperation.SaveTable.TABLE_SAVE_METHOD_SAVE_AS_TABLE
    )
    return command
