"""Our datasets against openlineage-spark's, facet by facet: pure functions over plain JSON-like data.

Both sides arrive as OpenLineage dataset dictionaries (``namespace``, ``name``, ``facets``,
``inputFacets`` / ``outputFacets``), ours serialized from the capture's result, the jar's read from its
file transport. :func:`dataset_views` folds each side's list into one view per dataset identity
(``input`` or ``output`` plus ``namespace:name``); the jar emits per Spark action, so its view is the
union over the task's actions, a later action's facet winning (as ours reports the state after the
task's last change). :func:`differences` lists what differs in the compared facets.

What is compared, and how each facet is normalized before the comparison (the ``_producer`` and
``_schemaURL`` keys of every facet are dropped: they name the producer, not the data):

- identity: a dataset only one side reports is a difference of the facet ``dataset``;
- ``schema`` (nested fields, name and type), ``dataSource``, ``symlinks`` (identifiers as a sorted list),
  ``storage``, ``lifecycleStateChange``, ``version``; ``catalog`` when the jar has it (one only ours has
  is not a difference: the jar gives it on some commands only);
- ``inputStatistics`` / ``outputStatistics``;
- ``icebergScanReport`` on inputs, without its planning timer (``totalPlanningDuration``: milliseconds
  of each side's own planning) and with numbers compared as floats (the jar writes them as doubles);
- ``columnLineage``: each output field's input fields with their transformations as sets (the order of
  the lists carries nothing), and the dataset-wide ``dataset`` entries. A transformation's
  ``description`` is not compared: the jar fills it only when its descriptions option is on;
- the job facet ``sql`` (query text, whitespace-normalized) and the run facet ``processing_engine``
  (``name`` and ``version``; the adapter version names the producer).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

#: Dataset facets compared when either side has them.
DATASET_FACETS = ("schema", "dataSource", "symlinks", "storage", "lifecycleStateChange", "version")
#: Compared only when both sides have them (a facet the jar emits that we lack is listed by name).
DIRECTION_FACETS = {"input": ("inputStatistics", "icebergScanReport"), "output": ("outputStatistics",)}
COLUMN_LINEAGE = "columnLineage"
#: The facet name of a difference between our ``outputStatistics.fileCount`` and the files on disk.
ON_DISK = "fileCount on disk"


@dataclass(frozen=True)
class Difference:
    """One facet of one dataset (or the job) that differs: ``ours`` and ``jar`` as normalized."""

    job: str
    dataset: str  # "input file:/path", "output ...", or "job"
    facet: str
    ours: Any
    jar: Any

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _strip(value: Any) -> Any:
    """``value`` without the producer keys (``_producer``, ``_schemaURL``, ``_deleted``), recursively."""
    if isinstance(value, Mapping):
        return {k: _strip(v) for k, v in value.items() if not str(k).startswith("_")}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _sorted_list(items: Iterable[Any]) -> list[Any]:
    return sorted(items, key=repr)


def normalize_schema(facet: Mapping[str, Any]) -> list[Any]:
    def field(spec: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"name": spec.get("name"), "type": (spec.get("type") or None)}
        if spec.get("fields"):
            out["fields"] = [field(f) for f in spec["fields"]]
        return out

    return [field(f) for f in facet.get("fields") or []]


def _transformation(spec: Mapping[str, Any]) -> tuple[Any, ...]:
    return (spec.get("type"), spec.get("subtype"), bool(spec.get("masking")))


def _input_field(spec: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "dataset": f"{spec.get('namespace')}:{spec.get('name')}",
        "field": spec.get("field"),
        "transformations": _sorted_list({_transformation(t) for t in spec.get("transformations") or []}),
    }


def _input_fields(specs: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Input fields merged by (dataset, field): one side may list a pair once per transformation."""
    merged: dict[tuple[str, Any], set[tuple[Any, ...]]] = {}
    for spec in specs:
        entry = _input_field(spec)
        merged.setdefault((entry["dataset"], entry["field"]), set()).update(
            tuple(t) for t in entry["transformations"]
        )
    return [
        {"dataset": dataset, "field": field, "transformations": _sorted_list(transformations)}
        for (dataset, field), transformations in sorted(merged.items(), key=repr)
    ]


