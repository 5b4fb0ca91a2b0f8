"""The lineage graph of a set of events: jobs, datasets, runs and column edges, as plain data.

Datasets are joined across jobs by (namespace, name), so one pipeline reads as one graph. A job
is keyed by its name (for Airflow, ``<dag_id>.<task_id>``), not its namespace, so two deployments
of the same DAG compare. Edges are the union over all runs read; facets are the latest seen.
Built one event at a time (:class:`GraphBuilder`), so a large file never sits in memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timezone
from typing import Any

from lineage_operators.cli.reading import GOLDEN_PRODUCER, Skips
from lineage_operators.testing.matchers import parse_iso_datetime

__all__ = [
    "ColumnEdge",
    "DatasetId",
    "DatasetNode",
    "GraphBuilder",
    "JobNode",
    "LineageGraph",
    "RunInfo",
    "build_graph",
    "dataset_label",
    "is_airflow_event",
    "schema_fields",
]

DatasetId = tuple[str, str]
"""(namespace, name), the OpenLineage identity of a dataset."""

MAX_RUNS_PER_JOB = 50
"""Runs kept per job (the latest ones): a file of many days of runs must not grow memory without
bound. Older runs are only counted (:attr:`JobNode.older_runs`, :attr:`JobNode.older_failed`)."""

MAX_FACETS_BYTES = 64 * 1024
"""A dataset's facets larger than this (serialized) are replaced by a note, to keep the view small."""


def dataset_label(dataset: DatasetId) -> str:
    """``namespace:name``, or ``file:///path`` style for URIs whose namespace is a scheme."""
    namespace, name = dataset
    if namespace == "file":
        return f"file://{name}"
    return f"{namespace}/{name.lstrip('/')}" if "://" in namespace else f"{namespace}:{name}"


@dataclass(frozen=True)
class ColumnEdge:
    """``source.source_field`` feeds ``target.target_field`` through ``job``; a ``None`` target
    field is a dataset-level dependency (filter, join, grouping) of the whole target."""

    source: DatasetId
    source_field: str
    target: DatasetId
    target_field: str | None
    job: str
    transformations: tuple[str, ...] = ()

    def sort_key(self) -> tuple[DatasetId, str, DatasetId, str, str]:
        return (self.source, self.source_field, self.target, self.target_field or "", self.job)


@dataclass(slots=True)
class RunInfo:
    run_id: str
    state: str | None = None
    started: str | None = None
    ended: str | None = None
    error: str | None = None
    #: the ``test`` run facet's tests (data-quality checks), each naming the dataset it checked
    tests: list[Mapping[str, Any]] = field(default_factory=list)
    datasets: set[DatasetId] = field(default_factory=set)
    last_time: float = float("-inf")

    @property
    def duration_s(self) -> float | None:
        start = parse_iso_datetime(self.started) if self.started else None
        end = parse_iso_datetime(self.ended) if self.ended else None
        if start is None or end is None or (start.tzinfo is None) != (end.tzinfo is None):
            return None
        return (end - start).total_seconds()


@dataclass
class JobNode:
    namespace: str
    name: str
    is_dag: bool = False
    task: tuple[str, str] | None = None
    """(dag_id, task_id) from the provider's ``airflow`` run facet, for a readable label."""
    inputs: set[DatasetId] = field(default_factory=set)
    outputs: set[DatasetId] = field(default_factory=set)
    runs: dict[str, RunInfo] = field(default_factory=dict)
    older_runs: int = 0
    older_failed: int = 0
    column_edges: set[ColumnEdge] = field(default_factory=set)
    lifecycle: dict[DatasetId, str] = field(default_factory=dict)
    fields: dict[tuple[str, DatasetId], dict[str, str | None]] = field(default_factory=dict)
    """(``inputs``/``outputs``, dataset) -> the schema this job's latest event carrying one gave it:
    a writer and a reader can see one dataset differently (a CSV written typed, read as strings)."""

    @property
    def run_count(self) -> int:
        return len(self.runs) + self.older_runs

    @property
    def failed_count(self) -> int:
        return sum(1 for r in self.runs.values() if r.state == "FAIL") + self.older_failed

    def forget_oldest_run(self) -> None:
        oldest = min(self.runs.values(), key=lambda r: r.last_time)
        del self.runs[oldest.run_id]
        self.older_runs += 1
        self.older_failed += oldest.state == "FAIL"

    @property
    def latest_run(self) -> RunInfo | None:
        return max(self.runs.values(), key=lambda r: r.last_time, default=None)

    @property
    def failed(self) -> bool:
        latest = self.latest_run
        return latest is not None and latest.state == "FAIL"

    @property
    def drawn(self) -> bool:
        """DAG-level jobs and jobs that touched no dataset are not graph nodes (their runs count)."""
        return not self.is_dag and bool(self.inputs or self.outputs)


