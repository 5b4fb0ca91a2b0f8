"""README.md's quick start, run as written against the S3 server: the DAG's code is taken from the README
itself (its first Python block under "Quick start"), so the test fails the day the README and the truth part.

The task runs through the project's own harness (``run_dag``: ``dag.test()``, the real OpenLineage
provider, a file transport). It reuses the S3 session of this directory (the active session, as on a
cluster whose image carries S3A and its conf): the README's task names no conf of its own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from tests.support.canary import S3_ACCESS_KEY, S3_SECRET_KEY

from lineage_operators.testing import DagRunResult, load_dag, validate_events

README = Path(__file__).resolve().parents[2] / "README.md"
pytestmark = pytest.mark.timeout(900)


def quick_start_code() -> str:
    text = README.read_text()
    section = text[text.index("## Quick start") :]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match, "README.md's Quick start has no Python block"
    return match.group(1)


def _complete(result: DagRunResult) -> dict[str, Any]:
    events = result.get("orders.clean_orders.event.complete")
    assert events, f"no COMPLETE event for orders.clean_orders; keys: {sorted(result)}; {result.failures}"
    return events[-1]


def test_the_readme_quick_start_reports_what_the_readme_says(
    run_dag: Callable[..., DagRunResult], s3_session: Any, tmp_path: Path
) -> None:
    dag_file = tmp_path / "dags" / "orders.py"
    dag_file.parent.mkdir()
    dag_file.write_text(quick_start_code())
    result = run_dag(load_dag(dag_file), logical_date=datetime(2026, 1, 1, tzinfo=timezone.utc))
    validate_events(result)
    event = _complete(result)
    inputs = {(d["namespace"], d["name"]): d for d in event["inputs"]}
    outputs = {(d["namespace"], d["name"]): d for d in event["outputs"]}
    assert list(inputs) == [("s3://raw", "orders")]
    assert list(outputs) == [("s3://lake", "orders_clean")]
    for dataset in (*inputs.values(), *outputs.values()):
        assert {"schema", "dataSource", "storage"} <= set(dataset["facets"]), dataset
        assert dataset["facets"]["dataSource"]["name"] == dataset["namespace"]
    (written,) = outputs.values()
    assert written["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "OVERWRITE"
    assert written["outputFacets"]["outputStatistics"]["rowCount"] > 0
    fields = [f["name"] for f in written["facets"]["schema"]["fields"]]
    assert "order_date" in fields  # the partition column, its `order_date=...` folders trimmed away
    everything = json.dumps(dict(result), default=str)
    assert S3_ACCESS_KEY not in everything
    assert S3_SECRET_KEY not in everything
