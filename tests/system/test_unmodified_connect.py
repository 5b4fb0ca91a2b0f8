"""Existing tasks on Spark Connect, unchanged: a PythonOperator and a ``@task`` that open
``SparkSession.builder.remote("sc://...")`` are captured with configuration only (the plugin and
``[openlineage] extractors``), through real Airflow, the real provider and a real Connect server,
and report what the operator reports, ``columnLineage`` included."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.connect_server import emit_in_a_thread
from tests.system.conftest import (
    EXTRACTOR,
    LOGICAL_DATE,
    dataset_ids,
    final_event,
    load_dag_file,
    rebuild_extractors,
)

from lineage_operators.testing import validate_events

DAGS = Path(__file__).parent / "dags"


@pytest.fixture
def configured(connect_server: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__EXTRACTORS", EXTRACTOR)
    monkeypatch.setenv("LINEAGE_CONNECT_URL", connect_server.url)
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__CAPTURE_TIMEOUT", "60")  # a loaded machine
    emit_in_a_thread(monkeypatch)
    was_set = "SPARK_CONNECT_MODE_ENABLED" in os.environ
    rebuild_extractors()
    yield
    rebuild_extractors()
    if not was_set:  # pyspark's remote builder switches the whole process to Connect mode
        os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)


def _comparable(dataset: dict[str, Any]) -> dict[str, Any]:
    return {key: dataset.get(key) for key in ("namespace", "name", "facets", "inputFacets", "outputFacets")}


def test_unmodified_connect_tasks_report_what_the_operator_reports(
    configured: None, run_dag: Any, base_dir: Path
) -> None:
    result = run_dag(load_dag_file(DAGS / "unmodified_connect.py"), logical_date=LOGICAL_DATE)
    validate_events(result)
    assert result.state == "success", result.task_states
    ours = final_event(result, "unmodified_connect", "lineage_operator")
    totals = f"{base_dir}/marts/customer_totals"
    assert dataset_ids(ours["outputs"]) == [("file", totals), ("file", f"{base_dir}/raw/orders")]
    written = next(d for d in ours["outputs"] if d["name"] == totals)
    lineage = written["facets"]["columnLineage"]
    assert {name: [i["field"] for i in f["inputFields"]] for name, f in lineage["fields"].items()} == {
        "customer": ["customer"],
        "sum(amount)": ["amount"],
    }
    assert {(i["field"], i["transformations"][0]["subtype"]) for i in lineage["dataset"]} == {
        ("amount", "FILTER"),
        ("customer", "GROUP_BY"),
    }
    for task_id in ("python_operator", "taskflow"):
        event = final_event(result, "unmodified_connect", task_id)
        for direction in ("inputs", "outputs"):
            assert [_comparable(d) for d in event[direction]] == [_comparable(d) for d in ours[direction]], (
                task_id,
                direction,
            )
        engine = event["run"]["facets"]["spark_processingEngine"]
        assert engine == ours["run"]["facets"]["spark_processingEngine"]