@dataclass
class DatasetNode:
    namespace: str
    name: str
    facets: dict[str, Any] = field(default_factory=dict)
    input_facets: dict[str, Any] = field(default_factory=dict)
    output_facets: dict[str, Any] = field(default_factory=dict)
    fields: dict[str, str | None] = field(default_factory=dict)
    writers: set[str] = field(default_factory=set)
    readers: set[str] = field(default_factory=set)
    facet_times: dict[str, float] = field(default_factory=dict)

    @property
    def id(self) -> DatasetId:
        return (self.namespace, self.name)


@dataclass
class LineageGraph:
    jobs: dict[str, JobNode] = field(default_factory=dict)
    datasets: dict[DatasetId, DatasetNode] = field(default_factory=dict)
    skips: Skips = field(default_factory=Skips)
    events_without_datasets: int = 0

    @property
    def column_edges(self) -> list[ColumnEdge]:
        return sorted((e for job in self.jobs.values() for e in job.column_edges), key=ColumnEdge.sort_key)

    def failed_datasets(self) -> set[DatasetId]:
        """Datasets touched by the latest run of a job whose latest run failed."""
        out: set[DatasetId] = set()
        for job in self.jobs.values():
            latest = job.latest_run
            if latest is not None and latest.state == "FAIL":
                out |= latest.datasets
        return out


def is_airflow_event(event: Mapping[str, Any]) -> bool:
    """Emitted by Airflow's OpenLineage provider (or read from a harness golden file)."""
    producer = event.get("producer")
    if isinstance(producer, str) and ("apache/airflow" in producer or producer == GOLDEN_PRODUCER):
        return True
    job_type = ((event.get("job") or {}).get("facets") or {}).get("jobType")
    return isinstance(job_type, Mapping) and job_type.get("integration") == "AIRFLOW"


def schema_fields(facets: Mapping[str, Any]) -> dict[str, str | None]:
    """Field name -> type from a ``schema`` facet, nested fields flattened as ``parent.child``."""
    out: dict[str, str | None] = {}

    def walk(fields: Any, prefix: str) -> None:
        for item in fields if isinstance(fields, list) else []:
            if isinstance(item, Mapping) and isinstance(item.get("name"), str):
                name = prefix + item["name"]
                kind = item.get("type")
                out[name] = kind if isinstance(kind, str) else None
                walk(item.get("fields"), name + ".")

    schema = facets.get("schema")
    if isinstance(schema, Mapping):
        walk(schema.get("fields"), "")
    return out


def _transformations(input_field: Mapping[str, Any]) -> tuple[str, ...]:
    out = []
    for item in input_field.get("transformations") or []:
        if isinstance(item, Mapping) and isinstance(item.get("type"), str):
            subtype = item.get("subtype")
            out.append(f"{item['type']}/{subtype}" if isinstance(subtype, str) and subtype else item["type"])
    return tuple(sorted(set(out)))


