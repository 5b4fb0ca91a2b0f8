"""Data-quality results as OpenLineage facets, built with openlineage-python's own classes.

Where the spec places each: ``dataQualityMetrics`` is a dataset facet on an output and an input
facet on an input; ``dataQualityAssertions`` is an input-dataset facet (so a checked output's
verdicts travel in the run's ``test`` facet only); the run facet ``test`` lists every check of the
task with its status and severity (``error`` when a failure fails the task, ``warn`` otherwise).

Imports openlineage-python at module level: import only from run-time code paths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openlineage.client.generated import data_quality_assertions_dataset as assertions
from openlineage.client.generated import data_quality_metrics_dataset as output_metrics
from openlineage.client.generated import data_quality_metrics_input_dataset as input_metrics
from openlineage.client.generated import test_run

from lineage_operators.quality.checks import Verdict
from lineage_operators.quality.metrics import DatasetMetrics

METRICS_FACET = "dataQualityMetrics"
ASSERTIONS_FACET = "dataQualityAssertions"
TEST_FACET = "test"


def metrics_facet(
    metrics: DatasetMetrics, *, as_input: bool
) -> output_metrics.DataQualityMetricsDatasetFacet | input_metrics.DataQualityMetricsInputDatasetFacet:
    """The ``dataQualityMetrics`` facet of an output (a dataset facet) or an input (an input facet)."""
    module = input_metrics if as_input else output_metrics
    columns = {
        column: module.ColumnMetrics(
            **{k: v for k, v in stats.items() if k != "quantiles"}, quantiles=stats.get("quantiles") or None
        )
        for column, stats in metrics.columns.items()
    }
    facet_class = (
        input_metrics.DataQualityMetricsInputDatasetFacet
        if as_input
        else output_metrics.DataQualityMetricsDatasetFacet
    )
    counts = metrics.dataset
    return facet_class(
        columnMetrics=columns,  # type: ignore[arg-type]  # the two modules' ColumnMetrics are alike
        rowCount=counts.get("rowCount"),
        bytes=counts.get("bytes"),
        fileCount=counts.get("fileCount"),
    )


def _verdict(v: Verdict, severity: str) -> dict[str, Any]:
    """What an assertion and a test execution both say of a check."""
    return {
        "name": v.check.name,
        "severity": severity,
        "expected": v.check.expected,
        "actual": v.actual,
        "content": v.check.content,
        "contentType": "sql",
    }


def assertions_facet(
    verdicts: Sequence[Verdict], severity: str
) -> assertions.DataQualityAssertionsDatasetFacet:
    """The ``dataQualityAssertions`` input facet of the checks that ran (skipped ones left out)."""
    return assertions.DataQualityAssertionsDatasetFacet(
        assertions=[
            assertions.Assertion(
                assertion=v.check.kind, success=v.passed, column=v.check.column, **_verdict(v, severity)
            )
            for v in verdicts
            if v.status != "skip"
        ]
    )


def test_facet(results: Sequence[tuple[tuple[str, str], Verdict]], severity: str) -> test_run.TestRunFacet:
    """The run's ``test`` facet from ((namespace, name) of the dataset checked, verdict) pairs: the
    dataset goes into each test's ``params``, so a reader (the ``view`` page) can place it."""
    return test_run.TestRunFacet(
        tests=[
            test_run.TestExecution(
                status=v.status,
                type=v.check.kind,
                **_verdict(v, severity),
                params={
                    "datasetNamespace": namespace,
                    "datasetName": name,
                    **({"column": v.check.column} if v.check.column else {}),
                },
            )
            for (namespace, name), v in results
        ]
    )


__all__ = [
    "ASSERTIONS_FACET",
    "METRICS_FACET",
    "TEST_FACET",
    "assertions_facet",
    "metrics_facet",
    "test_facet",
]
