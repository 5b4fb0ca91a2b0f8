"""A task's checked writes recorded into its lineage, and the error on_failure="fail" raises."""

from __future__ import annotations

import pytest

from lineage_operators.model import LineageDataset
from lineage_operators.quality import DataQuality, not_null, row_count
from lineage_operators.quality.observe import CheckedWrite, QualityRun
from lineage_operators.quality.report import DataQualityError, raise_if_failed, record_quality
from lineage_operators.recorder import LineageRecorder

pytest.importorskip("openlineage.client")


def _run(on_failure: str, target: str, observed: dict[str, int]) -> QualityRun:
    checks = (not_null("id"), row_count(min=2))
    run = QualityRun(DataQuality({target: checks}, on_failure=on_failure))
    run.writes.append(CheckedWrite(target, target, observed, [c.evaluate(observed) for c in checks]))
    return run


def test_a_path_write_gets_metrics_on_its_captured_output_and_the_run_a_test_facet() -> None:
    recorder = LineageRecorder("dag.task")
    recorder.add_output(LineageDataset("file", "/data/orders", {"schema": "captured"}))
    record_quality(recorder, _run("report", "file:///data/orders/", {"rowCount": 5, "id.count": 3}))
    (output,) = recorder.outputs
    assert output.facets["schema"] == "captured"  # the capture's facets stay
    metrics = output.facets["dataQualityMetrics"]
    assert (metrics.rowCount, metrics.columnMetrics["id"].nullCount) == (5, 2)
    tests = recorder.run_facets["test"].tests
    assert [(t.name, t.status, t.severity, t.params["datasetName"]) for t in tests] == [
        ("not_null_id", "fail", "warn", "/data/orders"),
        ("row_count", "pass", "warn", "/data/orders"),
    ]


def test_a_table_write_is_found_by_its_symlink() -> None:
    from openlineage.client.facet_v2 import symlinks_dataset

    symlinks = symlinks_dataset.SymlinksDatasetFacet(
        identifiers=[symlinks_dataset.Identifier(namespace="file:/wh", name="shop.orders", type="TABLE")]
    )
    recorder = LineageRecorder("dag.task")
    recorder.add_output(LineageDataset("file", "/wh/shop.db/orders", {"symlinks": symlinks}))
    record_quality(recorder, _run("fail", "orders", {"rowCount": 3, "id.count": 3}))
    (output,) = recorder.outputs
    assert output.facets["dataQualityMetrics"].rowCount == 3
    tests = recorder.run_facets["test"].tests
    assert {(t.severity, t.params["datasetName"]) for t in tests} == {("error", "/wh/shop.db/orders")}


def test_a_write_the_capture_did_not_report_is_added_under_its_path() -> None:
    recorder = LineageRecorder("dag.task")
    record_quality(recorder, _run("report", "/data/new", {"rowCount": 1, "id.count": 1}))
    assert [(d.namespace, d.name) for d in recorder.outputs] == [("file", "/data/new")]


def test_a_write_that_did_not_finish_lists_its_checks_as_skipped() -> None:
    """On its captured output (no metrics facet added) and, where the capture has none, by its path
    alone: a write that raised adds no output of its own."""
    recorder = LineageRecorder("dag.task")
    recorder.add_output(LineageDataset("file", "/data/orders", {"schema": "captured"}))
    checks = (not_null("id"), row_count(min=2))
    run = QualityRun(DataQuality({"/data/orders": checks, "/data/other": checks}, on_failure="fail"))
    for target in ("/data/orders", "/data/other"):
        run.writes.append(CheckedWrite(target, target, {}, [c.evaluate({}) for c in checks], finished=False))
    record_quality(recorder, run)
    assert [(d.name, sorted(d.facets)) for d in recorder.outputs] == [("/data/orders", ["schema"])]
    tests = recorder.run_facets["test"].tests
    assert [(t.name, t.status, t.actual, t.params["datasetName"]) for t in tests] == [
        ("not_null_id", "skip", None, "/data/orders"),
        ("row_count", "skip", None, "/data/orders"),
        ("not_null_id", "skip", None, "/data/other"),
        ("row_count", "skip", None, "/data/other"),
    ]
    raise_if_failed(run)  # a skipped check fails nothing: the write's own error fails the task


def test_only_on_failure_fail_fails_the_task_and_the_error_lists_the_checks() -> None:
    raise_if_failed(_run("report", "/d", {"rowCount": 1, "id.count": 0}))
    raise_if_failed(_run("fail", "/d", {"rowCount": 4, "id.count": 4}))
    raise_if_failed(None)
    with pytest.raises(DataQualityError) as raised:
        raise_if_failed(_run("fail", "/d", {"rowCount": 1, "id.count": 0}))
    assert str(raised.value) == (
        "2 data-quality check(s) failed:\n"
        "  /d: not_null_id (expected 0, got 1)\n"
        "  /d: row_count (expected >= 2, got 1)"
    )
