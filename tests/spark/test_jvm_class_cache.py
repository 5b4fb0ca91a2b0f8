"""A fresh driver JVM takes the classes this package compiles from the disk cache another JVM filled:
it compiles nothing, and the lineage it captures is the same.

The suite's JVM fills a cache of the test's own (compiling every ``jvm/java`` source and storing the
bytes, as a first task would; no instance is made, since py4j cannot call a second class of the same
name in one JVM) and captures a small job: a Parquet read, an aggregate, a write, an RDD action, so
the plan reader, the column-lineage writer and the RDD job reader are all used. One fresh process
(:mod:`class_cache_child`) then captures the same job with that cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from class_cache_child import RESULT, captured_job

from lineage_operators.spark.jvm import class_cache, classes
from lineage_operators.spark.jvm.class_cache import ENV_VAR
from lineage_operators.spark.jvm.tools import tools_for

_HERE = Path(__file__).resolve().parent


def _fresh_process(work: Path, cache: Path) -> dict[str, Any]:
    paths = [str(_HERE), *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    env = {**os.environ, ENV_VAR: str(cache), "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    done = subprocess.run(
        [sys.executable, str(_HERE / "class_cache_child.py"), str(work)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    for line in done.stdout.splitlines():
        if line.startswith(RESULT):
            report: dict[str, Any] = json.loads(line[len(RESULT) :])
            return report
    raise AssertionError(f"the child failed ({done.returncode}): {done.stderr[-3000:]}")


def _fill(spark: Any, cache: Path) -> list[str]:
    """Compile every shipped Java source in the suite's JVM and store its bytes in ``cache``."""
    tools = tools_for(spark.sparkContext._gateway)
    stored = []
    for source_file in sorted(Path(classes.__file__).parent.joinpath("java").glob("*.java")):
        class_name = f"lineage_operators.{source_file.stem}"
        source = source_file.read_text(encoding="utf-8")
        key = classes._key(tools, class_name, source)
        assert key is not None
        classes._store(tools, cache, key, classes._compile(tools, source))
        assert class_cache.load(cache, key) is not None
        stored.append(class_name)
    return stored


def test_a_fresh_jvm_loads_the_classes_from_the_cache_and_captures_the_same(
    spark: Any, tmp_path: Path
) -> None:
    cache = tmp_path / "jvm-classes"
    stored = _fill(spark, cache)
    assert "lineage_operators.Handles" in stored
    here = captured_job(spark, tmp_path / "work")

    fresh = _fresh_process(tmp_path / "work", cache)
    assert fresh["compiled"] == 0
    assert fresh["defined"] >= 4  # Handles, the execution reader, the plan writer, the RDD job reader
    assert here["outputs"], "the job's write was captured"
    assert here["inputs"]
    assert any("columnLineage" in d["facets"] for d in here["outputs"])
    assert (fresh["inputs"], fresh["outputs"]) == (here["inputs"], here["outputs"])
