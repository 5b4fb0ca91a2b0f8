"""Tests against the built wheel, installed as a user would: a fresh virtual environment outside the
repository with ``lineage-operators[spark,openlineage]`` from the wheel, never the editable checkout.

The wheel is built once per session into ``.build/wheel`` (ignored by git); the environment is created
once per session in a temporary folder (uv's cache makes it quick) and removed afterwards.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WHEEL_DIR = ROOT / ".build" / "wheel"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.wheel)


@dataclass(frozen=True)
class WheelEnv:
    python: Path
    wheel: Path

    def user_env(self, **extra: str) -> dict[str, str]:
        """A user's shell: none of this repository's Airflow, spec or Python path settings."""
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("AIRFLOW", "OPENLINEAGE", "LINEAGE_", "PYTEST", "PYSPARK", "VIRTUAL_ENV"))
            and k not in ("PYTHONPATH", "COV_CORE_SOURCE")
        }
        env["PATH"] = f"{self.python.parent}{os.pathsep}{env.get('PATH', '')}"
        env.update(extra)
        return env


def _uv() -> str:
    candidate = Path(sys.executable).parent / "uv"
    found = str(candidate) if candidate.exists() else shutil.which("uv")
    if found is None:
        raise RuntimeError("the wheel tests need uv (make setup installs it into .venv)")
    return found


def _run(*args: str, cwd: Path | None = None) -> None:
    # hard links into uv's cache: a fresh environment in seconds, and no second copy of PySpark on disk
    env = {**os.environ, "UV_LINK_MODE": "hardlink"}
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")


PREPARED_ENV_VAR = "LINEAGE_TEST_WHEEL_PYTHON"


@pytest.fixture(scope="session")
def wheel_env() -> Iterator[WheelEnv]:
    prepared = os.environ.get(PREPARED_ENV_VAR)
    if prepared:  # an environment where the wheel is already installed (e.g. a disk too full to build one)
        yield WheelEnv(python=Path(prepared), wheel=next(WHEEL_DIR.glob("lineage_operators-*.whl")))
        return
    uv = _uv()
    shutil.rmtree(WHEEL_DIR, ignore_errors=True)
    _run(uv, "build", "--wheel", "--quiet", "--out-dir", str(WHEEL_DIR), str(ROOT))
    wheels = sorted(WHEEL_DIR.glob("lineage_operators-*.whl"))
    assert len(wheels) == 1, wheels
    venv = Path(tempfile.mkdtemp(prefix="lineage-wheel-venv-"))
    try:
        _run(uv, "venv", "--quiet", "--python", sys.executable, str(venv / "env"))
        python = venv / "env" / "bin" / "python"
        _run(
            uv,
            "pip",
            "install",
            "--quiet",
            "--python",
            str(python),
            f"{wheels[0]}[spark,openlineage]",
            "pytest",
        )
        yield WheelEnv(python=python, wheel=wheels[0])
    finally:
        shutil.rmtree(venv, ignore_errors=True)