def column_edges(target: DatasetId, facets: Mapping[str, Any], job: str) -> set[ColumnEdge]:
    """The edges of one output dataset's ``columnLineage`` facet (fields and dataset-level)."""
    facet = facets.get("columnLineage")
    if not isinstance(facet, Mapping):
        return set()
    pairs: list[tuple[str | None, Any]] = []
    fields = facet.get("fields")
    if isinstance(fields, Mapping):
        for name, spec in fields.items():
            if isinstance(spec, Mapping):
                pairs.extend((str(name), item) for item in spec.get("inputFields") or [])
    pairs.extend((None, item) for item in facet.get("dataset") or [])
    out = set()
    for target_field, item in pairs:
        if not isinstance(item, Mapping):
            continue
        namespace, name, source_field = item.get("namespace"), item.get("name"), item.get("field")
        if isinstance(namespace, str) and isinstance(name, str) and isinstance(source_field, str):
            out.add(
                ColumnEdge((namespace, name), source_field, target, target_field, job, _transformations(item))
            )
    return out


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _airflow_task(run_facets: Mapping[str, Any]) -> tuple[str, str] | None:
    facet = run_facets.get("airflow")
    if not isinstance(facet, Mapping):
        return None
    dag_id = (facet.get("dag") or {}).get("dag_id") if isinstance(facet.get("dag"), Mapping) else None
    task_id = (facet.get("task") or {}).get("task_id") if isinstance(facet.get("task"), Mapping) else None
    return (dag_id, task_id) if isinstance(dag_id, str) and isinstance(task_id, str) else None


def _event_time(event: Mapping[str, Any]) -> float:
    raw = event.get("eventTime")
    parsed = parse_iso_datetime(raw) if isinstance(raw, str) else None
    if parsed is None:
        return float("-inf")
    return (parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=timezone.utc)).timestamp()


