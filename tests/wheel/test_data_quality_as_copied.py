"""The docs' data-quality page (its "Trying it in a test" section), copied into a fresh project and run
against the wheel: declared checks reach the task's events as a user writes them.

The code blocks are read from docs/data-quality.md at test time (each starts with ``# <path>``).
"""

from __future__ import annotations

from pathlib import Path

from tests.support.schema_server import serve_spec
from tests.wheel.conftest import WheelEnv
from tests.wheel.test_readme_as_copied import _pytest, section_files

SECTION = "## Trying it in a test"


def page_files() -> dict[str, str]:
    files = section_files("data-quality.md", SECTION)
    assert set(files) == {"dags/quality_orders.py", "tests/test_quality_orders.py"}, sorted(files)
    return files


def test_data_quality_page_works_as_copied(wheel_env: WheelEnv, tmp_path: Path) -> None:
    project = tmp_path / "project"
    for relative, content in page_files().items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(content, encoding="utf-8")
    with serve_spec() as mirror:
        shell = wheel_env.user_env(
            TMPDIR=str(tmp_path),
            LINEAGE_OPERATORS_SCHEMA_MIRROR=mirror.mirror_url,
            LINEAGE_OPERATORS_SCHEMA_CACHE=str(tmp_path / "schema-cache"),
        )
        result = _pytest(wheel_env, project, shell)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert "1 passed" in result.stdout
