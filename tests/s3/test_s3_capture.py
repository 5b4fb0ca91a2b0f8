"""Our capture on a real S3 API: every ``s3a://`` job names exactly the datasets openlineage-spark's rules
give (``s3://<bucket>`` + key, partitions and globs trimmed), with their key facets, and nothing it
emitted or logged carries the S3 credentials of the session's conf.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from s3_jobs import EXPECTED, S3Run, S3Workspace
from tests.support.canary import S3_ACCESS_KEY, S3_SECRET_KEY

#: Each job's first test runs the whole S3 corpus (its fixture): S3A's first calls are slow on 2 cores.
pytestmark = pytest.mark.timeout(1200)


def _data_objects(workspace: S3Workspace, namespace: str, name: str) -> int:
    """Objects under ``name`` in the namespace's bucket, Spark's markers (``_*``, ``.*``) aside."""
    bucket = namespace.removeprefix("s3://")
    keys = [k for k in workspace.server.keys(bucket) if k == name or k.startswith(name.rstrip("/") + "/")]
    return sum(1 for k in keys if not k.rsplit("/", 1)[-1].startswith(("_", ".")))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_s3_datasets_are_named_as_openlineage_spark_names_them(
    name: str, s3_run: S3Run, s3_session: tuple[Any, Any, S3Workspace]
) -> None:
    outcome = s3_run.outcomes[name]
    assert outcome.error is None, f"{name} failed: {outcome.error}"
    expected = EXPECTED[name]
    assert sorted(outcome.ours) == sorted(expected), json.dumps(outcome.ours, indent=1, default=str)
    for key, wanted in expected.items():
        view = outcome.ours[key]
        direction, _, dataset = key.partition(" ")
        namespace, _, dataset_name = dataset.rpartition(":")
        assert view["dataSource"] == {"name": namespace, "uri": namespace}, key
        assert view["storage"] == {"storageLayer": "file", "fileFormat": wanted["storage"]}, key
        assert view.get("schema"), f"{key} has no schema"
        if direction == "output":
            assert view["lifecycleStateChange"] == {"lifecycleStateChange": wanted["lifecycle"]}, key
            statistics = view["outputStatistics"]
            assert statistics["rowCount"] > 0, key
            assert statistics["fileCount"] == _data_objects(s3_session[2], namespace, dataset_name), key


def test_a_partitioned_write_is_named_by_its_root_with_the_partition_column_in_its_schema(
    s3_run: S3Run,
) -> None:
    view = s3_run.outcomes["s3_partitioned_write"].ours["output s3://lake:orders_by_date"]
    assert [f["name"] for f in view["schema"]] == ["order_id", "customer", "amount", "order_date"]


def test_the_s3_credentials_of_the_conf_are_in_no_event_and_no_log_line_of_ours(s3_run: S3Run) -> None:
    """The session's conf holds ``fs.s3a.access.key`` and ``fs.s3a.secret.key``: neither value may reach
    what our capture reports (every job's datasets and facets) or any record our loggers wrote."""
    reported = json.dumps({name: outcome.ours for name, outcome in s3_run.outcomes.items()}, default=str)
    logged = "\n".join(s3_run.our_log)  # the capture logs little on jobs that go well: the README test's
    # operator run is where our task log lines are checked too
    for secret in (S3_ACCESS_KEY, S3_SECRET_KEY):
        assert secret not in reported
        assert secret not in logged
