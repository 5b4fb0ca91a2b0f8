"""Our capture on a real Hive metastore: every job names exactly the datasets openlineage-spark's rules give
(the table's location, ``file`` + its path) with the table as the metastore knows it in ``symlinks``
(``hive://127.0.0.1:<port>`` + ``db.table``), and the tables really live in the server, not in an embedded
metastore of the session.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hive_jobs import EXPECTED, HiveRun, HiveWorkspace, expected_for

#: Each job's first test runs the whole Hive corpus (its fixture): a Hive session's first calls are slow.
pytestmark = pytest.mark.timeout(1200)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hive_tables_are_named_as_openlineage_spark_names_them(
    name: str, hive_run: HiveRun, hive_session: tuple[Any, Any, HiveWorkspace]
) -> None:
    outcome = hive_run.outcomes[name]
    assert outcome.error is None, f"{name} failed: {outcome.error}"
    workspace = hive_session[2]
    expected = expected_for(name, workspace)
    assert sorted(outcome.ours) == sorted(expected), json.dumps(outcome.ours, indent=1, default=str)
    for key, named in expected.items():
        view = outcome.ours[key]
        assert view["dataSource"] == {"name": "file", "uri": "file"}, key
        links = (
            [{"namespace": workspace.metastore.namespace, "name": named.table, "type": "TABLE"}]
            if named.table
            else None
        )
        assert view.get("symlinks") == links, key
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
