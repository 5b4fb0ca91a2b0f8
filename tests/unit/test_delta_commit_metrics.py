"""A Delta write's output statistics from its commit's ``operationMetrics``
(spark/tables/delta_metrics.py): the commit lines are as Delta 3.3 wrote them (trimmed)."""

from __future__ import annotations

import json

import pytest

from lineage_operators.spark.tables.delta_metrics import commit_info, commit_statistics


def line(operation: str, **metrics: str) -> str:
    return json.dumps({"commitInfo": {"operation": operation, "operationMetrics": metrics}})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (line("WRITE", numFiles="2", numOutputRows="5", numOutputBytes="1300"), (5, 1300, 2)),
        (line("CREATE TABLE AS SELECT", numFiles="1", numOutputRows="6", numOutputBytes="900"), (6, 900, 1)),
        (
            line(
                "MERGE",
                numOutputRows="4",
                numTargetBytesAdded="1016",
                numTargetFilesAdded="1",
                numTargetRowsDeleted="2",
                numSourceRows="6",
            ),
            (4, 1016, 1),
        ),
        (
            line(
                "UPDATE",
                numUpdatedRows="4",
                numCopiedRows="2",
                numAddedBytes="1016",
                numAddedFiles="1",
                numRemovedFiles="1",
            ),
            (6, 1016, 1),
        ),
        (
            line("DELETE", numDeletedRows="1", numCopiedRows="2", numAddedBytes="991", numAddedFiles="1"),
            (2, 991, 1),
        ),
        (line("OPTIMIZE", numAddedFiles="1", numRemovedFiles="3", numAddedBytes="700"), (None, 700, 1)),
        (line("CREATE TABLE"), None),
        (json.dumps({"commitInfo": {"operation": "VACUUM START"}}), None),
        (json.dumps({"add": {"path": "x.parquet"}}), None),
        ("not json", None),
        (None, None),
    ],
)
def test_what_each_operation_added(text: str | None, expected: tuple[int | None, ...] | None) -> None:
    assert commit_statistics(commit_info(text)) == expected
