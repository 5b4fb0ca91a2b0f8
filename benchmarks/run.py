"""Run the benchmarks: ``python -m benchmarks.run [--tiny] [--only NAME ...] [--json PATH]``.

Prints one line per figure with its target on stdout (progress goes to stderr) and, unless
``--tiny`` or ``--no-record``, puts the figures in ``benchmarks/RESULTS.md`` in place of the same
Spark line's older ones (:mod:`benchmarks.results`) and redraws its plot (:mod:`benchmarks.plot`).
``--tiny`` runs each benchmark once at a tiny size: it proves the harness works, and its numbers
mean nothing, so they are never recorded. ``--profile`` writes pyinstrument profiles instead.

Exit status: 0 when every benchmark produced its figures (missed targets are reported, not
errors, unless ``--strict``), 1 when a benchmark failed, 2 with ``--strict`` and a missed target.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from benchmarks.environment import configure_process_environment

configure_process_environment()

from benchmarks import (  # noqa: E402
    class_cache_cost,
    connect_overhead,
    fresh_process,
    large_plans,
    many_tiny_actions,
    memory,
    parse_cost,
    plot,
    plugin_overhead,
    profiling,
    quality_checks,
    results,
    task_overhead,
    three_sides_run,
    transport_down,
)
from benchmarks.alternation import progress  # noqa: E402
from benchmarks.environment import machine_description, versions  # noqa: E402
from benchmarks.figures import Figure  # noqa: E402
from benchmarks.probe import capture_available  # noqa: E402
from benchmarks.settings import Settings  # noqa: E402

# Benchmarks that run Spark in this process; the others start child processes.
IN_PROCESS = (
    "large_plans",
    "connect_overhead",
    "many_tiny_actions",
    "many_tiny_actions_500",
    "quality_checks",
)
BENCHMARKS: dict[str, Callable[[Settings], list[Figure]]] = {
    "task_overhead": task_overhead.run,
    "large_plans": large_plans.run,
    "parse": parse_cost.run,
    "memory": memory.run,
    "transport_down": transport_down.run,
    "plugin": plugin_overhead.run,
    "connect_overhead": connect_overhead.run,
    "many_tiny_actions": many_tiny_actions.run,
    "fresh_process": fresh_process.run,
    "many_tiny_actions_500": many_tiny_actions.run_500,
    "quality_checks": quality_checks.run,
    "class_cache": class_cache_cost.run,
    **three_sides_run.BENCHMARKS,
}
#: Run only when named with ``--only`` (long variants of a default benchmark; the three-side
#: comparison with the openlineage-spark jar).
ON_REQUEST = ("many_tiny_actions_500", "class_cache", *three_sides_run.BENCHMARKS)


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="each benchmark once, tiny size; never recorded")
    parser.add_argument("--only", nargs="+", choices=sorted(BENCHMARKS), help="run only these benchmarks")
    parser.add_argument("--rounds", type=int, help="measured rounds per benchmark (default: each its own)")
    parser.add_argument(
        "--processes", type=_positive, help="processes of task_overhead, each running --rounds (default: 4)"
    )
    parser.add_argument("--results", type=Path, default=results.RESULTS_FILE, help="RESULTS.md to update")
    parser.add_argument("--no-record", action="store_true", help="leave RESULTS.md as it is")
    parser.add_argument("--json", type=Path, help="also write every figure, with details, as JSON here")
    parser.add_argument(
        "--profile", action="store_true", help="write pyinstrument profiles, run nothing else"
    )
    parser.add_argument("--strict", action="store_true", help="exit 2 when a target is missed")
    return parser.parse_args(argv)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lineage-bench-") as scratch:
        settings = Settings(
            tiny=arguments.tiny,
            work_dir=Path(scratch),
            rounds=arguments.rounds,
            processes=arguments.processes,
        )
        if arguments.profile:
            with stdout_to_stderr():
                profiling.run(settings)
            return 0
        if not capture_available():
            progress("WARNING: SparkLineageCapture is missing: the library side runs without capture")
        with stdout_to_stderr():
            default = [name for name in BENCHMARKS if name not in ON_REQUEST]
            figures, failed = run_benchmarks(arguments.only or default, settings)
    progress(f"all benchmarks took {time.perf_counter() - started:.0f}s")
    print("\n".join(figure.line() for figure in figures), flush=True)
    if arguments.json:
        arguments.json.write_text(json.dumps([f.as_json() for f in figures], indent=2, default=str))
    if failed:
        print(f"FAILED: {', '.join(failed)}", flush=True)
    if figures and not arguments.tiny and not arguments.no_record:
        run = results.run_of(datetime.now(), versions(), machine_description())
        if results.record(arguments.results, figures, run):
            plot.write(arguments.results, arguments.results.with_name(plot.SVG_FILE.name))
            progress(f"recorded the figures of pyspark {run.line} in {arguments.results}")
    if failed:
        return 1
    if arguments.strict and any(f.met is False for f in figures):
        return 2
    return 0


@contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Keep stdout for the figure lines: Airflow's and py4j's task logs (and the JVM's) go to stderr.

    Done on file descriptor 1, since loggers may hold the original ``sys.stdout`` stream.
    """
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def run_benchmarks(names: list[str], settings: Settings) -> tuple[list[Figure], list[str]]:
    """Run the benchmarks in order; one that fails is reported and the others still run.

    With ``--tiny`` the in-process benchmarks and the ones that work in child processes run side
    by side (timings mean nothing there), which keeps the smoke test short.
    """
    lanes = [[n for n in names if n in IN_PROCESS], [n for n in names if n not in IN_PROCESS]]
    if settings.tiny:
        with ThreadPoolExecutor(max_workers=len(lanes)) as pool:
            outcomes = dict(
                pair for lane in pool.map(lambda lane: run_lane(lane, settings), lanes) for pair in lane
            )
    else:
        outcomes = dict(run_lane(names, settings))
    figures = [figure for name in names for figure in (outcomes[name] or [])]
    return figures, [name for name in names if outcomes[name] is None]


def run_lane(names: list[str], settings: Settings) -> list[tuple[str, list[Figure] | None]]:
    """Run benchmarks one after the other; ``None`` for one that raised."""
    produced: list[tuple[str, list[Figure] | None]] = []
    for name in names:
        progress(f"{name}: starting")
        began = time.perf_counter()
        try:
            figures = BENCHMARKS[name](settings)
        except Exception:
            progress(f"{name}: FAILED\n{traceback.format_exc()}")
            produced.append((name, None))
            continue
        progress(f"{name}: done in {time.perf_counter() - began:.0f}s")
        for figure in figures:
            progress(figure.line())
        produced.append((name, figures))
    return produced


if __name__ == "__main__":
    status = main()
    # Send what py4j logs while the interpreter exits to stderr too.
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.exit(status)
