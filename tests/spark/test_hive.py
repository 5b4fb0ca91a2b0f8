"""Hive support: an embedded-metastore session with ``enableHiveSupport()`` (in a child process).

The child (``hive_scenarios.py``) keeps Derby's ``metastore_db`` and ``derby.log`` under its work
directory; it runs in an empty working directory that must stay empty.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.support.processes import run_to_end

pytest.importorskip("openlineage.client")

_SCRIPT = Path(__file__).with_name("hive_scenarios.py")


@pytest.fixture(scope="module")
def hive(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path, Path]:
    work = tmp_path_factory.mktemp("hive")
    cwd = work / "cwd"
    cwd.mkdir()
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    done = run_to_end(
        [sys.executable, str(_SCRIPT), str(work)],
        cwd=cwd,
        env=env,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), work, cwd


def _one(datasets: list[dict[str, Any]], path: Path) -> dict[str, Any]:
    found = [d for d in datasets if (d["namespace"], d["name"]) == ("file", str(path))]
    assert len(found) == 1, [(d["namespace"], d["name"]) for d in datasets]
    return found[0]


def _fields(dataset: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["name"], f["type"]) for f in dataset["facets"]["schema"]["fields"]]


def _lifecycle(dataset: dict[str, Any]) -> str | None:
    return dataset["facets"].get("lifecycleStateChange", {}).get("lifecycleStateChange")


def _table_facets(dataset: dict[str, Any], warehouse: Path, table: str) -> None:
    """The symlink and ``catalog`` facet openlineage-spark gives a table of the Hive catalog."""
    links = [(i["namespace"], i["name"], i["type"]) for i in dataset["facets"]["symlinks"]["identifiers"]]
    assert links == [(f"file:{warehouse}", f"default.{table}", "TABLE")]
    catalog = {k: v for k, v in dataset["facets"]["catalog"].items() if not k.startswith("_")}
    assert catalog["framework"] == "hive"
    assert catalog["type"] == "hive"
    assert catalog["source"] == "spark"
    assert catalog["warehouseUri"] == f"file:{warehouse}"
    assert "metadataUri" not in catalog  # embedded metastore: no hive:// URI


def test_metastore_files_stay_out_of_the_working_directory(hive: Any) -> None:
    _, work, cwd = hive
    assert list(cwd.iterdir()) == []
    assert (work / "metastore_db").is_dir()


def test_create_table_stored_as_parquet(hive: Any) -> None:
    report, work, _ = hive
    warehouse = work / "warehouse"
    (table,) = report["create"]["outputs"]
    assert table == _one([table], warehouse / "events")
    assert _lifecycle(table) == "CREATE"
    assert _fields(table) == [("id", "integer"), ("name", "string"), ("dt", "string")]
    _table_facets(table, warehouse, "events")


def test_insert_overwrite_table_partition(hive: Any) -> None:
    report, work, _ = hive
    warehouse = work / "warehouse"
    table = _one(report["insert_partition"]["outputs"], warehouse / "events")
    assert _lifecycle(table) == "OVERWRITE"
    assert table["ioFacets"]["outputStatistics"]["rowCount"] == 3
    storage = table["facets"]["storage"]
    assert (storage["storageLayer"], storage["fileFormat"]) == ("hive", "parquet")
    _table_facets(table, warehouse, "events")


def test_load_data(hive: Any) -> None:
    report, work, _ = hive
    warehouse = work / "warehouse"
    _one(report["load"]["inputs"], work / "load.txt")
    table = _one(report["load"]["outputs"], warehouse / "loaded")
    assert _fields(table) == [("id", "integer"), ("name", "string")]
    _table_facets(table, warehouse, "loaded")


def test_alter_table_add_columns_on_hive(hive: Any) -> None:
    """openlineage-spark's spark_alter_table scenario (pysparkAlterTableAddColumnsEnd.json)."""
    report, work, _ = hive
    warehouse = work / "warehouse"
    table = _one(report["alter"]["outputs"], warehouse / "alter_table_test")
    assert _fields(table) == [("a", "string"), ("b", "string"), ("c", "string"), ("d", "string")]
    assert _lifecycle(table) == "ALTER"
    assert report["alter"]["inputs"] == []
    _table_facets(table, warehouse, "alter_table_test")
