"""The large-plan job's COMPLETE event alone: its size and what each facet contributes.

``python -m benchmarks.event_size [--scale N ...] [--tiny]`` runs the library side of the
large-plan benchmark (:mod:`benchmarks.large_plans`) once per scale, with no baseline and no
timing (the event does not depend on either), and prints the event's bytes with the bytes of each
dataset facet kind (``subset``, ``columnLineage``, ``schema``...). It answers "how big is the
event and why" in one run of the job, where the full benchmark alternates timed rounds of both
sides at two scales. Nothing is recorded in RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from benchmarks.environment import configure_process_environment

configure_process_environment()

from benchmarks import large_job  # noqa: E402
from benchmarks.event import EventInspection, complete_event_json, inspect_event  # noqa: E402
from benchmarks.large_plans import DAG_ID, generate_data, run_job  # noqa: E402
from benchmarks.sides import LINEAGE, TASK_ID  # noqa: E402


def measure(scale: int, unit: large_job.LargePlanShape, work: Path) -> EventInspection:
    """Generate the scale's data, run the library side once, inspect its COMPLETE event."""
    data = generate_data(work, unit.scaled(scale))
    side = run_job(LINEAGE, data, work / "run")
    return inspect_event(complete_event_json(side.lineage, f"{DAG_ID}.{TASK_ID}"), data.file_names())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.event_size", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--scale", type=int, nargs="+", default=[10], help="scales of the unit (default: 10)")
    parser.add_argument("--tiny", action="store_true", help="the tiny unit instead of the full one")
    arguments = parser.parse_args(argv)
    unit = large_job.TINY_UNIT if arguments.tiny else large_job.FULL_UNIT
    for scale in arguments.scale:
        with tempfile.TemporaryDirectory(prefix="lineage-event-size-") as scratch:
            inspection = measure(scale, unit, Path(scratch))
        shape = unit.scaled(scale).describe()
        print(json.dumps({"scale": scale, "shape": shape, **inspection.as_json()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
