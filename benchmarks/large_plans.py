"""Benchmark 2, large plans: what capture costs when Spark's plans are big, and how that grows.

The job (:mod:`benchmarks.large_job`) runs at scale 1 and at scale 10 (the issue's size), each
side alternating. On the library side the probe times the capture from outside (listener
callbacks, start, stop: the union of those intervals) and the runner times
``get_openlineage_facets_on_complete``; their sum is the capture cost.

Figures (at scale 10 unless named otherwise):
* capture cost / task wall time: target < 1%;
* capture cost at scale 10 / at scale 1: target <= 12 (linear growth allows 10, plus noise);
* the COMPLETE event: bytes (target <= 1 MiB, the default message limit of Kafka, a common
  OpenLineage transport), datasets named after single files (target 0), plan dumps (target 0),
  output columns with column lineage (target > 0: the library side runs with column lineage on,
  the operator's default).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import large_job
from benchmarks.alternation import alternate, median, progress, ratio
from benchmarks.environment import SPARK_MASTER, spark_conf
from benchmarks.event import EventInspection, complete_event_json, inspect_event
from benchmarks.figures import Figure, Target
from benchmarks.probe import CaptureProbe, ProbeReport
from benchmarks.settings import Settings
from benchmarks.sides import LINEAGE, PLAIN, TASK_ID, SideRun, run_in_own_session, run_side

NAME = "large_plan"
DAG_ID = "bench_large_plan"
FULL_SCALES = (1, 10)
TINY_SCALES = (1, 2)
# Rounds per scale on a full run: the scale-10 job takes a minute or two a side on 2 cores, and its
# figures (fractions within one run) do not need the baseline to repeat.
FULL_ROUNDS = {1: 3, 10: 1}
EVENT_BYTES_LIMIT = 1024 * 1024


@dataclass
class Outcome:
    run: SideRun
    capture: ProbeReport | None = None
    event: EventInspection | None = None

    @property
    def capture_seconds(self) -> float:
        busy = self.capture.busy_seconds if self.capture else 0.0
        return busy + self.run.facets_seconds


@dataclass
class ScaleResult:
    scale: int
    shape: large_job.LargePlanShape
    runs: dict[str, list[Outcome]] = field(default_factory=dict)

    def lineage(self) -> list[Outcome]:
        return self.runs[LINEAGE]

    def median_capture_seconds(self) -> float:
        return median([o.capture_seconds for o in self.lineage()])

    def median_capture_fraction(self) -> float:
        return median([ratio(o.capture_seconds, o.run.seconds) for o in self.lineage()])

    def task_ratio(self) -> float:
        return ratio(
            median([o.run.seconds for o in self.runs[LINEAGE]]),
            median([o.run.seconds for o in self.runs[PLAIN]]),
        )

    def summary(self) -> dict[str, Any]:
        last = self.lineage()[-1]
        return {
            "shape": self.shape.describe(),
            "plain_seconds": [o.run.seconds for o in self.runs[PLAIN]],
            "lineage_seconds": [o.run.seconds for o in self.lineage()],
            "capture_seconds": [o.capture_seconds for o in self.lineage()],
            "facets_seconds": [o.run.facets_seconds for o in self.lineage()],
            "capture_fraction": self.median_capture_fraction(),
            "last_capture": last.capture.as_json() if last.capture else None,
            "last_event": last.event.as_json() if last.event else None,
        }


def run(settings: Settings) -> list[Figure]:
    unit = large_job.TINY_UNIT if settings.tiny else large_job.FULL_UNIT
    scales = TINY_SCALES if settings.tiny else FULL_SCALES
    probe = CaptureProbe()
    results: list[ScaleResult] = []
    with probe.installed() as capture_landed:
        if not capture_landed:
            progress(f"{NAME}: SparkLineageCapture is not there yet; capture cost is the lineage call only")
        for scale in scales:
            results.append(run_scale(settings, probe, scale, unit.scaled(scale), first=scale == scales[0]))
    return figures(results, capture_landed)


def run_scale(
    settings: Settings, probe: CaptureProbe, scale: int, shape: large_job.LargePlanShape, *, first: bool
) -> ScaleResult:
    scratch = settings.scratch(f"{NAME}-{scale}x")
    progress(f"{NAME}: generating {shape.describe()} (scale {scale})")
    data = generate_data(scratch, shape)
    file_names = data.file_names()
    result = ScaleResult(scale, shape)

    def one(side: str, number: int) -> Outcome:
        run_dir = scratch / f"{number}-{side}"
        probe.reset()
        try:
            side_run = run_job(side, data, run_dir)
        finally:
            shutil.rmtree(run_dir, ignore_errors=True)
        if side == PLAIN:
            return Outcome(side_run)
        event = complete_event_json(side_run.lineage, f"{DAG_ID}.{TASK_ID}")
        return Outcome(side_run, probe.report(), inspect_event(event, file_names))

    rounds = settings.rounds_or(FULL_ROUNDS.get(scale, 2))
    warmup = settings.warmup_rounds() if first else 0
    result.runs = alternate(
        f"{NAME} {scale}x", rounds, one, warmup_rounds=warmup, seconds_of=lambda o: o.run.seconds
    )
    shutil.rmtree(scratch, ignore_errors=True)
    return result


def generate_data(scratch: Path, shape: large_job.LargePlanShape) -> large_job.LargePlanData:
    """The job's input data under ``scratch/data``, written by a Spark session of its own."""
    setup_conf = spark_conf(f"{DAG_ID}.setup", str(scratch / "setup-warehouse"))
    return run_in_own_session(
        lambda spark: large_job.generate(spark, scratch / "data", shape), {}, SPARK_MASTER, setup_conf
    )


