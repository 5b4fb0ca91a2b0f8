"""`lineage-operators view` on the real file pipeline (real Airflow, Spark, provider), opened in
Debian's chromium: every task and dataset drawn, failed state marked, and, when the events carry
``columnLineage``, clicking a column highlights exactly its upstream columns across tasks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support import browser

from lineage_operators.cli.model import dataset_label

chromium, open_view = browser.chromium, browser.open_view  # fixtures


def _final_task_events(result: Any) -> list[dict[str, Any]]:
    finals = [
        events[-1] for key, events in result.items() if key.endswith((".event.complete", ".event.fail"))
    ]
    return [e for e in finals if "airflow" in e["run"].get("facets", {})]


def _upstream(events: list[dict[str, Any]], target: tuple[str, str, str]) -> set[tuple[str, str]]:
    """Transitive field-level inputs of ``target`` (namespace, name, field), read from the raw facets."""
    feeds: dict[tuple[str, str, str], set[tuple[str, str, str]]] = {}
    for event in events:
        for out in event.get("outputs", []):
            fields = out.get("facets", {}).get("columnLineage", {}).get("fields", {})
            for field, spec in fields.items():
                feeds.setdefault((out["namespace"], out["name"], field), set()).update(
                    (i["namespace"], i["name"], i["field"]) for i in spec.get("inputFields", [])
                )
    seen: set[tuple[str, str, str]] = set()
    todo = [target]
    while todo:
        for source in feeds.get(todo.pop(), set()) - seen:
            seen.add(source)
            todo.append(source)
    return {(dataset_label((ns, name)), field) for ns, name, field in seen}


def test_demo_pipeline_view_in_a_real_browser(run_example, tmp_path: Path, open_view) -> None:
    result = run_example("file_pipeline")
    assert result.state == "success", result.task_states
    html_path = tmp_path / "lineage.html"
    script = Path(sys.executable).parent / "lineage-operators"
    proc = subprocess.run(
        [str(script), "view", str(result.events_path), "-o", str(html_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr

    finals = _final_task_events(result)
    expected_jobs = {e["job"]["name"] for e in finals}
    expected_datasets = {
        dataset_label((d["namespace"], d["name"])) for e in finals for d in e["inputs"] + e["outputs"]
    }
    assert len(expected_jobs) == 3
    assert len(expected_datasets) == 3

    view = open_view(html_path)
    assert view.drawn("job") == expected_jobs
    assert view.drawn("dataset") == expected_datasets
    assert view.page.locator(".node.failed").count() == 0
    assert view.page.locator(".edge").count() == sum(len(e["inputs"]) + len(e["outputs"]) for e in finals)

    aggregate = next(e for e in finals if e["job"]["name"].endswith(".aggregate_daily"))
    output = aggregate["outputs"][0]
    lineage = output["facets"].get("columnLineage", {}).get("fields", {})
    if lineage:  # the facet is being added to the library: assert on it as soon as it is there
        field = "revenue" if "revenue" in lineage else sorted(lineage)[0]
        expected = _upstream(finals, (output["namespace"], output["name"], field))
        assert expected, "columnLineage names no input field"
        view.click_column(dataset_label((output["namespace"], output["name"])), field)
        assert view.highlighted("col-upstream") == expected
    view.screenshot("demo-file-pipeline")
    assert view.errors == []
