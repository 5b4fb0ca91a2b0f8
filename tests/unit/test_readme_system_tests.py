"""docs/testing.md, "System tests as DAGs", as written: its DAG parses into an assertion task that asks
for the DAG's events, and its transport configuration builds the event store (what a run then does is
tests/system/test_assertion_dag.py)."""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path

import pytest

from lineage_operators.testing import event_store

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## System tests as DAGs"


def _section() -> str:
    text = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start : end if end != -1 else len(text)]


@pytest.fixture(autouse=True)
def _no_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(event_store, "_requested", set())


def test_the_readme_dag_parses_into_an_assertion_task(tmp_path: Path):
    from lineage_operators.testing import AssertLineageOperator

    (block,) = re.findall(r"```python\n(# dags/orders_system_test\.py\n.*?)```", _section(), re.DOTALL)
    dag_file = tmp_path / "dags" / "orders_system_test.py"
    dag_file.parent.mkdir()
    dag_file.write_text(block)
    dag = runpy.run_path(str(dag_file))["dag"]
    check = dag.get_task("check_events")
    assert isinstance(check, AssertLineageOperator)
    assert check.upstream_task_ids == {"clean_orders"}
    assert check.expected_path() == dag_file.parent / "expected" / "orders_system_test.json"
    assert event_store.requested_dag_ids() == {"orders_system_test"}


def test_the_readme_transport_configuration_builds_the_event_store():
    from openlineage.client.transport import get_default_factory

    from lineage_operators.testing.store_transport import find_store_directory

    (block,) = re.findall(r"```json\n(.*?)```", _section(), re.DOTALL)
    transport = get_default_factory().create(json.loads(block))
    assert find_store_directory(transport) == "/shared/lineage-tests"
    assert [t.kind for t in transport.transports] == ["http", "lineage_operators_event_store"]
