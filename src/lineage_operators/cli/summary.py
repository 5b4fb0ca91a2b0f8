"""The text summary of a lineage graph: per task what it read and wrote, counts, failed runs."""

from __future__ import annotations

from collections.abc import Iterable

from lineage_operators.cli.model import LineageGraph, RunInfo, dataset_label

__all__ = ["summarise"]


def summarise(graph: LineageGraph) -> str:
    tasks = [job for job in graph.jobs.values() if not job.is_dag]
    runs = sum(job.run_count for job in graph.jobs.values())
    failed_count = sum(job.failed_count for job in graph.jobs.values())
    failed = [
        (job.name, run) for job in graph.jobs.values() for run in job.runs.values() if run.state == "FAIL"
    ]
    lines = [
        f"{len(tasks)} job(s), {len(graph.datasets)} dataset(s), {runs} run(s), "
        f"{graph.skips.events_read} event(s) read, {failed_count} failed run(s), "
        f"{len(graph.column_edges)} column-lineage edge(s)",
        "",
    ]
    for job in sorted(tasks, key=lambda j: _first_start(j.runs.values()) + j.name):
        mark = "  [FAILED]" if job.failed else ""
        reads = ", ".join(dataset_label(d) for d in sorted(job.inputs)) or "(nothing)"
        writes = ", ".join(dataset_label(d) for d in sorted(job.outputs)) or "(nothing)"
        lines += [f"{job.name}{mark}", f"    read:  {reads}", f"    wrote: {writes}"]
    if failed:
        older = failed_count - len(failed)
        lines += ["", "Failed runs:" + (f" (the latest; {older} older not listed)" if older else "")]
        for name, run in failed:
            lines.append(f"  {name} run {run.run_id}: {run.error or '(no error message)'}")
    return "\n".join(lines)


def _first_start(runs: Iterable[RunInfo]) -> str:
    starts = [r.started for r in runs if r.started]
    return min(starts) if starts else "~"
