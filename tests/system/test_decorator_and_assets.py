"""``@task.lineage_pyspark`` (mapped, XCom, injected ``lineage``) and Assets from captured outputs:
a consumer DAG scheduled on a produced Asset gets its run from Airflow's scheduler code."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.system.conftest import LOGICAL_DATE, dataset_ids, final_event, load_dag_file

from lineage_operators.testing import validate_events

DAGS = Path(__file__).parent / "dags_assets"


@pytest.fixture
def assets_dags(tmp_path: Path, base_dir: Path) -> Path:
    """A dags folder with the producer and the consumer (dag.test syncs the whole folder)."""
    folder = tmp_path / "dags"
    folder.mkdir()
    for name in ("producer.py", "consumer.py"):
        (folder / name).symlink_to(DAGS / name)
    return folder


def _mapped_event(result, task_id: str, map_index: int) -> dict:
    events = [
        event
        for event in result[f"assets_producer.{task_id}.event.complete"]
        if event["run"]["facets"]["airflow"]["taskInstance"]["map_index"] == map_index
    ]
    assert len(events) == 1, events
    return events[0]


def test_producer_assets_trigger_the_consumer(run_dag, assets_dags: Path, base_dir: Path):
    from airflow.models import DagModel
    from airflow.models.asset import AssetDagRunQueue, AssetEvent, AssetModel
    from airflow.models.dagrun import DagRun
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
        expected = {f"file://{base_dir}/orders", f"file://{base_dir}/parts/p1", f"file://{base_dir}/parts/p2"}
        assert expected <= uris
        events = session.scalars(select(AssetEvent).join(AssetEvent.asset)).all()
        assert {e.asset.uri for e in events if e.source_dag_id == "assets_producer"} >= expected

        # Airflow queued the consumer when the producer's task reported its asset events ...
        queued = session.scalars(select(AssetDagRunQueue.target_dag_id)).all()
        assert "assets_consumer" in queued

        # ... and the scheduler's own step creates the asset-triggered run from that queue.
        from airflow.jobs.job import Job
        from airflow.jobs.scheduler_job_runner import SchedulerJobRunner

        query, triggered = DagModel.dags_needing_dagruns(session)
        due = [model for model in query.all() if model.dag_id in triggered]
        assert [model.dag_id for model in due] == ["assets_consumer"]
        SchedulerJobRunner(job=Job())._create_dag_runs_asset_triggered(dag_models=due, session=session)
        session.flush()
        run = session.scalars(select(DagRun).where(DagRun.dag_id == "assets_consumer")).one()
        assert str(run.run_type) in ("asset_triggered", "DagRunType.ASSET_TRIGGERED")
        assert {e.asset.uri for e in run.consumed_asset_events} == {f"file://{base_dir}/orders"}
