"""``--profile``: where the library side's time goes, with pyinstrument.

Two profiles, written as text under ``.build/bench-profiles/``:

* ``capture_large_plan_{first,warm}.txt``: every capture call (listener callbacks on Spark's
  listener-bus thread, ``start``, ``stop``) during the large-plan job at its largest scale, one
  profiler per call in the calling thread, combined. ``first`` is the process's first capture
  (one-time set-up included, as in every real task process); ``warm`` is the next one.
* ``task_lineage_main_thread.txt``: the task's own thread for the overhead benchmark's workload.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from benchmarks import large_job, task_workload
from benchmarks.alternation import progress
from benchmarks.environment import REPO_ROOT, SPARK_MASTER, spark_conf
from benchmarks.probe import CaptureProbe
from benchmarks.settings import Settings
from benchmarks.sides import LINEAGE, run_in_own_session, run_side, run_task_workload

PROFILE_DIR = REPO_ROOT / ".build" / "bench-profiles"


def run(settings: Settings) -> list[Path]:
    PROFILE_DIR.mkdir(parents=True, exist_ok=True)
    written = [*_profile_capture(settings), _profile_task(settings)]
    for path in written:
        progress(f"profile written: {path.relative_to(REPO_ROOT)}")
    return written


def _profiler() -> Any:
    from pyinstrument import Profiler

    return Profiler(interval=0.0005, async_mode="disabled")


def _render(sessions: list[Any]) -> str:
    from pyinstrument.renderers import ConsoleRenderer
    from pyinstrument.session import Session

    if not sessions:
        return "(no capture call was profiled: is the capture there?)\n"
    combined = sessions[0]
    for session in sessions[1:]:
        combined = Session.combine(combined, session)
    return str(ConsoleRenderer(unicode=False, color=False, show_all=False).render(combined))


def _profile_capture(settings: Settings) -> list[Path]:
    unit = large_job.TINY_UNIT if settings.tiny else large_job.FULL_UNIT
    shape = unit.scaled(2 if settings.tiny else 10)
    scratch = settings.scratch("profile-large")
    conf = spark_conf("bench_profile.setup", str(scratch / "setup-warehouse"))
    data = run_in_own_session(
        lambda spark: large_job.generate(spark, scratch / "data", shape), {}, SPARK_MASTER, conf
    )
    written = []
    probe = CaptureProbe(profiler_factory=_profiler)
    with probe.installed():
        for label in ("first", "warm"):
            probe.profiles.clear()
            probe.reset()
            run_side(
                LINEAGE,
                "bench_profile",
                large_job.large_plan_job,
                {"data_root": str(data.root), "shape": shape, "output": str(scratch / f"out-{label}")},
                warehouse_dir=str(scratch / f"warehouse-{label}"),
            )
            report = probe.report()
            path = PROFILE_DIR / f"capture_large_plan_{label}.txt"
            header = f"# {shape.describe()}\n# capture calls: {report.as_json()}\n"
            path.write_text(header + _render(list(probe.profiles)))
            written.append(path)
    shutil.rmtree(scratch, ignore_errors=True)
    return written


def _profile_task(settings: Settings) -> Path:
    size = task_workload.TINY if settings.tiny else task_workload.FULL
    scratch = settings.scratch("profile-task")
    profiler = _profiler()
    profiler.start()
    try:
        run_task_workload(LINEAGE, "bench_profile_task", size, scratch)
    finally:
        session = profiler.stop()
    shutil.rmtree(scratch, ignore_errors=True)
    path = PROFILE_DIR / "task_lineage_main_thread.txt"
    path.write_text(_render([session]))
    return path
