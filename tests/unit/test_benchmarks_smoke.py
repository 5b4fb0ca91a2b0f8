"""Keep the benchmarks runnable: ``--tiny`` must produce every figure, finite, and record nothing.

No timing is asserted: a tiny run's numbers mean nothing. The pure helpers the figures depend on
(interval union, targets, the event inspection) are checked directly; RESULTS.md's update in
test_benchmark_results.py.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.event import inspect_event  # noqa: E402
from benchmarks.figures import Figure, Target  # noqa: E402
from benchmarks.probe import union_length  # noqa: E402

EXPECTED_FIGURES = {
    "task_overhead_ratio",
    "task_overhead_capture_fraction",
    "task_overhead_task_thread_fraction",
    "task_overhead_mean_ratio",
    "large_plan_capture_fraction",
    "large_plan_capture_growth_2x",
    "large_plan_event_bytes",
    "large_plan_event_per_file_datasets",
    "large_plan_event_plan_dumps",
    "large_plan_event_datasets",
    "large_plan_event_column_lineage_fields",
    "large_plan_task_ratio",
    "large_plan_capture_fraction_1x",
    "parse_time_ratio",
    "parse_time_ratio_preimported",
    "parse_heavy_modules_beyond_baseline",
    "parse_spark_or_openlineage_client_modules",
    "memory_peak_rss_ratio",
    "memory_peak_rss_ratio_jvm",
    "memory_peak_rss_ratio_without_provider_baseline",
    "memory_python_extra_mib",
    "fresh_process_task_time_ratio",
    "plugin_plain_dag_cpu_ratio",
    "plugin_plain_dag_wall_ratio",
    "transport_down_closed_ratio",
    "transport_down_hanging_ratio",
    "connect_overhead_ratio",
    "connect_overhead_capture_fraction",
    "many_tiny_actions_ratio",
    "many_tiny_actions_execution_ms_other",
    "many_tiny_actions_execution_ms_write",
    "many_tiny_actions_callback_ms",
    "fresh_process_wall_ratio",
    "fresh_process_task_ratio",
    "quality_checks_cpu_ratio",
    "quality_checks_in_flight_over_second_pass",
    "quality_checks_metrics_cpu_ratio",
    "quality_checks_wall_ratio",
    "quality_checks_extra_jobs",
}
# A tiny run is ~40 s on an idle 2-core machine; the limit only stops a hung run.
TINY_TIMEOUT_SECONDS = 600


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], list[dict]]:
    results = ROOT / "benchmarks" / "RESULTS.md"
    before = results.read_bytes()
    output = tmp_path_factory.mktemp("bench") / "figures.json"
    scratch = tmp_path_factory.mktemp("bench-tmp")  # the benchmarks' temporary folder
    started = time.monotonic()
    completed = subprocess.run(
        [sys.executable, "-m", "benchmarks.run", "--tiny", "--json", str(output)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TINY_TIMEOUT_SECONDS,
        check=False,
        env={**os.environ, "TMPDIR": str(scratch)},
    )
    print(f"benchmarks --tiny took {time.monotonic() - started:.0f}s")
    assert completed.returncode == 0, completed.stdout + completed.stderr[-4000:]
    assert results.read_bytes() == before, "--tiny must not change RESULTS.md"
    left = sorted(p.name for p in scratch.iterdir() if p.name.startswith(("lineage-", "tmp")))
    assert left == [], left  # plan JSON files, lineage-bench-transport-* folders...
    return completed, json.loads(output.read_text())


def test_tiny_run_produces_every_figure_as_a_finite_number(tiny_run):
    completed, figures = tiny_run
    values = {figure["name"]: figure["value"] for figure in figures}
    assert set(values) == EXPECTED_FIGURES
    assert all(isinstance(v, (int, float)) and math.isfinite(v) for v in values.values()), values
    lines = completed.stdout.strip().splitlines()
    assert [line.split()[0] for line in lines] == [figure["name"] for figure in figures]
    assert all(line.endswith((" OK", " MISSED", "(info)")) for line in lines), lines


def test_union_length_counts_overlaps_once():
    assert union_length([]) == 0
    assert union_length([(0, 2), (1, 3), (5, 6)]) == pytest.approx(4)
    assert union_length([(0, 10), (2, 3)]) == pytest.approx(10)


def test_targets_and_lines():
    assert Figure("x", 1.013, Target("<=", 1.02)).line() == "x 1.013 (target <= 1.020) OK"
    assert Figure("x", 0.02, Target("<", 0.01)).line().endswith("MISSED")
    assert Figure("n", 0.0, Target("==", 0)).met
    assert not Target("<=", 1.0).met_by(math.nan)
    assert Figure("x", 3.0).line() == "x 3 (info)"
    assert Figure("n", 2.0, Target(">", 0)).met
    assert not Figure("n", 0.0, Target(">", 0)).met


def test_event_inspection_flags_per_file_datasets_and_plan_dumps():
    event = {
        "inputs": [{"namespace": "file", "name": "/data/events/part=0001/f000.parquet"}],
        "outputs": [{"namespace": "file", "name": "/data/out"}],
        "job": {"facets": {"spark.logicalPlan": {"plan": "Project\n+- Relation[a] parquet"}}},
    }
    inspection = inspect_event(json.dumps(event), {"f000.parquet"})
    assert (inspection.input_datasets, inspection.output_datasets) == (1, 1)
    assert inspection.per_file_datasets == 1
    assert inspection.plan_dumps == 2


def test_event_inspection_counts_column_lineage():
    lineage = {"fields": {"a": {"inputFields": [{}, {}]}, "b": {"inputFields": [{}]}}, "dataset": []}
    event = {"outputs": [{"namespace": "file", "name": "/o", "facets": {"columnLineage": lineage}}]}
    inspection = inspect_event(json.dumps(event), set())
    assert (inspection.column_lineage_fields, inspection.column_lineage_input_fields) == (2, 3)


def test_event_inspection_measures_each_facet():
    subset = {"inputCondition": {"type": "location", "locations": ["/e/dt=1", "/e/dt=2"]}}
    event = {
        "inputs": [
            {
                "namespace": "file",
                "name": "/e",
                "facets": {"schema": {"fields": []}},
                "inputFacets": {"subset": subset},
            }
        ],
        "outputs": [{"namespace": "file", "name": "/o", "facets": {"schema": {"fields": []}}}],
    }
    text = json.dumps(event, sort_keys=True)
    sizes = inspect_event(text, set()).facet_bytes
    assert sizes["subset"] == len('"subset": ' + json.dumps(subset, sort_keys=True))
    assert sizes["schema"] == 2 * len('"schema": {"fields": []}')


def test_the_probes_count_the_jvm_side_read_a_queued_execution_came_with():
    """A read given the queue's reply was read JVM-side, in the reader's call that took it: the
    probes count that call's time and round trip, so the figures do not look cheaper than they are."""
    from benchmarks.execution_costs import ExecutionCostProbe
    from benchmarks.probe import _jvm_read_seconds

    from lineage_operators.spark.listen.execution_queue import QueuedReply

    reply = QueuedReply("text", jvm_ms=2.5)
    assert _jvm_read_seconds(("count", None, True, reply), {}) == 0.0025
    assert _jvm_read_seconds(("count", None, True), {"reply": reply}) == 0.0025
    assert _jvm_read_seconds(("count", None, True), {}) == 0.0

    probe = ExecutionCostProbe()

    def read(reader: object, func_name: str, qe: object, succeeded: bool, reply: object = None) -> object:
        return type("Facts", (), {"outputs": [], "root": "x.Aggregate"})()

    timed = probe._timing(read)
    timed(None, "count", None, True, reply)
    timed(None, "count", None, True)
    queued, called = probe.costs()
    assert (queued.round_trips, queued.ms >= 2.5) == (1, True)
    assert (called.round_trips, called.ms < 2.5) == (0, True)


def test_quality_checks_figures_compare_the_in_flight_checks_with_a_second_pass() -> None:
    from benchmarks.quality_checks import CHECKED, METRICS, PLAIN, SECOND_PASS, WriteRun, figures

    def side(cpu: float, jobs: int = 1) -> list[WriteRun]:
        return [WriteRun(seconds=cpu, cpu_seconds=cpu, jobs=jobs)] * 3

    runs = {PLAIN: side(10.0), METRICS: side(10.3), CHECKED: side(13.0), SECOND_PASS: side(18.0, jobs=2)}
    by_name = {f.name: f for f in figures(runs, rows=1, checks=10)}
    assert by_name["quality_checks_in_flight_over_second_pass"].value == pytest.approx(3.0 / 8.0)
    assert by_name["quality_checks_metrics_cpu_ratio"].value == pytest.approx(1.03)
    assert by_name["quality_checks_cpu_ratio"].value == pytest.approx(1.3)
    assert by_name["quality_checks_cpu_ratio"].target is None
    assert by_name["quality_checks_extra_jobs"].value == 0
