"""Child processes run the way the tests need them: to the end, text output captured, no raise."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path


def run_to_end(
    args: Sequence[str | Path], *, cwd: Path, env: Mapping[str, str], timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    """Run ``args`` to its end; the caller asserts on the exit status and the captured output."""
    return subprocess.run(
        [str(arg) for arg in args],
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
