"""The pytest plugin as a user sees it: a tiny DAG, a ten-line test, golden file update/pass/fail;
and a plugin that touches nothing: no environment, no file, never the user's own Airflow home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

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

# The user's test: what the docs' testing page shows.
USER_TEST = """
from pathlib import Path

from lineage_operators.testing import assert_events_match_file, load_dag, validate_events

HERE = Path(__file__).parent
GOLDEN = HERE / "golden" / "shop_etl.json"


def test_shop_etl_lineage(run_dag, tmp_path, monkeypatch):
    monkeypatch.setenv("OUT_DIR", str(tmp_path))
    dag = load_dag(HERE / "dags" / "shop_etl.py")
    result = run_dag(dag)
    assert result.state == "success"
    validate_events(result)
    assert_events_match_file(result, GOLDEN, placeholders={"base_dir": tmp_path})
"""

# The plugin's start-up, seen from inside the user's session: nothing imported, nothing set.
# Then Airflow is imported at collection time, configured for the user's real home: run_dag must
# still leave that home alone.
CONFTEST = """
import os
import sys

AIRFLOW_IMPORTED_BEFORE_CONFTEST = "airflow" in sys.modules
ENV_AT_CONFTEST = {k: v for k, v in os.environ.items() if k.startswith("AIRFLOW")}

import airflow.settings  # noqa: E402  (a user's conftest importing Airflow early)


def test_startup_env():
    assert not AIRFLOW_IMPORTED_BEFORE_CONFTEST
    assert ENV_AT_CONFTEST == {"AIRFLOW_HOME": os.environ["REAL_AIRFLOW_HOME"]}
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
    changed_test = USER_TEST.replace('"shop_etl.py"', '"shop_etl_changed.py"').replace(
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
    real_home = pytester.path.parent / "real-airflow-home"
    real_home.mkdir()
    (real_home / "airflow.cfg").write_text(
        f"[database]\nsql_alchemy_conn = sqlite:///{real_home / 'airflow.db'}\n"
        f"[core]\nload_examples = False\ndags_folder = {real_home / 'dags'}\n"
    )
    for name in [n for n in os.environ if n.startswith("AIRFLOW")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AIRFLOW_HOME", str(real_home))
    monkeypatch.setenv("REAL_AIRFLOW_HOME", str(real_home))
    tmpdir = pytester.path.parent / "tmpdir"
    tmpdir.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmpdir))  # where a leftover temporary home would show up
    monkeypatch.delenv("LINEAGE_UPDATE_GOLDEN", raising=False)
    return pytester


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file of an Airflow home but ``logs/``, which Airflow itself creates when the user's conftest
    imports it with that home (before any harness code runs)."""
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.relative_to(folder).parts[0] != "logs"
    }


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    basetemp = pytester.path.parent / "basetemp"
    return pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-q", f"--basetemp={basetemp}", *args, timeout=300
    )


def test_update_then_pass_then_fail_on_a_changed_dataset(user_project: pytest.Pytester) -> None:
    """Two pytest sessions (each pays Airflow's start-up, ~15 s): update; then pass and fail."""
    golden = user_project.path / "golden" / "shop_etl.json"
    real_home = Path(os.environ["REAL_AIRFLOW_HOME"])
    before = _snapshot(real_home)

    # 1. update mode writes the golden file from the run
    _run(user_project, "--lineage-update-golden", "test_shop_etl.py", "test_startup.py").assert_outcomes(
        passed=2
    )
    doc = json.loads(golden.read_text())
    assert set(doc) == KEYS
    complete = doc["shop.etl.copy.event.complete"]
    # lineage only: type, job (namespace as a placeholder), datasets with their lineage facets
    assert complete == {
        "eventType": "COMPLETE",
        "job": {"name": "shop.etl.copy", "namespace": "${namespace}"},
        "inputs": [{"facets": {}, "name": "/data/raw/orders.csv", "namespace": "file"}],
        "outputs": [{"facets": {}, "name": "${base_dir}/orders.parquet", "namespace": "file"}],
    }
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

    # the user's own Airflow home was never written, and no temporary home was left behind
    assert _snapshot(real_home) == before
    assert list((user_project.path.parent / "tmpdir").iterdir()) == []


def test_a_session_that_uses_no_fixture_sees_no_trace_of_the_plugin(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_plain="""
import os, sys, tempfile

def test_untouched():
    assert "airflow" not in sys.modules
    assert not any(k.startswith("AIRFLOW") for k in os.environ)
    assert os.listdir(tempfile.gettempdir()) == []
"""
    )
    tmpdir = pytester.path / "tmpdir"
    tmpdir.mkdir()
    env_names = [n for n in os.environ if n.startswith("AIRFLOW")]
    with pytest.MonkeyPatch.context() as mp:
        for name in env_names:
            mp.delenv(name)
        mp.setenv("TMPDIR", str(tmpdir))
        result = pytester.runpytest_subprocess(
            "-p", "no:cacheprovider", f"--basetemp={pytester.path / 'basetemp'}", timeout=120
        )
    result.assert_outcomes(passed=1)
    assert list(tmpdir.iterdir()) == []


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
