"""The self-contained HTML view: graph data laid out here, drawn by a small inline script.

One file, no network: the page's CSS and JavaScript (``assets/``, written for this project)
are inlined with the graph as JSON, so it opens offline from disk or a CI artifact.
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from typing import Any

from lineage_operators.cli.layout import layout
from lineage_operators.cli.model import DatasetId, LineageGraph, dataset_label

__all__ = ["MAX_COLUMN_ROWS", "render_html", "view_data"]

MAX_COLUMN_ROWS = 20
"""Columns drawn inside a dataset box; the rest sit behind a "+N more" row (all are in the panel)."""
NODE_WIDTH, HEADER, ROW, JOB_HEIGHT, COLUMN_WIDTH = 240, 26, 16, 40, 320


def _dataset_columns(graph: LineageGraph) -> dict[DatasetId, list[list[Any]]]:
    """Schema fields, then any field only column lineage names, as [name, type] pairs."""
    columns = {
        ds: [[name, kind] for name, kind in node.fields.items()] for ds, node in graph.datasets.items()
    }
    for edge in graph.column_edges:
        for ds, name in ((edge.source, edge.source_field), (edge.target, edge.target_field)):
            if name is not None and ds in columns and all(c[0] != name for c in columns[ds]):
                columns[ds].append([name, None])
    return columns


def _dataset_height(column_count: int) -> int:
    rows = min(column_count, MAX_COLUMN_ROWS) + (1 if column_count > MAX_COLUMN_ROWS else 0)
    return HEADER + rows * ROW + (4 if rows else 0)


def view_data(graph: LineageGraph, *, title: str = "lineage") -> dict[str, Any]:
    """Everything the page draws, positions included, as JSON-ready data."""
    jobs = sorted((j for j in graph.jobs.values() if j.drawn), key=lambda j: j.name)
    datasets = sorted(
        {ds for j in jobs for ds in j.inputs | j.outputs}
        | {e.source for e in graph.column_edges}
        | {e.target for e in graph.column_edges}
    )
    datasets = [ds for ds in datasets if ds in graph.datasets]
    job_index = {j.name: i for i, j in enumerate(jobs)}
    ds_index = {ds: i for i, ds in enumerate(datasets)}
    columns = _dataset_columns(graph)
    nodes = [f"j{i}" for i in range(len(jobs))] + [f"d{i}" for i in range(len(datasets))]
    edges = [(f"d{ds_index[d]}", f"j{i}") for i, j in enumerate(jobs) for d in sorted(j.inputs)]
    edges += [(f"j{i}", f"d{ds_index[d]}") for i, j in enumerate(jobs) for d in sorted(j.outputs)]
    heights = {f"j{i}": JOB_HEIGHT for i in range(len(jobs))}
    heights.update({f"d{i}": _dataset_height(len(columns[ds])) for i, ds in enumerate(datasets)})
    positions = layout(nodes, edges, heights, column_width=COLUMN_WIDTH)
    failed = graph.failed_datasets()

    def place(node_id: str) -> dict[str, float]:
        pos = positions[node_id]
        return {"x": pos.x, "y": round(pos.y, 1), "h": heights[node_id]}

    job_data = []
    for i, job in enumerate(jobs):
        runs = sorted(job.runs.values(), key=lambda r: r.last_time)
        job_data.append(
            {
                "name": job.name,
                "label": list(job.task) if job.task else [job.name, ""],
                "namespace": job.namespace,
                "failed": job.failed,
                "runs": [
                    {
                        "id": r.run_id,
                        "state": r.state,
                        "start": r.started,
                        "end": r.ended,
                        "duration": r.duration_s,
                        "error": r.error,
                    }
                    for r in runs
                ],
                "in": [ds_index[d] for d in sorted(job.inputs) if d in ds_index],
                "out": [ds_index[d] for d in sorted(job.outputs) if d in ds_index],
                **place(f"j{i}"),
            }
        )
    ds_data = []
    for i, ds in enumerate(datasets):
        node = graph.datasets[ds]
        ds_data.append(
            {
                "namespace": node.namespace,
                "name": node.name,
                "label": dataset_label(ds),
                "failed": ds in failed,
                "columns": columns[ds],
                "facets": _shown_facets(node.facets),
                "inputFacets": _shown_facets(node.input_facets),
                "outputFacets": _shown_facets(node.output_facets),
                "checks": _checks(graph, node),
                "writers": sorted(job_index[j] for j in node.writers if j in job_index),
                "readers": sorted(job_index[j] for j in node.readers if j in job_index),
                **place(f"d{i}"),
            }
        )
    column_edges = [
        [
            ds_index[e.source],
            e.source_field,
            ds_index[e.target],
            e.target_field,
            job_index.get(e.job, -1),
            list(e.transformations),
        ]
        for e in graph.column_edges
        if e.source in ds_index and e.target in ds_index
    ]
    return {
        "title": title,
        "jobs": job_data,
        "datasets": ds_data,
        "columnEdges": column_edges,
        "skipped": graph.skips.describe(),
        "geometry": {"width": NODE_WIDTH, "header": HEADER, "row": ROW, "maxRows": MAX_COLUMN_ROWS},
    }


_META = ("_producer", "_schemaURL")
_CHECK_FIELDS = ("name", "status", "severity", "type", "column", "expected", "actual")


def _checks(graph: LineageGraph, node: Any) -> list[dict[str, Any]]:
    """Data-quality checks of a dataset: the latest run of each job that wrote it (its ``test``
    facet names the dataset checked), then the ``dataQualityAssertions`` of its reads."""
    found: list[dict[str, Any]] = []
    for job_name in sorted(node.writers):
        job = graph.jobs.get(job_name)
        run = job.latest_run if job is not None else None
        for test in run.tests if run is not None else []:
            params = test.get("params") or {}
            if (params.get("datasetNamespace"), params.get("datasetName")) == (node.namespace, node.name):
                column = params.get("column")
                found.append({k: test.get(k) for k in _CHECK_FIELDS} | {"column": column, "job": job_name})
    assertions = (node.input_facets.get("dataQualityAssertions") or {}).get("assertions") or []
    for a in assertions:
        status = "pass" if a.get("success") else "fail"
        found.append(
            {k: a.get(k) for k in _CHECK_FIELDS if k in a} | {"type": a.get("assertion"), "status": status}
        )
    return found


def _shown_facets(facets: dict[str, Any]) -> dict[str, Any]:
    """Facets without their producer/schema URLs, and without ``columnLineage`` (drawn as edges)."""
    return {
        name: {k: v for k, v in value.items() if k not in _META} if isinstance(value, dict) else value
        for name, value in facets.items()
        if name != "columnLineage"
    }


def _asset(name: str) -> str:
    return resources.files("lineage_operators.cli").joinpath("assets", name).read_text(encoding="utf-8")


def render_html(graph: LineageGraph, *, title: str = "lineage") -> str:
    data = json.dumps(view_data(graph, title=title), separators=(",", ":"), default=str)
    data = data.replace("<", "\\u003c")  # no name can close the script element ("<" only occurs in strings)
    parts = {"TITLE": html.escape(title), "CSS": _asset("view.css"), "DATA": data, "JS": _asset("view.js")}
    return re.sub(r"/\*(TITLE|CSS|DATA|JS)\*/", lambda m: parts[m.group(1)], _asset("view.html"))
