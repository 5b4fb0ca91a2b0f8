"""Existing tasks, unchanged: the plugin arms capture in the task process, the extractor named in
``[openlineage] extractors`` reports it through the real provider (in its forked child)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
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
def configured(monkeypatch):
    """``[openlineage] extractors`` as a user sets it; the provider's listener, a process-wide
    singleton, rebuilds its extractor table from it as a new task process would."""
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__EXTRACTORS", EXTRACTOR)
    yield
    rebuild_extractors()


@pytest.fixture(autouse=True)
def _fresh_extractors(request):
    yield
    rebuild_extractors()


def _comparable(dataset: dict[str, Any]) -> dict[str, Any]:
    return {key: dataset.get(key) for key in ("namespace", "name", "facets", "inputFacets", "outputFacets")}


def run_unmodified(run_dag) -> Any:
    rebuild_extractors()
    result = run_dag(load_dag_file(DAGS / "unmodified_tasks.py"), logical_date=LOGICAL_DATE)
    validate_events(result)
    assert result.state == "success", result.task_states
    return result


def test_unmodified_python_tasks_report_what_the_operator_reports(configured, run_dag, base_dir: Path):
    result = run_unmodified(run_dag)
    ours = final_event(result, "unmodified_tasks", "lineage_operator")
    assert dataset_ids(ours["outputs"]) == [
        ("file", f"{base_dir}/marts/customer_totals"),
        ("file", f"{base_dir}/raw/orders"),
    ]
    assert {"schema", "dataSource"} <= set(ours["outputs"][0]["facets"])

    for task_id in ("python_operator", "taskflow"):
        event = final_event(result, "unmodified_tasks", task_id)
        for direction in ("inputs", "outputs"):
            assert [_comparable(d) for d in event[direction]] == [_comparable(d) for d in ours[direction]], (
                task_id,
                direction,
            )
        run_facets = event["run"]["facets"]
        assert run_facets["spark_processingEngine"] == ours["run"]["facets"]["spark_processingEngine"]
        assert set(run_facets["spark_applicationDetails"]) == set(
            ours["run"]["facets"]["spark_applicationDetails"]
        )
        assert "unknownSourceAttribute" not in run_facets

    # merged with what the provider's own PythonExtractor gives a PythonOperator
    plain = final_event(result, "unmodified_tasks", "python_operator")
    assert "def own_session_job" in plain["job"]["facets"]["sourceCode"]["sourceCode"]


def test_without_an_extractor_datasets_reach_the_provider_through_hook_lineage(
    run_dag, base_dir: Path, monkeypatch
):
    """Fallback: only ``[lineage_operators] capture_operators``; the provider reads Airflow's
    hook-lineage collector, so the datasets arrive, without facets."""
    monkeypatch.setenv(
        "AIRFLOW__LINEAGE_OPERATORS__CAPTURE_OPERATORS", "PythonOperator,_PythonDecoratedOperator"
    )
    result = run_unmodified(run_dag)
    ours = final_event(result, "unmodified_tasks", "lineage_operator")
    for task_id in ("python_operator", "taskflow"):
        event = final_event(result, "unmodified_tasks", task_id)
        for direction in ("inputs", "outputs"):
            assert dataset_ids(event[direction]) == dataset_ids(ours[direction]), (task_id, direction)
            assert all("schema" not in d.get("facets", {}) for d in event[direction])
