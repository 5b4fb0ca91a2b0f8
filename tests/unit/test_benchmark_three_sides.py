"""The three-side benchmark's pure parts: the sides and their conf, the process order, the figures."""

from __future__ import annotations

import math

import pytest
from benchmarks.sides import LINEAGE, PLAIN
from benchmarks.three_sides import (
    JAR_LISTENER,
    SIDE_NAMES,
    figures,
    jar_conf,
    job_cpu_seconds,
    per_job,
    ratio_interval,
    side_conf,
    side_named,
    side_summary,
)
from benchmarks.three_sides_run import BENCHMARKS, child_arguments, schedule
from benchmarks.three_sides_table import HEADER, table, workloads_of


def _run(cpu: float, heap_mib: float = 100.0, job: float = 5.0, **extra: float) -> dict:
    return {
        "thread_groups": {"Executor task l": job * 0.6, "Executor task i": job * 0.4, "C2 CompilerThre": 2.0},
        "cpu_seconds": cpu,
        "py_cpu_seconds": cpu / 4,
        "jvm_cpu_seconds": cpu * 3 / 4,
        "heap_peak_bytes": heap_mib * 2**20,
        "wall_seconds": cpu / 2,
        **extra,
    }


def test_the_sides_are_plain_ours_the_jar_and_ours_beside_the_jar() -> None:
    assert SIDE_NAMES == ("plain", "lineage", "jar", "lineage_jar")
    assert [(side_named(n).operator, side_named(n).jar) for n in SIDE_NAMES] == [
        (PLAIN, False),
        (LINEAGE, False),
        (PLAIN, True),
        (LINEAGE, True),
    ]
    with pytest.raises(ValueError, match="unknown side"):
        side_named("jar_only")


def test_only_the_jar_sides_get_the_listener_with_a_file_transport() -> None:
    conf = jar_conf("/cache/openlineage-spark.jar", "/run/events.jsonl", "ns")
    assert conf == {
        "spark.jars": "/cache/openlineage-spark.jar",
        "spark.extraListeners": JAR_LISTENER,
        "spark.openlineage.transport.type": "file",
        "spark.openlineage.transport.location": "/run/events.jsonl",
        "spark.openlineage.namespace": "ns",
        "spark.openlineage.columnLineage.datasetLineageEnabled": "true",
    }
    assert side_conf(side_named("plain"), "/j.jar", "/e") == {}
    assert side_conf(side_named("lineage"), None, "/e") == {}
    assert side_conf(side_named("jar"), "/j.jar", "/e")["spark.extraListeners"] == JAR_LISTENER
    assert side_conf(side_named("lineage_jar"), "/j.jar", "/e")["spark.jars"] == "/j.jar"
    with pytest.raises(ValueError, match="needs the openlineage-spark jar"):
        side_conf(side_named("jar"), None, "/e")


def test_the_processes_alternate_the_sides_order_turning_every_cycle() -> None:
    assert schedule(2) == [*SIDE_NAMES, *reversed(SIDE_NAMES)]
    assert schedule(1, ("a", "b")) == ["a", "b"]
    assert child_arguments("task", "jar", "/w", rounds=4, warmup=2, tiny=False, jar="/j.jar") == [
        "task",
        "jar",
        "/w",
        "4",
        "2",
        "0",
        "/j.jar",
    ]
    assert set(BENCHMARKS) == {
        "three_sides_task",
        "three_sides_tiny_actions",
        "three_sides_large_plans",
        "three_sides_fresh",
    }


def test_the_ratio_is_of_geometric_means_with_an_interval_from_both_sides() -> None:
    centre, low, high = ratio_interval([2.0, 8.0], [2.0, 2.0])
    assert centre == pytest.approx(2.0)  # sqrt(2 * 8) / 2
    # only the numerator varies: sd of its logs is log(4) / sqrt(2), over sqrt(2) runs
    half = 1.959964 * math.log(4.0) / 2
    assert (low, high) == pytest.approx((2.0 * math.exp(-half), 2.0 * math.exp(half)), rel=1e-5)
    assert ratio_interval([3.0, 3.0], [1.5, 1.5]) == pytest.approx((2.0, 2.0, 2.0))
    one = ratio_interval([4.0], [2.0, 2.0])
    assert one[0] == pytest.approx(2.0)
    assert math.isnan(one[1])
    assert math.isnan(one[2])
    assert all(math.isnan(v) for v in ratio_interval([], [1.0]))
    assert ratio_interval([0.0, 2.0, 2.0], [1.0, 1.0])[0] == pytest.approx(2.0)  # non-positive left out


