"""System test: real Airflow (``dag.test()`` through the project's harness), the real OpenLineage
provider and listener, the operator writing and reading Delta tables (every Spark line with a Delta
release).

Runs first in this directory (file order): its operator starts the JVM with the Delta jars of its own
``config_kwargs``, as a user's DAG would, and stops the session it created. Its basename is its own:
pytest imports test files by basename, and tests/iceberg has a ``test_airflow_dag.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from tests.support.marquez import MarquezServer, assert_table_drawn_as_its_location
from tests.support.table_format_session import load_dag_module

from lineage_operators.testing import DagRunResult, validate_events

DAG_FILE = Path(__file__).parent / "dags" / "delta_tables.py"


def _final(result: DagRunResult, task: str) -> dict[str, Any]:
    (event,) = result[f"delta_tables.{task}.event.complete"]
    return event


def _last_version(table: Path) -> str:
    """The newest commit of the table's transaction log, as Delta numbers them."""
    commits = sorted((table / "_delta_log").glob("*.json"))
    return str(int(commits[-1].stem))


def test_operator_writes_and_reads_delta_tables(
    run_dag: Callable[..., DagRunResult],
    delta_jvm: list[Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    marquez: MarquezServer,
) -> None:
    lake = tmp_path / "lake"
    monkeypatch.setenv("LINEAGE_DELTA_LAKE", str(lake))
    monkeypatch.setenv("LINEAGE_DELTA_JARS", ",".join(str(j) for j in delta_jvm))
    monkeypatch.delenv("PYSPARK_SUBMIT_ARGS", raising=False)  # as a user's environment: no test --jars
    module = load_dag_module(DAG_FILE, "delta_tables_dag")

    result = run_dag(module.dag, logical_date=datetime(2026, 1, 1, tzinfo=timezone.utc), backend=marquez.url)
    assert result.state == "success", result.failures
    validate_events(result)

    orders, totals = lake / "orders", lake / "warehouse" / "totals"
    (written,) = _final(result, "load")["outputs"]
    assert (written["namespace"], written["name"]) == ("file", str(orders))
    facets = written["facets"]
    assert (facets["storage"]["storageLayer"], facets["storage"]["fileFormat"]) == ("delta", "parquet")
    assert facets["version"]["datasetVersion"] == _last_version(orders)
    assert facets["lifecycleStateChange"]["lifecycleStateChange"] == "CREATE"
    assert [f["name"] for f in facets["schema"]["fields"]] == ["id", "customer", "amount"]

    summarize = _final(result, "summarize")
    (read,) = summarize["inputs"]  # the table, never its _delta_log
    assert (read["name"], read["facets"]["version"]["datasetVersion"]) == (str(orders), _last_version(orders))
    (out,) = summarize["outputs"]
    assert (out["name"], out["facets"]["version"]["datasetVersion"]) == (str(totals), _last_version(totals))
    fields = out["facets"]["columnLineage"]["fields"]
    assert {(i["name"], i["field"]) for i in fields["total"]["inputFields"]} == {(str(orders), "amount")}
    assert "_delta_log" not in result.events_path.read_text()
    assert out["facets"]["symlinks"]["identifiers"] == [
        {"namespace": f"file:{lake / 'warehouse'}", "name": "default.totals", "type": "TABLE"}
    ]
    # in Marquez (the provider's HTTP transport): the path table and the catalog table, each its location
    path_table = marquez.get(f"/api/v1/namespaces/file/datasets/{quote(str(orders), safe='')}")
    assert (path_table["name"], path_table["facets"].get("symlinks")) == (str(orders), None)
    job = summarize["job"]
    assert_table_drawn_as_its_location(marquez, out, writer=f"job:{job['namespace']}:{job['name']}")
