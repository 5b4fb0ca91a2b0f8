"""The docs' "Testing your lineage" page (its "With pytest" section), copied into a fresh project and run
against the wheel.

The code blocks are read from docs/testing.md at test time (each starts with ``# <path>``), never kept
here, so the docs cannot drift from what works.  The project lives outside the repository, with
no ``pythonpath`` setting, no ``OPENLINEAGE_SPEC_DIR`` (schemas are downloaded from a local mirror,
tests/support/schema_server.py, into a fresh cache) and an ``AIRFLOW_HOME`` pointing at a "real"
Airflow home that must stay untouched.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.support.processes import run_to_end
from tests.support.schema_server import serve_spec
from tests.wheel.conftest import ROOT, WheelEnv

SECTION = "## With pytest"
_BLOCK = re.compile(r"```python\n# (?P<path>[\w./-]+)\n(?P<body>.*?)```", re.DOTALL)


def section_files(page: str, heading: str) -> dict[str, str]:
    """``path -> text`` of every python block under ``heading`` of ``docs/<page>`` that names its file."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    section = text[start : end if end != -1 else len(text)]
    return {m["path"]: f"# {m['path']}\n{m['body']}" for m in _BLOCK.finditer(section)}


def readme_files() -> dict[str, str]:
    """The files of the testing page's "With pytest" section."""
    files = section_files("testing.md", SECTION)
    assert set(files) == {"dags/orders.py", "tests/test_orders_lineage.py"}, sorted(files)
    return files


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


def _pytest(
    env: WheelEnv, project: Path, shell: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    return run_to_end(
        [
            str(env.python),
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            f"--basetemp={project.parent / 'bt'}",
            *args,
        ],
        cwd=project,
        env=shell,
        timeout=900,
    )


def test_readme_testing_section_works_as_copied_and_fails_readably(
    wheel_env: WheelEnv, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    for relative, content in readme_files().items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(content, encoding="utf-8")
    real_home = tmp_path / "real-airflow-home"
    real_home.mkdir()
    (real_home / "airflow.cfg").write_text(
        f"[database]\nsql_alchemy_conn = sqlite:///{real_home / 'airflow.db'}\n"
    )
    before = _snapshot(real_home)
    scratch_tmp = tmp_path / "tmp"
    scratch_tmp.mkdir()

    with serve_spec() as mirror:
        shell = wheel_env.user_env(
            AIRFLOW_HOME=str(real_home),
            TMPDIR=str(scratch_tmp),
            LINEAGE_OPERATORS_SCHEMA_MIRROR=mirror.mirror_url,
            LINEAGE_OPERATORS_SCHEMA_CACHE=str(tmp_path / "schema-cache"),
        )
        # as the docs say: write the golden file once, then compare
        first = _pytest(wheel_env, project, shell, "--lineage-update-golden")
        assert first.returncode == 0, first.stdout[-6000:] + first.stderr[-3000:]
        golden = project / "tests" / "golden" / "orders.json"
        assert '"${base_dir}/clean/orders"' in golden.read_text()
        assert '"${namespace}"' in golden.read_text()

        second = _pytest(wheel_env, project, shell)
        assert second.returncode == 0, second.stdout[-6000:] + second.stderr[-3000:]
        assert "1 passed" in second.stdout
        assert mirror.requests, "schemas were not fetched from the mirror"

        # someone changes where the DAG writes: the test fails and says what changed
        dag_file = project / "dags" / "orders.py"
        dag_file.write_text(dag_file.read_text().replace("/clean/orders", "/clean/orders_v2"))
        third = _pytest(wheel_env, project, shell)
    assert third.returncode == 1, third.stdout[-6000:]
    out = third.stdout
    assert "orders.clean_orders.event.complete: outputs[namespace=file,name=" in out
    assert "/clean/orders]: missing dataset" in out
    assert "/clean/orders_v2]: unexpected dataset" in out
    assert "--lineage-update-golden" in out

    # the user's Airflow home was never written; no temporary home or file was left behind
    assert _snapshot(real_home) == before
    assert sorted(p.name for p in scratch_tmp.iterdir()) == []


def test_failed_task_names_the_task_with_its_exception_and_log(wheel_env: WheelEnv, tmp_path: Path) -> None:
    """The docs' test without its input data: the error says which task failed and why."""
    project = tmp_path / "project"
    for relative, content in readme_files().items():
        lines = [line for line in content.splitlines() if "part-0.csv" not in line]  # no input file
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (project / "tests" / "golden").mkdir(parents=True)
    result = _pytest(wheel_env, project, wheel_env.user_env(TMPDIR=str(tmp_path)))
    out = result.stdout
    assert result.returncode == 1, out[-4000:]
    assert "task 'clean_orders' failed" in out
    assert "exception:" in out
    assert "AnalysisException" in out  # Spark: no CSV to read (the docs' test made none)
    assert "last log lines:" in out


def test_a_session_without_the_fixtures_sees_nothing_of_the_plugin(
    wheel_env: WheelEnv, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_plain.py").write_text(
        "import os, sys, tempfile\n\n"
        "def test_untouched():\n"
        "    assert 'airflow' not in sys.modules\n"
        "    assert not any(k.startswith('AIRFLOW') for k in os.environ)\n"
        "    assert os.listdir(tempfile.gettempdir()) == []\n"
    )
    scratch_tmp = tmp_path / "tmp"
    scratch_tmp.mkdir()
    result = _pytest(wheel_env, project, wheel_env.user_env(TMPDIR=str(scratch_tmp)))
    assert result.returncode == 0, result.stdout[-3000:]
    assert list(scratch_tmp.iterdir()) == []
    listing = run_to_end(
        [str(wheel_env.python), "-m", "pytest", "--trace-config", "--co", "-q"],
        cwd=project,
        env=wheel_env.user_env(),
        timeout=120,
    )
    assert "lineage_operators" in listing.stdout  # the plugin was loaded, and stayed inert