def _bounded(facets: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for name, value in facets.items():
        size = len(json.dumps(value, default=str))
        out[name] = value if size <= MAX_FACETS_BYTES else {"_omitted": f"{size} bytes, too large to show"}
    return out


class GraphBuilder:
    """Feeds events one by one into a :class:`LineageGraph`, skipping (and counting) the rest."""

    def __init__(self, skips: Skips | None = None, *, any_producer: bool = False) -> None:
        self.graph = LineageGraph(skips=skips or Skips())
        self.any_producer = any_producer
        # the facets last turned into fields/edges: a file of many runs repeats them, skip the work
        self._seen_lineage: dict[tuple[str, DatasetId], Any] = {}
        self._seen_schema: dict[DatasetId, Any] = {}
        self._job_schema_times: dict[tuple[str, str, DatasetId], float] = {}

    def add(self, event: Mapping[str, Any], where: str = "") -> None:
        skips = self.graph.skips
        job, run = event.get("job"), event.get("run")
        if not isinstance(job, Mapping) or not isinstance(run, Mapping):
            skips.add("not a run event (job or dataset event, or no job/run)", where)
            return
        name, run_id = job.get("name"), run.get("runId")
        if not isinstance(name, str) or not isinstance(run_id, str):
            skips.add("run event without job name or run id", where)
            return
        if not self.any_producer and not is_airflow_event(event):
            skips.add(f"other producer ({event.get('producer')})", where)
            return
        skips.events_read += 1
        self._add_run_event(event, job, run, name, run_id)

    def _add_run_event(
        self, event: Mapping[str, Any], job: Mapping[str, Any], run: Mapping[str, Any], name: str, run_id: str
    ) -> None:
        graph = self.graph
        node = graph.jobs.get(name)
        if node is None:
            node = graph.jobs[name] = JobNode(str(job.get("namespace") or ""), name)
        run_facets = _mapping(run.get("facets"))
        job_type = _mapping(job.get("facets")).get("jobType")
        if "airflowDagRun" in run_facets or (
            isinstance(job_type, Mapping) and job_type.get("jobType") == "DAG"
        ):
            node.is_dag = True
        if node.task is None:
            node.task = _airflow_task(run_facets)
        time = _event_time(event)
        info = node.runs.get(run_id)
        if info is None:
            if len(node.runs) >= MAX_RUNS_PER_JOB:
                node.forget_oldest_run()
            info = node.runs[run_id] = RunInfo(run_id)
        event_type = event.get("eventType") if isinstance(event.get("eventType"), str) else None
        raw_time = event.get("eventTime") if isinstance(event.get("eventTime"), str) else None
        if event_type == "START":
            info.started = raw_time
        elif event_type in ("COMPLETE", "FAIL", "ABORT"):
            info.ended = raw_time
        if event_type is not None and time >= info.last_time:
            info.state, info.last_time = event_type, time
        error = run_facets.get("errorMessage")
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            info.error = error["message"]
        tests = _mapping(run_facets.get("test")).get("tests")
        if isinstance(tests, list):
            info.tests = [t for t in tests if isinstance(t, Mapping)]
        touched = False
        for role in ("inputs", "outputs"):
            for item in event.get(role) or []:
                if not isinstance(item, Mapping):
                    continue
                dataset = self._add_dataset(item, role, name, time)
                if dataset is None:
                    continue
                touched = True
                info.datasets.add(dataset.id)
                (node.inputs if role == "inputs" else node.outputs).add(dataset.id)
                self._add_job_fields(node, role, dataset.id, _mapping(item.get("facets")), time)
                if role == "outputs":
                    self._add_output(node, dataset.id, _mapping(item.get("facets")))
        if not touched:
            graph.events_without_datasets += 1

    def _add_output(self, job: JobNode, dataset: DatasetId, facets: Mapping[str, Any]) -> None:
        lineage = facets.get("columnLineage")
        if lineage is not None and self._seen_lineage.get((job.name, dataset)) != lineage:
            self._seen_lineage[(job.name, dataset)] = lineage
            job.column_edges |= column_edges(dataset, facets, job.name)
        lifecycle = _mapping(facets.get("lifecycleStateChange")).get("lifecycleStateChange")
        if isinstance(lifecycle, str):
            job.lifecycle[dataset] = lifecycle

    def _add_job_fields(
        self, job: JobNode, role: str, dataset: DatasetId, facets: Mapping[str, Any], time: float
    ) -> None:
        key = (job.name, role, dataset)
        fields = schema_fields(facets) if time >= self._job_schema_times.get(key, float("-inf")) else None
        if fields:
            self._job_schema_times[key] = time
            job.fields[(role, dataset)] = fields

    def _add_dataset(self, item: Mapping[str, Any], role: str, job: str, time: float) -> DatasetNode | None:
        namespace, name = item.get("namespace"), item.get("name")
        if not isinstance(namespace, str) or not isinstance(name, str):
            self.graph.skips.add("dataset without namespace or name", job)
            return None
        node = self.graph.datasets.get((namespace, name))
        if node is None:
            node = self.graph.datasets[(namespace, name)] = DatasetNode(namespace, name)
        (node.readers if role == "inputs" else node.writers).add(job)
        facets = item.get("facets")
        if isinstance(facets, Mapping):
            for facet, value in facets.items():
                if time >= node.facet_times.get(facet, float("-inf")):
                    node.facets[facet] = value
                    node.facet_times[facet] = time
            schema = facets.get("schema")
            if schema is not None and self._seen_schema.get(node.id) != schema:
                self._seen_schema[node.id] = schema
                fields = schema_fields(facets)
                if fields:
                    node.fields = fields
        extra_key = "inputFacets" if role == "inputs" else "outputFacets"
        extra = item.get(extra_key)
        if isinstance(extra, Mapping) and extra:
            (node.input_facets if role == "inputs" else node.output_facets).update(_bounded(extra))
        return node

    def finish(self) -> LineageGraph:
        for node in self.graph.datasets.values():
            node.facets = _bounded(node.facets)
        return self.graph


def build_graph(
    events: Iterable[Mapping[str, Any]], skips: Skips | None = None, *, any_producer: bool = False
) -> LineageGraph:
    builder = GraphBuilder(skips, any_producer=any_producer)
    for event in events:
        builder.add(event)
    return builder.finish()