def test_a_side_summary_holds_medians_of_its_runs() -> None:
    summary = side_summary([_run(10.0, 300, jar_events=40), _run(12.0, 500, jar_events=44), _run(30.0, 400)])
    assert summary["runs"] == 3
    assert summary["cpu_seconds"] == 12.0
    assert summary["jvm_cpu_seconds"] == 9.0
    assert summary["heap_peak_mib"] == pytest.approx(400.0)
    assert summary["jar_events"] == 40.0


def test_the_figures_put_ours_against_plain_and_the_jar_and_judge_ours_over_the_jar() -> None:
    runs = {
        "plain": [_run(10.0), _run(10.0)],
        "lineage": [_run(10.5), _run(10.5)],
        "jar": [_run(12.0), _run(12.0)],
        "lineage_jar": [_run(12.6), _run(12.6)],
    }
    found = {figure.name: figure for figure in figures("task", runs, processes=1)}
    assert found["three_sides_task_lineage_over_plain_cpu"].value == pytest.approx(1.05)
    assert found["three_sides_task_jar_over_plain_cpu"].value == pytest.approx(1.2)
    judged = found["three_sides_task_lineage_over_jar_cpu"]
    assert judged.value == pytest.approx(10.5 / 12)
    assert judged.met is True
    assert judged.details["runs"] == {"lineage": 2, "jar": 2}
    assert found["three_sides_task_lineage_jar_over_jar_cpu"].value == pytest.approx(1.05)
    assert found["three_sides_task_jar_cpu_seconds"].value == 12.0
    assert found["three_sides_task_jar_heap_peak_mib"].value == pytest.approx(100.0)
    assert len(found) == 4 * 2 + 2 * 4  # each ratio as measured and per job
    assert found["three_sides_task_lineage_over_jar_cpu_per_job"].value == pytest.approx(10.5 / 12)

    runs["lineage"] = [_run(13.0), _run(13.0)]  # dearer than the jar: the target is missed
    assert {f.name: f for f in figures("task", runs, 1)}["three_sides_task_lineage_over_jar_cpu"].met is False


def test_per_job_takes_the_machines_speed_out_of_the_ratio() -> None:
    assert job_cpu_seconds(_run(10.0, job=4.0)) == pytest.approx(4.0)
    assert job_cpu_seconds({"cpu_seconds": 1.0}) == 0.0
    assert per_job([_run(10.0, job=4.0), _run(12.0, job=6.0)]) == pytest.approx([2.5, 2.0])
    assert per_job([_run(10.0, job=4.0), _run(12.0, job=0.0)]) == []
    # the jar's process ran while the machine was 1.5 times slower: every thread took 1.5x the CPU
    runs = {"plain": [_run(10.0, job=5.0)] * 2, "jar": [_run(15.0, job=7.5)] * 2}
    found = {figure.name: figure.value for figure in figures("task", runs, processes=1)}
    assert found["three_sides_task_jar_over_plain_cpu"] == pytest.approx(1.5)
    assert found["three_sides_task_jar_over_plain_cpu_per_job"] == pytest.approx(1.0)


def test_a_side_without_runs_leaves_out_its_ratios() -> None:
    runs = {"plain": [_run(10.0)], "lineage": [_run(11.0)], "jar": [], "lineage_jar": []}
    names = [figure.name for figure in figures("fresh", runs, processes=1)]
    assert names == [
        "three_sides_fresh_lineage_over_plain_cpu",
        "three_sides_fresh_lineage_over_plain_cpu_per_job",
        "three_sides_fresh_plain_cpu_seconds",
        "three_sides_fresh_plain_heap_peak_mib",
        "three_sides_fresh_lineage_cpu_seconds",
        "three_sides_fresh_lineage_heap_peak_mib",
    ]


