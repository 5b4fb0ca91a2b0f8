"""``${name}`` placeholders of golden files, bound so a golden file diffs against a real run.

Values come from ``--placeholder name=value`` or are inferred: a golden dataset name such as
``${base_dir}/clean/orders`` is matched against the other side's dataset names, ``${namespace}``
(the job namespace the harness writes) against its job namespaces.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from lineage_operators.testing.matchers import render_template

__all__ = ["bind_placeholders", "infer_placeholders"]

_TOKEN = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _job_namespaces(events: Iterable[Mapping[str, Any]]) -> set[str]:
    """Golden files write the job namespace as ``${namespace}``."""
    jobs = (event.get("job") for event in events)
    return {
        job["namespace"] for job in jobs if isinstance(job, Mapping) and isinstance(job.get("namespace"), str)
    }


def _dataset_strings(events: Iterable[Mapping[str, Any]]) -> set[str]:
    out: set[str] = set()
    for event in events:
        for role in ("inputs", "outputs"):
            for item in event.get(role) or []:
                if isinstance(item, Mapping):
                    out.update(v for v in (item.get("namespace"), item.get("name")) if isinstance(v, str))
    return out


def infer_placeholders(
    templates: Iterable[str], candidates: Iterable[str], known: Mapping[str, str]
) -> dict[str, str]:
    """Bindings for unbound placeholders, each from the first candidate a template fully matches."""
    bound = dict(known)
    names = sorted(set(candidates))
    for template in sorted(templates):
        if all(n in bound for n in _TOKEN.findall(template)):
            continue
        pattern, pos, seen = "", 0, set()
        for match in _TOKEN.finditer(template):
            pattern += re.escape(template[pos : match.start()])
            name = match.group(1)
            if name in bound:
                pattern += re.escape(bound[name])
            elif name in seen:
                pattern += f"(?P={name})"
            else:
                pattern += f"(?P<{name}>.+)"
                seen.add(name)
            pos = match.end()
        pattern += re.escape(template[pos:])
        found = next((m for m in (re.fullmatch(pattern, c) for c in names) if m), None)
        if found is not None:
            bound.update({k: v for k, v in found.groupdict().items() if v is not None})
    return bound


def bind_placeholders(
    events: list[dict[str, Any]],
    other_side: Iterable[str],
    explicit: Mapping[str, str],
    *,
    other_job_namespaces: Iterable[str] = (),
) -> tuple[list[dict[str, Any]], list[str]]:
    """Events with every placeholder that can be bound rendered, and the names left unbound."""
    job_templates = {s for s in _job_namespaces(events) if _TOKEN.search(s)}
    dataset_templates = {s for s in _dataset_strings(events) if _TOKEN.search(s)}
    templates = job_templates | dataset_templates
    if not templates:
        return events, []
    bound = infer_placeholders(job_templates, other_job_namespaces, explicit)
    bound = infer_placeholders(dataset_templates, other_side, bound)
    unbound = sorted({n for t in templates for n in _TOKEN.findall(t)} - set(bound))
    values = {**bound, **{n: "${" + n + "}" for n in unbound}}

    def render(value: Any) -> Any:
        if isinstance(value, str) and "${" in value:
            return render_template(value, values)
        if isinstance(value, dict):
            return {k: render(v) for k, v in value.items()}
        if isinstance(value, list):
            return [render(v) for v in value]
        return value

    return [render(e) for e in events], unbound