def normalize_column_lineage(facet: Mapping[str, Any]) -> dict[str, Any]:
    fields = {
        name: _input_fields(spec.get("inputFields") or [])
        for name, spec in sorted((facet.get("fields") or {}).items())
    }
    out: dict[str, Any] = {"fields": fields}
    if facet.get("dataset"):
        out["dataset"] = _input_fields(facet["dataset"])
    return out


def normalize_scan_report(facet: Mapping[str, Any]) -> dict[str, Any]:
    metrics = {
        key: float(value)
        for key, value in (facet.get("scanMetrics") or {}).items()
        if key != "totalPlanningDuration" and value is not None
    }
    out = {key: value for key, value in facet.items() if key != "scanMetrics"}
    if isinstance(out.get("snapshotId"), int | float):
        out["snapshotId"] = float(out["snapshotId"])
    return {**out, "scanMetrics": metrics}


def normalize_facet(name: str, facet: Any) -> Any:
    facet = _strip(facet)
    if name == "schema":  # an empty schema (the jar's, for a dropped table) says nothing: as absent
        return normalize_schema(facet) or None
    if name == COLUMN_LINEAGE:
        return normalize_column_lineage(facet)
    if name == "symlinks":
        return _sorted_list(facet.get("identifiers") or [])
    if name == "dataSource":
        return {"name": facet.get("name"), "uri": facet.get("uri")}
    if name == "icebergScanReport":
        return normalize_scan_report(facet)
    return facet


def dataset_views(datasets: Iterable[Mapping[str, Any]], direction: str) -> dict[str, dict[str, Any]]:
    """One view per dataset identity, facets merged in order (a later record's facet wins)."""
    views: dict[str, dict[str, Any]] = {}
    for dataset in datasets:
        key = f"{direction} {dataset['namespace']}:{dataset['name']}"
        view = views.setdefault(key, {})
        facets = {**(dataset.get("facets") or {}), **(dataset.get(f"{direction}Facets") or {})}
        for name, facet in facets.items():
            normalized = normalize_facet(name, facet) if facet else None
            if normalized is not None:
                view[name] = normalized
    return views


def compared_facets(direction: str) -> tuple[str, ...]:
    return (*DATASET_FACETS, *DIRECTION_FACETS[direction], COLUMN_LINEAGE)


def dataset_differences(
    job: str, ours: Mapping[str, dict[str, Any]], jar: Mapping[str, dict[str, Any]]
) -> list[Difference]:
    found: list[Difference] = []
    for key in sorted(set(ours) | set(jar)):
        if key not in ours or key not in jar:
            found.append(Difference(job, key, "dataset", key in ours, key in jar))
            continue
        direction = key.split(" ", 1)[0]
        for facet in compared_facets(direction):
            mine, theirs = ours[key].get(facet), jar[key].get(facet)
            if mine != theirs:
                found.append(Difference(job, key, facet, mine, theirs))
        if "catalog" in jar[key] and ours[key].get("catalog") != jar[key]["catalog"]:
            found.append(Difference(job, key, "catalog", ours[key].get("catalog"), jar[key]["catalog"]))
    return found


_SPACES = re.compile(r"\s+")


def normalize_sql(query: str | None) -> str | None:
    return _SPACES.sub(" ", query).strip() if query else None


def job_differences(job: str, ours: Mapping[str, Any], jar: Mapping[str, Any]) -> list[Difference]:
    """The ``sql`` job facet (when the jar has one) and the engine's name and version."""
    found: list[Difference] = []
    jar_sql = normalize_sql((jar.get("sql") or {}).get("query"))
    our_sql = normalize_sql((ours.get("sql") or {}).get("query"))
    if jar_sql is not None and (our_sql is None or jar_sql not in our_sql):
        found.append(Difference(job, "job", "sql", our_sql, jar_sql))
    engine = ("name", "version")
    mine = {k: (ours.get("processing_engine") or {}).get(k) for k in engine}
    theirs = {k: (jar.get("processing_engine") or {}).get(k) for k in engine}
    if theirs["name"] is not None and mine != theirs:
        found.append(Difference(job, "job", "processing_engine", mine, theirs))
    return found
