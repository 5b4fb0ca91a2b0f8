"""What column-lineage descriptions cost on the large-plan job: event bytes and capture time, on vs off.

``python -m benchmarks.descriptions_cost [--scale N] [--rounds R] [--tiny]`` generates the
large-plan benchmark's data (:mod:`benchmarks.large_plans`) once, then runs the library side
``R`` times with ``column_lineage_descriptions`` off and on, alternating (the same run, the same
data, so the machine's noise falls on both), through the ``[lineage_operators]`` config's
environment variable. Prints, per setting, the COMPLETE event's bytes and its ``columnLineage``
bytes, the capture's busy seconds (the probe's union of capture intervals plus the facet call)
and the Python process CPU seconds of the task. Nothing is recorded in RESULTS.md: the figures
decided the switch's default (see ``lineage_operators.column_lineage.settings``).

``--computed N``: the large-plan job writes its columns as read (bare columns have no text), so
this also writes ``N`` computed columns (a ``CASE WHEN`` over a cast per column, of the large-plan
job's event table), captured in-process with descriptions off and on, and prints the
``columnLineage`` facet's bytes and the capture's seconds for each: the cost where texts exist.
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


def computed_columns(columns: int, work: Path) -> list[dict[str, Any]]:
    """Facet bytes and capture seconds of a write of ``columns`` computed columns, off then on."""
    from openlineage.client.serde import Serde
    from pyspark.sql import SparkSession

    from lineage_operators.column_lineage.settings import ColumnLineageSettings
    from lineage_operators.spark.capture.chooser import new_capture

    spark = SparkSession.builder.master("local[2]").appName("descriptions_cost").getOrCreate()
    source = work / "events"
    spark.range(1000).selectExpr(*large_job.event_columns(columns)).write.parquet(str(source))
    frame = spark.read.parquet(str(source))
    computed = [
        f"CASE WHEN key > 10 THEN CAST({name} AS STRING) ELSE concat('small-', CAST({name} AS STRING)) END"
        f" AS {name}"
        for name in frame.columns
    ]
    rows = []
    for number, setting in enumerate((False, True, False, True)):
        capture = new_capture(spark, column_lineage=ColumnLineageSettings(descriptions=setting))
        started = time.perf_counter()
        capture.start()
        frame.selectExpr(*computed).write.parquet(str(work / f"out-{number}"))
        result = capture.stop()
        seconds = time.perf_counter() - started
        facets = [d.facets["columnLineage"] for d in result.outputs if "columnLineage" in d.facets]
        rows.append(
            {
                "computed_columns": columns,
                "descriptions": setting,
                "column_lineage_bytes": sum(len(Serde.to_json(f)) for f in facets),
                "write_and_capture_seconds": seconds,
            }
        )
    spark.stop()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.descriptions_cost", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--scale", type=int, default=10, help="scale of the unit (default: 10)")
    parser.add_argument("--rounds", type=int, default=2, help="runs per setting (default: 2)")
    parser.add_argument("--tiny", action="store_true", help="the tiny unit instead of the full one")
    parser.add_argument("--computed", type=int, default=0, help="only the computed-columns write")
    arguments = parser.parse_args(argv)
    if arguments.computed:
        with tempfile.TemporaryDirectory(prefix="lineage-descriptions-") as scratch:
            for row in computed_columns(arguments.computed, Path(scratch)):
                print(json.dumps(row), flush=True)
        return 0
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
