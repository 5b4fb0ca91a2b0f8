"""Per-execution capture cost on large plans (printed; no timing assertions)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from functools import reduce
from pathlib import Path
from typing import Any

import pytest
from spark_helpers import get, local, names, run_captured

from lineage_operators.spark.capture.classic import SparkLineageCapture

COLUMNS = 300
PARTITIONS = 200
FILES_PER_PARTITION = 10


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2,000 CSV files with 300 columns in 200 ``p=<n>`` partition directories (written directly)."""
    root = tmp_path_factory.mktemp("cost") / "wide"
    header = ",".join(f"c{i}" for i in range(COLUMNS)) + "\n"
    row = ",".join(str(i) for i in range(COLUMNS)) + "\n"
    for p in range(PARTITIONS):
        directory = root / f"p={p}"
        directory.mkdir(parents=True)
        for f in range(FILES_PER_PARTITION):
            (directory / f"part-{f:05d}.csv").write_text(header + row)
    return root


def _cost(spark: Any, body: Any) -> tuple[Any, list[float]]:
    capture, result = run_captured(spark, body)
    with capture._lock:
        costs = [f.cost_ms for f in capture._facts]
    return result, costs


@pytest.fixture
def few_tasks(spark: Any) -> Iterator[None]:
    """Pack the 2,000 tiny files into few tasks and list them on the driver: keeps the test fast."""
    settings = {
        "spark.sql.files.openCostInBytes": "1024",
        "spark.sql.sources.parallelPartitionDiscovery.threshold": "100000",
    }
    previous = {key: spark.conf.get(key) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    yield
    for key, value in previous.items():
        spark.conf.set(key, value)


@pytest.mark.usefixtures("few_tasks")
def test_capture_cost_large_plans(spark: Any, wide: Path, tmp_path: Path) -> None:
    # warm up: the JVM-side functions are built once per process, on first use
    warm = tmp_path / "warm"
    spark.range(1).write.parquet(str(warm))
    _, cold = _cost(spark, lambda: spark.read.parquet(str(warm)).count())

    columns = ", ".join(f"c{i} STRING" for i in range(COLUMNS))
    frame = spark.read.schema(columns).option("header", True).csv(str(wide))  # no inference job
    assert len(frame.columns) == COLUMNS + 1
    # the plan holds the whole 2,000-file index; limit(1) just spares the test a 2,000-file scan
    result, costs = _cost(spark, lambda: frame.limit(1).collect())
    assert names(result.inputs) == {local(wide)}
    fields = get(result.inputs, wide).facets["schema"].fields
    assert len(fields) == COLUMNS + 1

    out = tmp_path / "wide_out"
    write_result, write_costs = _cost(spark, lambda: frame.limit(10).write.parquet(str(out)))
    assert names(write_result.outputs) == {local(out)}

    small = tmp_path / "small"
    spark.range(1).selectExpr(*(f"id AS c{j}" for j in range(COLUMNS))).write.parquet(str(small / "s0"))
    for i in range(1, 50):  # 50 distinct sources, copied rather than written by 50 Spark jobs
        shutil.copytree(small / "s0", small / f"s{i}")
    wide_schema = ", ".join(f"c{j} BIGINT" for j in range(COLUMNS))  # spares 50 footer reads
    reads = [spark.read.schema(wide_schema).parquet(str(small / f"s{i}")) for i in range(50)]
    union = reduce(lambda a, b: a.unionByName(b), reads)
    union_result, union_costs = _cost(spark, union.count)
    assert len(union_result.inputs) == 50

    started = time.perf_counter()
    capture = SparkLineageCapture(spark)
    capture.start()
    start_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    capture.stop()
    stop_ms = (time.perf_counter() - started) * 1000

    print(
        f"\ncapture cost per execution: first ever (builds JVM functions) {max(cold):.0f} ms; "
        f"2,000 files / 200 partitions / {COLUMNS + 1} columns: read {max(costs):.1f} ms, "
        f"write {max(write_costs):.1f} ms; 50-way union of {COLUMNS}-column parquet reads: "
        f"{max(union_costs):.1f} ms; start() {start_ms:.1f} ms, stop() {stop_ms:.1f} ms"
    )
