"""`make test` runs every suite the Makefile defines per Spark line, each once, the main suite first.

The suites are listed one by one in SUITES (longest first, so that make starts them in that order); a line
added to SPARK_LINES, ICEBERG_LINES, DELTA_LINES or a peer's test lines must be added there too, or CI
would silently stop running it.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_PRINT = """
print-%:
\t@echo $($*)
"""


def _variable(tmp_path: Path, name: str) -> list[str]:
    extra = tmp_path / "print.mk"
    extra.write_text(_PRINT)
    done = subprocess.run(
        ["make", "--no-print-directory", "-s", "-f", "Makefile", "-f", str(extra), f"print-{name}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.split()


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_suites_lists_every_line_suite_once_the_main_suite_first(tmp_path: Path) -> None:
    suites = _variable(tmp_path, "SUITES")
    expected = {"test-main", "test-lowest", "test-lowest-spark"}
    for kind, lines in (
        ("spark", "SPARK_LINES"),
        ("iceberg", "ICEBERG_LINES"),
        ("delta", "DELTA_LINES"),
        ("peer", "PEER_TEST_LINES"),
        ("peer-lakehouse", "LAKEHOUSE_PEER_TEST_LINES"),
    ):
        expected |= {f"test-{kind}-{line}" for line in _variable(tmp_path, lines)}
    assert suites[0] == "test-main"
    assert len(suites) == len(set(suites))
    assert set(suites) == expected


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_test_runs_the_suites_without_a_phony_prerequisite(tmp_path: Path) -> None:
    """A suite waiting on the phony `services` lets make start the others before it (see the Makefile)."""
    done = subprocess.run(["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True, check=False)
    recipe = [line for line in done.stdout.splitlines() if "--output-sync=target" in line]
    assert recipe, done.stdout[-2000:]
    assert "SERVICES= " in recipe[-1]
    assert recipe[-1].split("SERVICES= ", 1)[1].split() == _variable(tmp_path, "SUITES")
