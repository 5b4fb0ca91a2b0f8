"""What changed in lineage between two event sets, at the level a reviewer reads: per job,
datasets added/removed/renamed, schema fields added/removed/retyped, column-lineage edges
added/removed, lifecycle changes.  Pure functions over two :class:`LineageGraph`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from lineage_operators.cli.model import ColumnEdge, DatasetId, JobNode, LineageGraph, dataset_label

__all__ = ["Change", "JobDiff", "diff_graphs", "diff_to_json", "format_diff"]

ROLES = (("input", "inputs"), ("output", "outputs"))


@dataclass(frozen=True)
class Change:
    kind: str
    """dataset_added/_removed/_renamed, field_added/_removed/_retyped, column_edge_added/_removed/
    _retyped, lifecycle_changed."""
    role: str | None = None
    dataset: str | None = None
    detail: str = ""

    def text(self) -> str:
        what = self.kind.replace("_", " ")
        where = " ".join(part for part in (self.role, self.dataset) if part)
        return f"{what}: {where}" + (f": {self.detail}" if self.detail else "")


@dataclass
class JobDiff:
    job: str
    status: str  # added, removed, changed
    changes: list[Change] = field(default_factory=list)


def _pair_renames(
    removed: set[DatasetId], added: set[DatasetId], before: LineageGraph, after: LineageGraph
) -> dict[DatasetId, DatasetId]:
    """Removed -> added datasets taken for renames: same namespace and the same field names, or
    the only removed and the only added dataset of that namespace."""
    pairs: dict[DatasetId, DatasetId] = {}
    free = set(added)
    for old in sorted(removed):
        old_fields = set(before.datasets[old].fields)
        same_ns = sorted(a for a in free if a[0] == old[0])
        match = next((a for a in same_ns if old_fields and set(after.datasets[a].fields) == old_fields), None)
        if match is None and len(same_ns) == 1 and sum(1 for r in removed if r[0] == old[0]) == 1:
            match = same_ns[0]
        if match is not None:
            pairs[old] = match
            free.discard(match)
    return pairs


def _field_changes(
    role: str, label: str, old: dict[str, str | None], new: dict[str, str | None]
) -> list[Change]:
    out = [Change("field_removed", role, label, f"{n} ({old[n]})") for n in old if n not in new]
    out += [Change("field_added", role, label, f"{n} ({new[n]})") for n in new if n not in old]
    out += [
        Change("field_retyped", role, label, f"{n}: {old[n]} -> {new[n]}")
        for n in old
        if n in new and old[n] != new[n]
    ]
    return out


def _edge_key(
    edge: ColumnEdge, rename: dict[DatasetId, DatasetId]
) -> tuple[DatasetId, str, DatasetId, str | None]:
    return (
        rename.get(edge.source, edge.source),
        edge.source_field,
        rename.get(edge.target, edge.target),
        edge.target_field,
    )


def _edge_text(key: tuple[DatasetId, str, DatasetId, str | None]) -> str:
    source, source_field, target, target_field = key
    target_text = (
        f"{dataset_label(target)}.{target_field}"
        if target_field
        else f"{dataset_label(target)} (whole dataset)"
    )
    return f"{dataset_label(source)}.{source_field} -> {target_text}"


def _column_changes(old: JobNode, new: JobNode, rename: dict[DatasetId, DatasetId]) -> list[Change]:
    before = {_edge_key(e, rename): e.transformations for e in old.column_edges}
    after = {_edge_key(e, {}): e.transformations for e in new.column_edges}
    out = [
        Change("column_edge_removed", detail=_edge_text(k)) for k in sorted(before, key=str) if k not in after
    ]
    out += [
        Change("column_edge_added", detail=_edge_text(k)) for k in sorted(after, key=str) if k not in before
    ]
    for key in sorted(set(before) & set(after), key=str):
        if before[key] != after[key]:
            was, now = ",".join(before[key]) or "-", ",".join(after[key]) or "-"
            out.append(Change("column_edge_retyped", detail=f"{_edge_text(key)}: {was} -> {now}"))
    return out


def _seen_fields(job: JobNode, attr: str, dataset: DatasetId, graph: LineageGraph) -> dict[str, str | None]:
    """The schema of ``dataset`` as ``job`` saw it in that role (its reader and its writer may see it
    differently), else, when the job's events carried none, the dataset's own."""
    return job.fields.get((attr, dataset), graph.datasets[dataset].fields)


def _job_changes(old: JobNode, new: JobNode, before: LineageGraph, after: LineageGraph) -> list[Change]:
    changes: list[Change] = []
    rename: dict[DatasetId, DatasetId] = {}
    for role, attr in ROLES:
        old_set, new_set = getattr(old, attr), getattr(new, attr)
        removed, added = old_set - new_set, new_set - old_set
        pairs = _pair_renames(removed, added, before, after)
        rename.update(pairs)
        for ds in sorted(removed - set(pairs)):
            changes.append(Change("dataset_removed", role, dataset_label(ds)))
        for ds in sorted(added - set(pairs.values())):
            changes.append(Change("dataset_added", role, dataset_label(ds)))
        for was, now in sorted(pairs.items()):
            changes.append(Change("dataset_renamed", role, dataset_label(was), f"now {dataset_label(now)}"))
        for ds in sorted(old_set & new_set) + sorted(pairs):
            target = pairs.get(ds, ds)
            changes += _field_changes(
                role,
                dataset_label(target),
                _seen_fields(old, attr, ds, before),
                _seen_fields(new, attr, target, after),
            )
            if role == "output" and old.lifecycle.get(ds) != new.lifecycle.get(target):
                states = f"{old.lifecycle.get(ds) or 'none'} -> {new.lifecycle.get(target) or 'none'}"
                changes.append(Change("lifecycle_changed", role, dataset_label(target), states))
    return changes + _column_changes(old, new, rename)


def diff_graphs(before: LineageGraph, after: LineageGraph) -> list[JobDiff]:
    """Per job (by name, DAG-level jobs left out) what changed from ``before`` to ``after``."""
    old_jobs = {n: j for n, j in before.jobs.items() if not j.is_dag}
    new_jobs = {n: j for n, j in after.jobs.items() if not j.is_dag}
    out: list[JobDiff] = []
    for name in sorted(set(old_jobs) | set(new_jobs)):
        old, new = old_jobs.get(name), new_jobs.get(name)
        if old is None:
            assert new is not None
            adds = [
                Change("dataset_added", r, dataset_label(d))
                for r, a in ROLES
                for d in sorted(getattr(new, a))
            ]
            out.append(JobDiff(name, "added", adds))
        elif new is None:
            drops = [
                Change("dataset_removed", r, dataset_label(d))
                for r, a in ROLES
                for d in sorted(getattr(old, a))
            ]
            out.append(JobDiff(name, "removed", drops))
        else:
            changes = _job_changes(old, new, before, after)
            if changes:
                out.append(JobDiff(name, "changed", changes))
    return out


def format_diff(diffs: list[JobDiff]) -> str:
    if not diffs:
        return "no lineage differences"
    lines = [f"lineage differs in {len(diffs)} job(s):"]
    for job in diffs:
        lines.append(f"{job.job} ({job.status})")
        lines.extend(f"  {change.text()}" for change in job.changes)
    return "\n".join(lines)


def diff_to_json(diffs: list[JobDiff]) -> dict[str, Any]:
    return {"different": bool(diffs), "jobs": [asdict(d) for d in diffs]}