def run_job(side: str, data: large_job.LargePlanData, run_dir: Path) -> SideRun:
    """One run of the large-plan job by ``side``, writing and keeping its warehouse under ``run_dir``."""
    return run_side(
        side,
        DAG_ID,
        large_job.large_plan_job,
        {"data_root": str(data.root), "shape": data.shape, "output": str(run_dir / "out")},
        warehouse_dir=str(run_dir / "warehouse"),
    )


def figures(results: list[ScaleResult], capture_landed: bool) -> list[Figure]:
    smallest, largest = results[0], results[-1]
    event = largest.lineage()[-1].event
    assert event is not None
    details = {
        "capture_landed": capture_landed,
        "scales": {f"{r.scale}x": r.summary() for r in results},
    }
    growth = ratio(largest.median_capture_seconds(), smallest.median_capture_seconds())
    return [
        Figure(f"{NAME}_capture_fraction", largest.median_capture_fraction(), Target("<", 0.01), details),
        Figure(
            f"{NAME}_capture_growth_{largest.scale}x",
            growth,
            Target("<=", 12.0),
            {f"capture_seconds_{r.scale}x": r.median_capture_seconds() for r in results},
        ),
        Figure(f"{NAME}_event_bytes", float(event.bytes), Target("<=", EVENT_BYTES_LIMIT), event.as_json()),
        Figure(f"{NAME}_event_per_file_datasets", float(event.per_file_datasets), Target("==", 0)),
        Figure(f"{NAME}_event_plan_dumps", float(event.plan_dumps), Target("==", 0)),
        Figure(f"{NAME}_event_datasets", float(event.input_datasets + event.output_datasets)),
        Figure(
            f"{NAME}_event_column_lineage_fields",
            float(event.column_lineage_fields),
            Target(">", 0),
            {
                "input_fields": event.column_lineage_input_fields,
                "meaning": "column lineage was on and emitted",
            },
        ),
        Figure(
            f"{NAME}_task_ratio", largest.task_ratio(), None, {"meaning": "library / plain task time, info"}
        ),
        Figure(f"{NAME}_capture_fraction_{smallest.scale}x", smallest.median_capture_fraction()),
    ]
