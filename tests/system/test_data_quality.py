"""Data quality end to end (real Airflow, provider, listener and Spark): the example DAG against its
golden events, each check's verdict and the written dataset's metrics computed independently, a
failed check failing its task only when asked, with what the task wrote in its FAIL event, and a
checked write failing mid-job, whose FAIL event lists its checks as skipped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.system.conftest import assert_matches_golden, final_event, load_dag_file

from lineage_operators.testing import validate_events

FAIL_DAG = Path(__file__).parent / "dags" / "data_quality_fail.py"


def _tests(event: dict[str, Any]) -> dict[str, tuple[str, str, str | None]]:
    return {
        t["name"]: (t["status"], t["severity"], t.get("actual"))
        for t in event["run"]["facets"]["test"]["tests"]
    }


def _output(event: dict[str, Any], path: Path) -> dict[str, Any]:
    (found,) = [d for d in event["outputs"] if (d["namespace"], d["name"]) == ("file", str(path))]
    return found


def test_example_dag_reports_checks_and_metrics(run_example, base_dir: Path) -> None:
    result = run_example("data_quality")
    assert result.task_states == {"clean_orders": "success", "publish_orders": "success"}
    assert_matches_golden(result, "data_quality", base_dir)

    clean = final_event(result, "example_data_quality", "clean_orders")
    assert _tests(clean) == {  # one check fails: reported (warn), the task goes on
        "not_null_order_id": ("pass", "warn", "0"),
        "unique_order_id": ("pass", "warn", "4 distinct of 4"),
        "between_amount": ("fail", "warn", "min 1.0, max 130.0"),
        "in_set_status": ("pass", "warn", "0"),
        "row_count": ("pass", "warn", "4"),
    }
    metrics = _output(clean, base_dir / "dq" / "clean_orders")["facets"]["dataQualityMetrics"]
    assert metrics["rowCount"] == 4
    assert metrics["columnMetrics"]["order_id"] == {"count": 4, "nullCount": 0, "distinctCount": 4}
    assert (metrics["columnMetrics"]["amount"]["min"], metrics["columnMetrics"]["amount"]["max"]) == (
        1.0,
        130.0,
    )
    publish = final_event(result, "example_data_quality", "publish_orders")
    assert _tests(publish) == {
        "not_null_customer": ("pass", "error", "0"),
        "row_count": ("pass", "error", "3"),
    }


def test_failed_checks_fail_their_task_only_when_asked_and_unfinished_writes_skip_them(
    run_dag, base_dir: Path
) -> None:
    result = run_dag(load_dag_file(FAIL_DAG))
    validate_events(result)
    assert result.task_states == {"strict": "failed", "unfinished": "failed", "lenient": "success"}
    strict = final_event(result, "data_quality_fail", "strict")
    assert strict["eventType"] == "FAIL"
    message = strict["run"]["facets"]["errorMessage"]["message"]
    assert "1 data-quality check(s) failed" in message
    assert "not_null_customer (expected 0, got 2)" in message
    assert _tests(strict) == {
        "not_null_customer": ("fail", "error", "2"),
        "row_count": ("pass", "error", "3"),
    }
    written = _output(strict, base_dir / "strict")  # the FAIL event keeps what the task wrote
    assert written["facets"]["dataQualityMetrics"]["columnMetrics"]["customer"]["nullCount"] == 2
    lenient = final_event(result, "data_quality_fail", "lenient")
    assert _tests(lenient) == {"not_null_customer": ("fail", "warn", "2")}
    unfinished = final_event(result, "data_quality_fail", "unfinished")  # the write raised mid-job
    assert unfinished["eventType"] == "FAIL"
    assert "broken row" in unfinished["run"]["facets"]["errorMessage"]["message"]
    assert _tests(unfinished) == {
        "not_null_customer": ("skip", "warn", None),
        "row_count": ("skip", "warn", None),
    }
    attempted = _output(unfinished, base_dir / "unfinished")  # reported, with no metrics of a partial job
    assert "dataQualityMetrics" not in attempted["facets"]
