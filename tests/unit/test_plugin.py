"""The pytest plugin as a user sees it: a tiny DAG, a ten-line test, golden file update/pass/fail."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lineage_operators.testing import find_spec_dir
from lineage_operators.testing.runner import HOME_MARKER_ENV_VAR

pytest_plugins = ["pytester"]

DAG_FILE = """
import os

import pendulum
from airflow.providers.openlineage.extractors import OperatorLineage
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG
from openlineage.client.event_v2 import Dataset

SOURCE = "/data/raw/orders.csv"


class CopyOperator(PythonOperator):
    def get_openlineage_facets_on_start(self):
        return OperatorLineage(inputs=[Dataset(namespace="file", name=SOURCE)])

    def get_openlineage_facets_on_complete(self, task_instance):
        target = os.environ["OUT_DIR"] + "/orders.parquet"
        return OperatorLineage(
            inputs=[Dataset(namespace="file", name=SOURCE)], outputs=[Dataset(namespace="file", name=target)]
        )


with DAG("shop.etl", schedule=None, start_date=pendulum.datetime(2024, 1, 1)) as dag:
    CopyOperator(task_id="copy", python_callable=lambda: None)
"""

# The user's test: what the README shows.
USER_TEST = """
from pathlib import Path

from dags.shop_etl import dag
from lineage_operators.testing import assert_events_match_file, validate_events

GOLDEN = Path(__file__).parent / "golden" / "shop_etl.json"


def test_shop_etl_lineage(run_dag, tmp_path, monkeypatch):
    monkeypatch.setenv("OUT_DIR", str(tmp_path))
    result = run_dag(dag)
    assert result.state == "success"
    validate_events(result)
    assert_events_match_file(result, GOLDEN, placeholders={"base_dir": tmp_path})
"""

# Checks of the plugin's start-up, seen from inside the user's session.
CONFTEST = """
import os
import sys

AIRFLOW_IMPORTED_BEFORE_CONFTEST = "airflow" in sys.modules
AIRFLOW_HOME_AT_CONFTEST = os.environ.get("AIRFLOW_HOME")


def test_startup_env(tmp_path_factory):
    assert not AIRFLOW_IMPORTED_BEFORE_CONFTEST
    assert AIRFLOW_HOME_AT_CONFTEST and "lineage-airflow-" in AIRFLOW_HOME_AT_CONFTEST
    assert AIRFLOW_HOME_AT_CONFTEST != os.environ["OUTER_AIRFLOW_HOME"]
    assert os.environ["AIRFLOW__CORE__LOAD_EXAMPLES"] == "False"
    db_url = os.environ["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"]
    assert db_url.startswith("sqlite:///" + AIRFLOW_HOME_AT_CONFTEST)
"""

KEYS = {
    "shop.etl.event.start",
    "shop.etl.event.complete",
    "shop.etl.copy.event.start",
    "shop.etl.copy.event.complete",
}


@pytest.fixture
def user_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    changed_dag = DAG_FILE.replace("orders.csv", "orders_v2.csv")
    changed_test = USER_TEST.replace("dags.shop_etl", "dags.shop_etl_changed").replace(
        "test_shop_etl_lineage", "test_changed_shop_etl_lineage"
    )
    pytester.makepyfile(
        **{
            "dags/shop_etl": DAG_FILE,
            "test_shop_etl": USER_TEST,
            # the same DAG after someone changed the file it reads, checked against the same golden file
            "dags/shop_etl_changed": changed_dag,
            "test_shop_etl_changed": changed_test,
            "test_startup": "from conftest import test_startup_env",
        }
    )
    pytester.makeconftest(CONFTEST)
    monkeypatch.setenv("OPENLINEAGE_SPEC_DIR", str(find_spec_dir(Path(__file__).parent)))
    monkeypatch.setenv("OUTER_AIRFLOW_HOME", os.environ.get("AIRFLOW_HOME", ""))
    monkeypatch.delenv("LINEAGE_UPDATE_GOLDEN", raising=False)
    return pytester


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", *args, timeout=240)


def test_update_then_pass_then_fail_on_a_changed_dataset(user_project: pytest.Pytester) -> None:
    """Two pytest sessions (each pays Airflow's start-up, ~15 s): update; then pass and fail."""
    golden = user_project.path / "golden" / "shop_etl.json"

    # 1. update mode writes the golden file from the run
    _run(user_project, "--lineage-update-golden", "test_shop_etl.py", "test_startup.py").assert_outcomes(
        passed=2
    )
    doc = json.loads(golden.read_text())
    assert set(doc) == KEYS
    complete = doc["shop.etl.copy.event.complete"]
    assert complete["inputs"] == [{"facets": {}, "name": "/data/raw/orders.csv", "namespace": "file"}]
    assert complete["outputs"][0]["name"] == "${base_dir}/orders.parquet"
    assert complete["run"]["facets"]["parent"]["run"]["runId"] == {"$match": "uuid", "as": "shop.etl"}
    written = golden.read_text()

    # 2. an ordinary run (new tmp_path, run ids, times) matches it;
    # 3. the changed DAG fails, naming the event keys and JSON paths
    result = _run(user_project)
    result.assert_outcomes(passed=2, failed=1)
    output = result.stdout.str()
    assert "FAILED test_shop_etl_changed.py::test_changed_shop_etl_lineage" in output
    for key in ("shop.etl.copy.event.start", "shop.etl.copy.event.complete"):
        assert f"{key}: inputs[namespace=file,name=/data/raw/orders.csv]: missing dataset" in output
        assert f"{key}: inputs[namespace=file,name=/data/raw/orders_v2.csv]: unexpected dataset" in output
    assert "4 mismatch(es) in 2 event key(s)" in output
    assert "--lineage-update-golden" in output
    assert golden.read_text() == written  # comparing never writes


def test_outer_session_home_is_marked_for_child_sessions() -> None:
    """The marker lets pytester/xdist children tell an inherited home from a user's own."""
    assert os.environ.get("AIRFLOW_HOME")
    if os.environ.get(HOME_MARKER_ENV_VAR):
        assert os.environ[HOME_MARKER_ENV_VAR] == os.environ["AIRFLOW_HOME"]


def test_importing_the_harness_and_plugin_imports_no_airflow_nor_openlineage() -> None:
    code = (
        "import sys, lineage_operators.testing as t, lineage_operators.testing.plugin\n"
        "t.load_events, t.assert_events_match, t.assert_events_match_file, t.validate_events, t.run_dag\n"
        "roots = ('airflow', 'openlineage', 'jsonschema')\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in roots)\n"
        "print(heavy)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"
