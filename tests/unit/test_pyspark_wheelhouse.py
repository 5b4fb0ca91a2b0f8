"""The pyspark wheelhouse the Makefile builds (scripts/pyspark_wheels.sh) has what `make test` installs.

A release missing from the wheelhouse still installs, built by uv from the source archive: slower, and ~2 GB
of uv's cache per environment, the growth that filled the disk of a CI run. These checks keep the Makefile's
pinned lower bounds equal to pyproject.toml's, so the lower-bound environments find their wheel.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "pyspark_wheels.sh"


def _makefile_variable(name: str) -> str:
    match = re.search(rf"^{name} :?= *(\S+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert match, f"Makefile defines no {name}"
    return match.group(1)


def _lowest_pyspark(extra: str) -> str:
    pattern = rf'^{extra} = \[.*"pyspark(?:\[\w+\])?>=([0-9.]+)'
    match = re.search(pattern, (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    assert match, f"pyproject.toml's {extra} extra has no pyspark lower bound"
    return match.group(1)


@pytest.mark.parametrize(
    ("variable", "extra"), [("LOWEST_PYSPARK", "connect"), ("LOWEST_SPARK_PYSPARK", "spark")]
)
def test_the_makefiles_lowest_pyspark_is_the_extras_lower_bound(variable: str, extra: str) -> None:
    assert _makefile_variable(variable) == _lowest_pyspark(extra)


def test_uv_installs_from_the_wheelhouse_by_hard_links() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "export UV_FIND_LINKS := $(PYSPARK_WHEELHOUSE)" in makefile
    assert "export UV_LINK_MODE := hardlink" in makefile


def _fake_python(tmp_path: Path, exit_code: int) -> Path:
    fake = tmp_path / "python"
    fake.write_text(f'#!/usr/bin/env bash\necho "pip says: $*"\nexit {exit_code}\n')
    fake.chmod(0o755)
    return fake


def test_a_failed_build_names_the_requirement_and_shows_pips_output(tmp_path: Path) -> None:
    env = {**os.environ, "PYSPARK_WHEELHOUSE": str(tmp_path / "wheels")}
    result = subprocess.run(
        ["bash", str(SCRIPT), str(_fake_python(tmp_path, 1)), "pyspark==3.5.*"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert "pip says: -m pip wheel" in result.stderr
    assert f"--wheel-dir {tmp_path / 'wheels'}" in result.stderr
    assert "could not build a wheel for 'pyspark==3.5.*'" in result.stderr


def test_a_successful_build_is_silent(tmp_path: Path) -> None:
    env = {**os.environ, "PYSPARK_WHEELHOUSE": str(tmp_path / "wheels")}
    result = subprocess.run(
        ["bash", str(SCRIPT), str(_fake_python(tmp_path, 0)), "pyspark<5", "pyspark==4.0.0"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert (tmp_path / "wheels").is_dir()
