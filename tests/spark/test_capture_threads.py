"""Two captures one after the other on one session (two tasks in one process): each keeps the
executions of its own threads, also when a thread of the first outlives it (issue 14, item 7)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from spark_helpers import local, names

from lineage_operators.spark.capture.chooser import new_capture

pytestmark = pytest.mark.filterwarnings("ignore")


def _thread(target: Callable[[], Any]) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def _two_tasks(spark: Any, out: Path, rdd: bool) -> tuple[Any, Any]:
    """Task a leaves two threads running into task b; b writes on its thread and an extra one."""

    def write(name: str) -> None:
        spark.range(2).write.parquet(str(out / name))

    go, first = threading.Event(), threading.Event()

    def background() -> None:
        write("a_thread")
        first.set()
        go.wait(60)
        write("a_thread_during_b")
        if rdd:
            spark.sparkContext.parallelize(["x"], 1).saveAsTextFile(str(out / "a_rdd_during_b"))

    def late() -> None:  # started by a, calls Spark for the first time while b runs
        go.wait(60)
        write("a_late_thread")

    def older() -> None:  # started before either task: works for no capture
        go.wait(60)
        write("older_thread")

    threads = [_thread(older)]
    a = new_capture(spark)
    a.start()
    threads += [_thread(background), _thread(late)]
    write("a_main")
    first.wait(60)
    result_a = a.stop()

    b = new_capture(spark)
    b.start()
    write("b_main")
    _thread(lambda: write("b_thread")).join()
    go.set()
    for thread in threads:
        thread.join(60)
    return result_a, b.stop()


def test_classic_threads_of_an_earlier_task_stay_out(spark: Any, tmp_path: Path) -> None:
    a, b = _two_tasks(spark, tmp_path, rdd=True)
    assert names(a.outputs) == {local(tmp_path / "a_main"), local(tmp_path / "a_thread")}
    # older_thread: no capture's thread, so the time window counts it (README, "shared sessions")
    assert names(b.outputs) == {local(tmp_path / n) for n in ("b_main", "b_thread", "older_thread")}
    assert (tmp_path / "a_rdd_during_b" / "_SUCCESS").exists()
    assert (tmp_path / "a_late_thread" / "_SUCCESS").exists()


def test_connect_threads_of_an_earlier_task_stay_out(connect_spark: Any, tmp_path: Path) -> None:
    a, b = _two_tasks(connect_spark, tmp_path, rdd=False)
    assert names(a.outputs) == {local(tmp_path / "a_main"), local(tmp_path / "a_thread")}
    assert names(b.outputs) == {local(tmp_path / n) for n in ("b_main", "b_thread", "older_thread")}
    assert (tmp_path / "a_thread_during_b" / "_SUCCESS").exists()
