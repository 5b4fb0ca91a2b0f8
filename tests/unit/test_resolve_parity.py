"""Plain-Python rules behind the parity items: subset facets, input statistics, Hadoop input lists."""

from __future__ import annotations

import pytest

pytest.importorskip("openlineage.client")

from openlineage.client.serde import Serde

from lineage_operators import facets as f
from lineage_operators.spark.facts import ExecutionFacts, RelationFacts
from lineage_operators.spark.plan.records import directories
from lineage_operators.spark.rdd.sources import _split_input_dirs
from lineage_operators.spark.resolve import resolve
from lineage_operators.spark.session_facts import NamingContext


@pytest.mark.parametrize(
    ("roots", "leaf_dirs", "expected"),
    [
        (["file:/d/words.txt"], {"file:/d"}, ["file:/d/words.txt"]),  # one file: the file itself
        (["file:/d/"], {"file:/d"}, ["file:/d"]),
        (["file:/d/a.txt", "file:/d/b.txt"], {"file:/d"}, ["file:/d"]),  # several files: their folder
    ],
)
def test_single_file_rule(roots: list[str], leaf_dirs: set[str], expected: list[str]) -> None:
    assert directories(roots, leaf_dirs) == expected


def test_subset_facet_is_bounded() -> None:
    data = Serde.to_dict(f.subset_facet([f"/e/dt={i}" for i in range(5)], output=False, limit=2, omitted=10))
    assert data["inputCondition"] == {
        "type": "location",
        "locations": ["/e/dt=0", "/e/dt=1"],
        "omittedLocations": 13,
    }
    whole = Serde.to_dict(f.subset_facet(["/e/dt=0"], output=True, limit=100))
    assert "omittedLocations" not in whole["outputCondition"]
    assert f.subset_facet([], output=True, limit=100) is None


def _read(location: str, rows: int | None, size: int, files: int) -> ExecutionFacts:
    return ExecutionFacts(
        "collect", True, inputs=[RelationFacts(location=location, rows=rows, size=size, files=files)]
    )


def test_input_statistics_are_per_location_not_per_scan() -> None:
    executions = [
        _read("file:/e/dt=2026-01-01", None, 100, 1),
        _read("file:/e/dt=2026-01-01", None, 100, 1),  # scanned again: the same dataset
        _read("file:/e/dt=2026-01-02", None, 50, 2),
    ]
    inputs, _, _ = resolve(executions, NamingContext(subset_limit=1))
    (dataset,) = inputs
    assert (dataset.namespace, dataset.name) == ("file", "/e")
    stats = dataset.input_facets["inputStatistics"]
    assert (stats.rowCount, stats.size, stats.fileCount) == (None, 150, 3)
    condition = dataset.input_facets["subset"].inputCondition
    assert (condition.locations, condition.omittedLocations) == (["/e/dt=2026-01-01"], 1)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("file:/a", ["file:/a"]),
        ("file:/a,file:/b", ["file:/a", "file:/b"]),
        ("file:/a\\,b,file:/c", ["file:/a,b", "file:/c"]),
    ],
)
def test_hadoop_input_dirs(value: str, expected: list[str]) -> None:
    assert _split_input_dirs(value) == expected


def test_a_file_inside_a_directory_read_by_the_task_is_that_directory() -> None:
    """CSV header inference reads the directory's first file on its own: no second dataset."""
    executions = [
        ExecutionFacts("head", True, inputs=[RelationFacts(location="file:/raw/orders/part-0.csv")]),
        ExecutionFacts("count", True, inputs=[RelationFacts(location="file:/raw/orders")]),
        ExecutionFacts("count", True, inputs=[RelationFacts(location="file:/raw/ordersX/a.csv")]),
    ]
    inputs, _, _ = resolve(executions, NamingContext())
    assert [(d.namespace, d.name) for d in inputs] == [
        ("file", "/raw/orders"),
        ("file", "/raw/ordersX/a.csv"),
    ]
