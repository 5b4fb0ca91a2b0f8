"""``@task.lineage_pyspark`` (mapped, XCom, injected ``lineage``) and Assets from captured outputs,
from the operator, the decorator and unmodified tasks (plugin configured, code unchanged): a
consumer DAG scheduled on produced Assets gets its run from Airflow's real scheduler, whose
LocalExecutor runs its task to success."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from tests.support.airflow_scheduler import airflow_scheduler
from tests.system.conftest import (
    EXTRACTOR,
    LOGICAL_DATE,
    dataset_ids,
    final_event,
    load_dag_file,
    rebuild_extractors,
)

from lineage_operators.testing import validate_events

DAGS = Path(__file__).parent / "dags_assets"
#: The consumer's run needs two process start-ups (scheduler, execution API) and one task worker;
#: generous for a loaded 2-core machine, a failure shows the services' logs.
CONSUMER_TIMEOUT = 240.0


@pytest.fixture
def assets_dags(tmp_path: Path, base_dir: Path) -> Path:
    """A dags folder with the producer and the consumer (dag.test syncs the whole folder)."""
    folder = tmp_path / "dags"
    folder.mkdir()
    for name in ("producer.py", "consumer.py"):
        (folder / name).symlink_to(DAGS / name)
    return folder


@pytest.fixture
def unmodified_tasks_configured(monkeypatch: pytest.MonkeyPatch):
    """The plugin's configuration for the producer's unmodified tasks, as a user sets it."""
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__EXTRACTORS", EXTRACTOR)
    rebuild_extractors()
    yield
    monkeypatch.delenv("AIRFLOW__OPENLINEAGE__EXTRACTORS")
    rebuild_extractors()


def _mapped_event(result, task_id: str, map_index: int) -> dict:
    events = [
        event
        for event in result[f"assets_producer.{task_id}.event.complete"]
        if event["run"]["facets"]["airflow"]["taskInstance"]["map_index"] == map_index
    ]
    assert len(events) == 1, events
    return events[0]


@pytest.mark.usefixtures("unmodified_tasks_configured")
def test_producer_assets_trigger_the_consumer_which_runs(
    run_dag, assets_dags: Path, base_dir: Path, airflow_db: str, tmp_path: Path
):
    from airflow.models.asset import AssetDagRunQueue, AssetEvent, AssetModel
    from airflow.models.xcom import XComModel
    from airflow.utils.session import create_session
    from sqlalchemy import select

    producer = load_dag_file(assets_dags / "producer.py")
    result = run_dag(producer, logical_date=LOGICAL_DATE, dags_folder=assets_dags)
    validate_events(result)
    assert result.state == "success", result.task_states

    # the decorator: mapped, lineage captured per mapped instance, injected recorder, XCom
    for index, part in enumerate((1, 2)):
        event = _mapped_event(result, "write_part", index)
        assert dataset_ids(event["outputs"]) == [("file", f"{base_dir}/parts/p{part}")]
        assert dataset_ids(event["inputs"]) == [("file", f"{base_dir}/reference/part-{part}.csv")]
        assert "schema" in event["outputs"][0]["facets"]
    counted = final_event(result, "assets_producer", "count_orders")
    assert dataset_ids(counted["inputs"]) == [("file", f"{base_dir}/orders")]

    unmodified = {"unmodified_python": "python", "unmodified_taskflow": "taskflow"}
    for task_id, name in unmodified.items():
        event = final_event(result, "assets_producer", task_id)
        assert dataset_ids(event["outputs"]) == [("file", f"{base_dir}/unmodified/{name}")], task_id

    with create_session() as session:
        total = session.scalar(
            select(XComModel.value).where(
                XComModel.dag_id == "assets_producer",
                XComModel.task_id == "total",
                XComModel.key == "return_value",
            )
        )
        assert XComModel.deserialize_value(type("X", (), {"value": total})()) == 10 + 20 + 5

        uris = set(session.scalars(select(AssetModel.uri)))
        expected = {
            f"file://{base_dir}/orders": "write_orders",
            f"file://{base_dir}/parts/p1": "write_part",
            f"file://{base_dir}/parts/p2": "write_part",
            **{f"file://{base_dir}/unmodified/{name}": task_id for task_id, name in unmodified.items()},
        }
        assert set(expected) <= uris
        events = session.scalars(select(AssetEvent).join(AssetEvent.asset)).all()
        produced = {(e.asset.uri, e.source_task_id) for e in events if e.source_dag_id == "assets_producer"}
        assert set(expected.items()) <= produced

        # Airflow queued the consumer when the producers' tasks reported their asset events
        queued = session.scalars(select(AssetDagRunQueue.target_dag_id)).all()
        assert "assets_consumer" in queued

    # Airflow's scheduler creates the asset-triggered run, its LocalExecutor runs the task.
    started = time.monotonic()
    with airflow_scheduler(Path(airflow_db), assets_dags, tmp_path / "services"):
        run, created = _wait_for_consumer_run(CONSUMER_TIMEOUT, tmp_path / "services")
        finished = time.monotonic()
    consumed = {f"file://{base_dir}/orders", f"file://{base_dir}/unmodified/python"}
    assert run["state"] == "success", run
    assert run["run_type"] == "asset_triggered", run
    assert set(run["consumed"]) == consumed, run
    assert run["tasks"] == {"report": "success"}, run
    marker = json.loads((base_dir / "consumer-marker.json").read_text())
    assert set(marker["parquet_files"]) == consumed
    assert all(count >= 1 for count in marker["parquet_files"].values()), marker
    print(
        f"consumer run created by the scheduler after {created - started:.1f} s, "
        f"its task done after {finished - started:.1f} s"
    )


def _wait_for_consumer_run(timeout: float, logs: Path) -> tuple[dict[str, Any], float]:
    """The consumer's first run once it finished (polled in the shared SQLite DB), and when it was
    first seen."""
    from sqlalchemy.exc import OperationalError

    deadline = time.monotonic() + timeout
    created = None
    while time.monotonic() < deadline:
        try:
            run = _consumer_run()
        except OperationalError:  # the scheduler holds SQLite's write lock for a moment
            run = None
        if run is not None:
            created = created or time.monotonic()
            if run["state"] in ("success", "failed"):
                return run, created
        time.sleep(0.5)
    service_logs = "\n".join(
        f"--- {path.name}\n{path.read_text()[-3000:]}" for path in sorted(logs.glob("*.log"))
    )
    raise AssertionError(f"no finished assets_consumer run within {timeout:.0f} s\n{service_logs}")


def _consumer_run() -> dict[str, Any] | None:
    from airflow.models.dagrun import DagRun
    from airflow.utils.session import create_session
    from sqlalchemy import select

    with create_session() as session:
        run = session.scalars(select(DagRun).where(DagRun.dag_id == "assets_consumer")).first()
        if run is None:
            return None
        return {
            "state": str(getattr(run.state, "value", run.state)),
            "run_type": str(getattr(run.run_type, "value", run.run_type)),
            "consumed": [event.asset.uri for event in run.consumed_asset_events],
            "tasks": {ti.task_id: str(getattr(ti.state, "value", ti.state)) for ti in run.task_instances},
        }
