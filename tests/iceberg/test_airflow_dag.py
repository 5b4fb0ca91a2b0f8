"""System test: real Airflow (``dag.test()`` through the project's harness), the real OpenLineage
provider and listener, the operator writing and reading Iceberg tables (every Spark line with an
Iceberg runtime).

Runs first in this directory (file order): its operator starts the JVM with the Iceberg jars of
its own ``config_kwargs``, as a user's DAG would, and stops the session it created.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from tests.support.marquez import MarquezServer, assert_table_drawn_as_its_location
from tests.support.table_format_session import load_dag_module

from lineage_operators.testing import DagRunResult, validate_events

DAG_FILE = Path(__file__).parent / "dags" / "iceberg_tables.py"


def _final(result: DagRunResult, task: str) -> dict[str, Any]:
    (event,) = result[f"iceberg_tables.{task}.event.complete"]
    return event


def _dataset(datasets: list[dict[str, Any]], path: Path) -> dict[str, Any]:
    found = [d for d in datasets if (d["namespace"], d["name"]) == ("file", str(path))]
    assert found, f"{path} not in {[(d['namespace'], d['name']) for d in datasets]}"
    return found[0]


def test_operator_writes_and_reads_iceberg_tables(
    run_dag: Callable[..., DagRunResult],
    iceberg_jvm: list[Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    marquez: MarquezServer,
) -> None:
    warehouse = tmp_path / "warehouse"
    monkeypatch.setenv("LINEAGE_ICEBERG_WAREHOUSE", str(warehouse))
    monkeypatch.setenv("LINEAGE_ICEBERG_JARS", ",".join(str(j) for j in iceberg_jvm))
    # as in a user's environment: no ``--jars`` of tests/conftest.py replacing the DAG's spark.jars
    monkeypatch.delenv("PYSPARK_SUBMIT_ARGS", raising=False)
    module = load_dag_module(DAG_FILE, "iceberg_tables_dag")

    result = run_dag(module.dag, logical_date=datetime(2026, 1, 1, tzinfo=timezone.utc), backend=marquez.url)
    assert result.state == "success", result.failures
    validate_events(result)

    # Iceberg's own record of the snapshots, read after the run from the table metadata on disk
    orders_dir, totals_dir = warehouse / "shop" / "orders", warehouse / "shop" / "totals"
    orders_snapshot = _current_snapshot(orders_dir)
    totals_snapshot = _current_snapshot(totals_dir)

    load = _final(result, "load")
    (written,) = load["outputs"]
    assert (written["namespace"], written["name"]) == ("file", str(orders_dir))
    facets = written["facets"]
    assert facets["symlinks"]["identifiers"] == [
        {"namespace": f"file:{warehouse}", "name": "shop.orders", "type": "TABLE"}
    ]
    assert (facets["storage"]["storageLayer"], facets["storage"]["fileFormat"]) == ("iceberg", "parquet")
    assert facets["version"]["datasetVersion"] == orders_snapshot
    # the catalog facet, as openlineage-spark writes it (validated against the spec above)
    catalog = {k: v for k, v in facets["catalog"].items() if not k.startswith("_")}
    assert catalog == {
        "framework": "iceberg",
        "type": "hadoop",
        "name": "ice",
        "warehouseUri": str(warehouse),
        "source": "spark",
    }
    assert facets["lifecycleStateChange"]["lifecycleStateChange"] == "CREATE"
    assert [f["name"] for f in facets["schema"]["fields"]] == ["id", "customer", "amount"]

    summarize = _final(result, "summarize")
    read = _dataset(summarize["inputs"], orders_dir)
    assert read["facets"]["version"]["datasetVersion"] == orders_snapshot  # the snapshot read
    (totals,) = summarize["outputs"]
    assert (totals["namespace"], totals["name"]) == ("file", str(totals_dir))
    assert totals["facets"]["version"]["datasetVersion"] == totals_snapshot
    fields = totals["facets"]["columnLineage"]["fields"]
    assert {(i["name"], i["field"]) for i in fields["total"]["inputFields"]} == {(str(orders_dir), "amount")}
    # in Marquez (the provider's HTTP transport): each catalog table drawn as its location, found by name
    for task, table in (("load", written), ("summarize", totals)):
        job = _final(result, task)["job"]
        assert_table_drawn_as_its_location(marquez, table, writer=f"job:{job['namespace']}:{job['name']}")


def _current_snapshot(table_dir: Path) -> str:
    """``current-snapshot-id`` of the table's newest metadata file (Hadoop catalog layout)."""
    import json

    metadata = table_dir / "metadata"
    hint = (metadata / "version-hint.text").read_text().strip()
    return str(json.loads((metadata / f"v{hint}.metadata.json").read_text())["current-snapshot-id"])