def test_the_results_table_has_a_row_per_line_and_workload_from_the_runs_json() -> None:
    runs = {
        side: [_run(cpu), _run(cpu)] for side, cpu in zip(SIDE_NAMES, (10.0, 10.5, 12.0, 12.6), strict=True)
    }
    task = [figure.as_json() for figure in figures("task", runs, processes=1)]
    fresh = [figure.as_json() for figure in figures("fresh", {**runs, "lineage_jar": []}, processes=1)]
    text = table([("4.3.0", task + fresh), ("3.5.9", task)])
    header, _rule, *rows = text.splitlines()
    assert header == HEADER
    task_ratios = "| 1.050 [1.05-1.05] | 1.200 [1.20-1.20] | 0.875 [0.87-0.87] | 1.050 [1.05-1.05] "
    assert (
        rows[0]
        == f"| 4.3.0 | task | as measured {task_ratios}| 10.0, 10.5, 12.0, 12.6 | 100, 100, 100, 100 | 2 |"
    )
    assert rows[1].startswith("| 4.3.0 | task | per job | 1.050 [1.05-1.05] | 1.200")
    assert rows[1].endswith("|  |  |  |")  # the per-side columns only in the first row
    assert rows[2] == (
        "| 4.3.0 | fresh | as measured | 1.050 [1.05-1.05] | 1.200 [1.20-1.20] | 0.875 [0.87-0.87] | - "
        "| 10.0, 10.5, 12.0, - | 100, 100, 100, - | 2 |"
    )
    assert [r.split(" | ")[:3] for r in rows[3:]] == [
        ["| 4.3.0", "fresh", "per job"],
        ["| 3.5.9", "task", "as measured"],
        ["| 3.5.9", "task", "per job"],
    ]
    assert workloads_of(task + fresh) == ["task", "fresh"]
    single = [f.as_json() for f in figures("task", {"plain": [_run(10.0)], "lineage": [_run(11.0)]}, 1)]
    assert table([("x", single)]).splitlines()[2].split(" | ")[3] == "1.100"  # no interval from one run


def test_the_t_quantile_is_students() -> None:
    from benchmarks.three_sides import t_quantile_975

    # exact values: 2.571 (5), 2.228 (10), 2.093 (19), 2.042 (30), 1.984 (100)
    for degrees, exact in ((5, 2.5706), (10, 2.2281), (19, 2.0930), (30, 2.0423), (100, 1.9840)):
        assert t_quantile_975(degrees) == pytest.approx(exact, rel=2e-3)


def test_paired_ratios_take_each_pairs_ratio_so_a_shared_drift_cancels() -> None:
    from benchmarks.three_sides import paired_ratio_interval

    drift = [10.0 * 1.5**i for i in range(6)]  # the machine slows 1.5x a round
    ours = [d * 1.02 for d in drift]
    centre, low, high = paired_ratio_interval(ours, drift)
    assert centre == pytest.approx(1.02)
    assert low == pytest.approx(1.02)
    assert high == pytest.approx(1.02)
    # unpaired, the drift swamps the same 2%
    _, unpaired_low, unpaired_high = ratio_interval(ours, drift)
    assert unpaired_low < 0.5
    assert unpaired_high > 2


def test_paired_interval_from_the_pairs_spread() -> None:
    from benchmarks.three_sides import paired_ratio_interval, t_quantile_975

    logs = [0.01, 0.03, -0.01, 0.05, 0.02]
    centre, low, high = paired_ratio_interval([math.exp(x) for x in logs], [1.0] * 5)
    mean = sum(logs) / 5
    half = t_quantile_975(4) * (sum((x - mean) ** 2 for x in logs) / 4) ** 0.5 / 5**0.5
    assert centre == pytest.approx(math.exp(mean))
    assert (low, high) == pytest.approx((math.exp(mean - half), math.exp(mean + half)))
    assert math.isnan(paired_ratio_interval([1.0], [2.0])[1])
    assert math.isnan(paired_ratio_interval([0.0], [2.0])[0])


def test_fresh_figures_pair_the_rounds_and_judge_ours_against_plain_and_the_jar() -> None:
    from benchmarks.three_sides_fresh import figures as fresh_figures

    rounds = [30.0, 45.0, 33.0, 40.0]
    factors = {"plain": 1.0, "lineage": 1.01, "lineage_compiling": 1.05, "jar": 1.03}
    runs = {
        side: [_run(cpu * factor, process_wall_seconds=cpu * factor * 3) for cpu in rounds]
        for side, factor in factors.items()
    }
    found = {figure.name: figure for figure in fresh_figures(runs)}
    over_plain = found["three_sides_fresh_lineage_over_plain_cpu"]
    assert over_plain.value == pytest.approx(1.01)
    assert over_plain.met is True  # <= 1.03
    assert over_plain.details["pairs"] == 4
    assert found["three_sides_fresh_lineage_over_jar_cpu"].value == pytest.approx(1.01 / 1.03)
    assert found["three_sides_fresh_lineage_over_lineage_compiling_cpu"].value == pytest.approx(1.01 / 1.05)
    assert found["three_sides_fresh_lineage_over_lineage_compiling_wall"].value == pytest.approx(1.01 / 1.05)
    assert found["three_sides_fresh_lineage_compiling_over_plain_cpu"].target is None
    assert found["three_sides_fresh_jar_cpu_seconds"].details["process_wall_seconds"] == pytest.approx(
        (33.0 + 40.0) / 2 * 1.03 * 3
    )
    # a side that did not run gives no ratio with it
    assert not any(
        "jar" in name
        for name in (f.name for f in fresh_figures({k: v for k, v in runs.items() if k != "jar"}))
    )
