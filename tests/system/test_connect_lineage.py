"""The operator on a real Spark Connect server (``master="sc://..."`` and a ``spark_connect``
connection): inputs and outputs captured automatically, through real Airflow and the provider."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.connect_server import emit_in_a_thread
from tests.system.conftest import all_text, dataset_ids, final_event, load_dag_file

from lineage_operators.testing import validate_events

DAGS = Path(__file__).parent / "dags"


@pytest.fixture
def connect_env(connect_server: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    host, port = connect_server.url.removeprefix("sc://").split(":")
    monkeypatch.setenv("LINEAGE_CONNECT_URL", connect_server.url)
    connection = {"conn_type": "spark_connect", "host": f"sc://{host}", "port": int(port), "login": "alice"}
    monkeypatch.setenv("AIRFLOW_CONN_LINEAGE_CONNECT", json.dumps(connection))
    # the operator's capture_timeout bounds the Connect capture's wait: generous on a loaded machine
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__CAPTURE_TIMEOUT", "60")
    emit_in_a_thread(monkeypatch)
    was_set = "SPARK_CONNECT_MODE_ENABLED" in os.environ
    yield str(connect_server.warehouse)
    if not was_set:  # pyspark's builder switched the whole process to Connect mode: switch it back
        os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)


def _facet(dataset: dict[str, Any], name: str) -> Any:
    return dataset.get("facets", {}).get(name) or dataset.get("outputFacets", {}).get(name)


def test_connect_tasks_get_automatic_lineage(
    run_dag: Any, base_dir: Path, connect_env: str, caplog: pytest.LogCaptureFixture
) -> None:
    result = run_dag(load_dag_file(DAGS / "connect_lineage.py"))
    validate_events(result)
    assert result.task_states == {"summary": "success", "tables": "success", "broken": "failed"}
    assert "SPARK_CONNECT_MODE_ENABLED" not in os.environ  # the operator switched the process back

    summary = final_event(result, "connect_lineage", "summary")
    assert dataset_ids(summary["inputs"]) == [("file", f"{base_dir}/orders")]
    outputs = {(d["namespace"], d["name"]): d for d in summary["outputs"]}
    assert set(outputs) == {
        ("file", f"{base_dir}/orders"),
        ("file", f"{base_dir}/summary"),
        ("postgres://127.0.0.1:9", "sales.public.orders"),
    }
    written = outputs[("file", f"{base_dir}/summary")]
    assert [f["name"] for f in _facet(written, "schema")["fields"]] == ["even", "sum(amount)"]
    assert _facet(written, "lifecycleStateChange")["lifecycleStateChange"] == "OVERWRITE"
    assert _facet(written, "dataSource")["name"] == "file"
    assert summary["run"]["facets"]["spark_processingEngine"]["name"] == "spark"

    tables = final_event(result, "connect_lineage", "tables")
    location = f"{connect_env}/connect_daily"
    assert dataset_ids(tables["outputs"]) == [("file", location)]
    table = tables["outputs"][0]
    assert _facet(table, "lifecycleStateChange")["lifecycleStateChange"] == "CREATE"
    symlink = _facet(table, "symlinks")["identifiers"][0]
    assert (symlink["name"], symlink["type"]) == ("default.connect_daily", "TABLE")
    assert set(dataset_ids(tables["inputs"])) == {("file", f"{base_dir}/orders"), ("file", location)}
    assert "CREATE TABLE connect_daily" in tables["job"]["facets"]["sql"]["query"]

    broken = final_event(result, "connect_lineage", "broken")
    assert broken["eventType"] == "FAIL"
    assert dataset_ids(broken["outputs"]) == [("file", f"{base_dir}/partial")]
    assert dataset_ids(broken["inputs"]) == [("file", f"{base_dir}/orders")]

    text = all_text(result) + " ".join(r.getMessage() for r in caplog.records)
    for secret in ("hunter2", "s3cret"):
        assert secret not in text
    assert "lineage capture" not in " ".join(
        r.getMessage() for r in caplog.records if r.levelname == "WARNING"
    )
