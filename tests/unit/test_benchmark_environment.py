"""The benchmarks' child processes start in a known mode, whatever this process switched on."""

from __future__ import annotations

import pytest
from benchmarks.environment import CONNECT_SWITCHES, PYCACHE_DIR, child_environment


def test_children_start_without_the_connect_switches_of_this_process(monkeypatch: pytest.MonkeyPatch):
    # pyspark's builder.remote(...) sets the first one for the whole process (a --tiny run's
    # Connect benchmark does, while the fresh-process benchmark starts classic children beside it)
    for name in CONNECT_SWITCHES:
        monkeypatch.setenv(name, "1")
    monkeypatch.setenv("LINEAGE_BENCH_MARKER", "kept")
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")

    environment = child_environment()

    assert "SPARK_CONNECT_MODE_ENABLED" in CONNECT_SWITCHES
    assert [name for name in CONNECT_SWITCHES if name in environment] == []
    assert environment["LINEAGE_BENCH_MARKER"] == "kept"
    assert "PYTHONDONTWRITEBYTECODE" not in environment
    assert environment["PYTHONPYCACHEPREFIX"] == str(PYCACHE_DIR)
