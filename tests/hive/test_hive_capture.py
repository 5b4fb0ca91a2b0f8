"""Our capture on a real Hive metastore: every job names exactly the datasets openlineage-spark's rules give
(the table's location, ``file`` + its path or ``s3://<bucket>`` + key) with the table as the metastore knows
it in ``symlinks`` (``hive://127.0.0.1:<port>`` + ``db.table``); the tables really live in the server, not in
an embedded metastore of the session, the S3 ones in the bucket; nothing we emitted or logged carries the
S3 credentials of the session's conf.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hive_jobs import HiveRun, HiveWorkspace, expected_for
from hive_s3_jobs import EVERY_EXPECTED, S3_DATABASE_LOCATION
from tests.support.canary import S3_ACCESS_KEY, S3_SECRET_KEY

#: Each job's first test runs the whole Hive corpus (its fixture): a Hive session's first calls are slow.
pytestmark = pytest.mark.timeout(1200)


def _namespace(key: str) -> str:
    """``file`` for ``output file:/p``, ``s3://lake`` for ``output s3://lake:k``."""
    dataset = key.partition(" ")[2]
    return "file" if dataset.startswith("file:") else dataset.rpartition(":")[0]


def _catalog(workspace: HiveWorkspace) -> dict[str, str]:
    """The ``catalog`` facet of every table, on local disk or S3: the session's Hive catalog (Spark's
    warehouse, on local disk, and the metastore), as the jar writes it."""
    return {
        "framework": "hive",
        "type": "hive",
        "name": "default",
        "metadataUri": workspace.metastore.namespace,
        "warehouseUri": f"file:{workspace.metastore.warehouse}",
        "source": "spark",
    }


@pytest.mark.parametrize("name", sorted(EVERY_EXPECTED))
def test_hive_tables_are_named_as_openlineage_spark_names_them(
    name: str, hive_run: HiveRun, hive_session: tuple[Any, Any, HiveWorkspace]
) -> None:
    outcome = hive_run.outcomes[name]
    assert outcome.error is None, f"{name} failed: {outcome.error}"
    workspace = hive_session[2]
    expected = expected_for(name, workspace, EVERY_EXPECTED)
    assert sorted(outcome.ours) == sorted(expected), json.dumps(outcome.ours, indent=1, default=str)
    for key, named in expected.items():
        view = outcome.ours[key]
        namespace = _namespace(key)
        assert view["dataSource"] == {"name": namespace, "uri": namespace}, key
        links = (
            [{"namespace": workspace.metastore.namespace, "name": named.table, "type": "TABLE"}]
            if named.table
            else None
        )
        assert view.get("symlinks") == links, key
        assert view.get("catalog") == (_catalog(workspace) if named.table else None), key
        if key.startswith("output "):
            lifecycle = view.get("lifecycleStateChange")
            wanted = {"lifecycleStateChange": named.lifecycle} if named.lifecycle else None
            assert lifecycle == wanted, key


def test_the_tables_live_in_the_metastore_server_and_its_warehouse(
    hive_run: HiveRun, hive_session: tuple[Any, Any, HiveWorkspace]
) -> None:
    """The session reads its catalog from the server (its Thrift URI), keeps no embedded metastore of its
    own, and Spark placed both databases under the server's warehouse."""
    spark, _, workspace = hive_session
    conf = spark.sparkContext.getConf()
    assert conf.get("spark.sql.catalogImplementation") == "hive"
    assert conf.get("spark.hadoop.hive.metastore.uris") == workspace.metastore.uri
    databases = {row[0] for row in spark.sql("SHOW DATABASES").collect()}
    assert {"default", "sales", "analytics"} <= databases
    assert (workspace.metastore.warehouse / "sales.db" / "orders").is_dir()
    assert not (workspace.root / "metastore_db").exists()
    assert (workspace.metastore.root / "metastore_db").is_dir()  # type: ignore[operator]


def _location(spark: Any, table: str) -> str:
    rows = spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect()
    return str(next(row.data_type for row in rows if row.col_name == "Location"))


def test_the_s3_database_and_its_tables_live_in_the_bucket(
    hive_run: HiveRun, hive_session: tuple[Any, Any, HiveWorkspace]
) -> None:
    """The metastore holds the database at its S3 location and placed its managed tables (and a partition)
    under it; their data is in the bucket, as S3A lists it, and nothing of them on local disk."""
    spark, _, workspace = hive_session
    database = {row[0]: row[1] for row in spark.sql("DESCRIBE DATABASE s3db").collect()}
    assert database["Location"] == S3_DATABASE_LOCATION
    for table in ("s3db.orders", "s3db.big_orders", "s3db.orders_sat", "s3db.daily"):
        assert _location(spark, table) == f"{S3_DATABASE_LOCATION}/{table.split('.')[1]}"
    hadoop = spark._jvm.org.apache.hadoop.fs.Path(f"{S3_DATABASE_LOCATION}/daily/dt=2026-01-02")
    files = hadoop.getFileSystem(spark._jsc.hadoopConfiguration()).listStatus(hadoop)
    assert [f for f in files if f.isFile() and not f.getPath().getName().startswith(("_", "."))]
    assert (
        spark.table("s3db.daily").count()
        == spark.table("s3db.orders").where("order_date = '2026-01-02'").count()
    )
    assert not (workspace.metastore.warehouse / "s3db.db").exists()


def test_the_s3_credentials_of_the_conf_are_in_no_event_and_no_log_line_of_ours(hive_run: HiveRun) -> None:
    """The session's conf holds ``fs.s3a.access.key`` and ``fs.s3a.secret.key``: neither value may reach
    what our capture reports (every job's datasets and facets) or any record our loggers wrote."""
    reported = json.dumps({name: outcome.ours for name, outcome in hive_run.outcomes.items()}, default=str)
    logged = "\n".join(hive_run.our_log)
    for secret in (S3_ACCESS_KEY, S3_SECRET_KEY):
        assert secret not in reported
        assert secret not in logged
