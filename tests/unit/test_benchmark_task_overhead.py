"""task_overhead's figure: the geometric mean of every round's paired ratio, with its interval (no Spark)."""

from __future__ import annotations

import math

import pytest
from benchmarks.settings import Settings
from benchmarks.sides import LINEAGE, PLAIN
from benchmarks.task_overhead import (
    FULL_PROCESSES,
    figures,
    first_side,
    geometric_mean_ratio,
    paired_log_ratios,
)


def _report(plain: list[float], lineage: list[float]) -> dict:
    return {
        "capture_landed": True,
        "workload": {"tables": 10, "rows": 200_000, "spark_actions": 62},
        "runs": {
            "plain": [{"seconds": s, "facets_seconds": 0.0} for s in plain],
            "lineage": [
                {"seconds": s, "facets_seconds": 0.01, "busy_seconds": 0.1, "lifecycle_seconds": 0.02}
                for s in lineage
            ],
        },
        "last_capture": {"busy_seconds": 0.1},
        "last_datasets": {"inputs": 3, "outputs": 2},
    }


def test_the_figure_is_the_geometric_mean_of_every_paired_round() -> None:
    reports = [
        _report([10.0, 10.0, 10.0], [10.0, 10.0, 10.0]),  # 1.00
        _report([8.0, 8.0, 8.0], [8.4, 8.4, 8.4]),  # 1.05: an odd process
        _report([9.0, 9.0, 9.0], [9.09, 9.09, 9.09]),  # 1.01
    ]
    overhead, capture_share, on_task_thread, mean_ratio = figures(reports)
    assert overhead.name == "task_overhead_ratio"
    assert overhead.value == pytest.approx((1.0 * 1.05 * 1.01) ** (1 / 3))
    assert overhead.met is True  # 1.0198
    assert overhead.details["pairs"] == 9
    low, high = overhead.details["ci95"]
    assert low < overhead.value < high
    # the old figure, kept in the details: the median process
    assert overhead.details["median_process_ratio"] == pytest.approx(1.01)
    assert overhead.details["process_ratios"] == pytest.approx([1.0, 1.05, 1.01])
    assert overhead.details["mean_process_ratio"] == pytest.approx(1.02)
    # Pooled over all nine runs, the medians come from different processes: 9.09 / 9.0.
    assert overhead.details["pooled_ratio"] == pytest.approx(9.09 / 9.0)
    assert mean_ratio.value == pytest.approx((30 + 25.2 + 27.27) / 81)
    assert on_task_thread.value == pytest.approx(0.03 / 9.09)
    assert capture_share.value == pytest.approx(0.11 / 9.09)
    assert overhead.details["last_datasets"] == {"inputs": 3, "outputs": 2}
    assert overhead.details["workload"]["spark_actions"] == 62


def test_the_interval_narrows_with_more_pairs_and_needs_two() -> None:
    noisy = [math.log(r) for r in (0.95, 1.07, 1.01, 0.99, 1.06, 1.02)]
    centre, low, high = geometric_mean_ratio(noisy)
    assert low < centre < high
    _, low4, high4 = geometric_mean_ratio(noisy * 4)
    assert high4 - low4 == pytest.approx((high - low) / 2, rel=0.1)
    assert math.isnan(geometric_mean_ratio([0.01])[1])
    assert math.isnan(geometric_mean_ratio([])[0])


def test_pairs_are_the_rounds_of_one_process() -> None:
    report = _report([8.0, 10.0], [8.8, 9.0])
    assert [round(math.exp(v), 3) for v in paired_log_ratios(report)] == [1.1, 0.9]


def test_two_odd_processes_out_of_three_miss_the_target() -> None:
    reports = [_report([8.0], [8.4]), _report([8.0], [8.32]), _report([9.0], [9.0])]
    assert figures(reports)[0].met is False


def test_processes_default_to_one_when_tiny_and_can_be_set() -> None:
    assert Settings(tiny=True, work_dir=None).processes_or(3) == 1  # type: ignore[arg-type]
    assert Settings(tiny=False, work_dir=None).processes_or(3) == 3  # type: ignore[arg-type]
    assert Settings(tiny=False, work_dir=None, processes=5).processes_or(3) == 5  # type: ignore[arg-type]


def test_the_side_that_opens_the_rounds_turns_from_process_to_process() -> None:
    assert [first_side(number) for number in range(4)] == [PLAIN, LINEAGE, PLAIN, LINEAGE]
    assert FULL_PROCESSES % 2 == 0  # each order equally often in a full run
    reports = [_report([9.0], [9.0]) | {"first_side": first_side(number)} for number in range(2)]
    assert [process["first_side"] for process in figures(reports)[0].details["processes"]] == [PLAIN, LINEAGE]
