"""What column-lineage descriptions cost on the large-plan job: event bytes and capture time, on vs off.

``python -m benchmarks.descriptions_cost [--scale N] [--rounds R] [--tiny]`` generates the
large-plan benchmark's data (:mod:`benchmarks.large_plans`) once, then runs the library side
``R`` times with ``column_lineage_descriptions`` off and on, alternating (the same run, the same
data, so the machine's noise falls on both), through the ``[lineage_operators]`` config's
environment variable. Prints, per setting, the COMPLETE event's bytes and its ``columnLineage``
bytes, the capture's busy seconds (the probe's union of capture intervals plus the facet call)
and the Python process CPU seconds of the task. Nothing is recorded in RESULTS.md: the figures
decided the switch's default (see ``lineage_operators.column_lineage.settings``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.environment import configure_process_environment

configure_process_environment()

from benchmarks import large_job  # noqa: E402
from benchmarks.event import complete_event_json, inspect_event  # noqa: E402
from benchmarks.large_plans import DAG_ID, generate_data, run_job  # noqa: E402
from benchmarks.probe import CaptureProbe  # noqa: E402
from benchmarks.sides import LINEAGE, TASK_ID  # noqa: E402

SWITCH = "AIRFLOW__LINEAGE_OPERATORS__COLUMN_LINEAGE_DESCRIPTIONS"


def one_run(setting: bool, data: Any, work: Path, probe: CaptureProbe, number: int) -> dict[str, Any]:
    os.environ[SWITCH] = "True" if setting else "False"
    probe.reset()
    cpu = time.process_time()
    side = run_job(LINEAGE, data, work / f"run-{number}-{setting}")
    cpu = time.process_time() - cpu
    report = probe.report()
    event = inspect_event(complete_event_json(side.lineage, f"{DAG_ID}.{TASK_ID}"), data.file_names())
    return {
        "descriptions": setting,
        "event_bytes": event.bytes,
        "column_lineage_bytes": event.facet_bytes.get("columnLineage", 0),
        "capture_seconds": report.busy_seconds + side.facets_seconds,
        "task_seconds": side.seconds,
        "python_cpu_seconds": cpu,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.descriptions_cost", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--scale", type=int, default=10, help="scale of the unit (default: 10)")
    parser.add_argument("--rounds", type=int, default=2, help="runs per setting (default: 2)")
    parser.add_argument("--tiny", action="store_true", help="the tiny unit instead of the full one")
    arguments = parser.parse_args(argv)
    unit = large_job.TINY_UNIT if arguments.tiny else large_job.FULL_UNIT
    probe = CaptureProbe()
    with tempfile.TemporaryDirectory(prefix="lineage-descriptions-") as scratch, probe.installed():
        work = Path(scratch)
        data = generate_data(work, unit.scaled(arguments.scale))
        for number in range(arguments.rounds):
            for setting in (False, True) if number % 2 == 0 else (True, False):
                row = one_run(setting, data, work, probe, number)
                print(json.dumps({"scale": arguments.scale, "round": number, **row}), flush=True)
    os.environ.pop(SWITCH, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
