"""The capture lets go of the JVM objects it read as soon as it has read them.

A py4j handle on which a method was called is in a Python reference cycle, so the JVM object stays
bound in py4j's gateway until Python's cyclic collector runs, which in a task process may be never
before the task ends. Bound executions kept their executed plans, and with them broadcast
relations, in the driver's heap: the memory benchmark's JVM peaked ~160 MiB higher with capture
on. Python's collector is off in these tests, so only an explicit release can free them.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from py4j.protocol import Py4JError

from lineage_operators.spark.capture.classic import SparkLineageCapture
from lineage_operators.spark.jvm.handles import release
from lineage_operators.spark.listen import listener as lst
from lineage_operators.spark.listen.execution_queue import HeldExecution


@pytest.fixture
def no_cyclic_gc() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _weak(spark: Any, obj: Any) -> Any:
    return spark.sparkContext._gateway.jvm.java.lang.ref.WeakReference(obj)


def _collected(spark: Any, refs: list[Any], wait_s: float = 15.0) -> list[bool]:
    """Whether the JVM collected each weakly referenced object; py4j sends releases from a worker
    thread that polls every second, so this retries for a while."""
    deadline = time.monotonic() + wait_s
    while True:
        spark.sparkContext._gateway.jvm.java.lang.System.gc()
        collected = [ref.get() is None for ref in refs]
        if all(collected) or time.monotonic() > deadline:
            return collected
        time.sleep(0.5)


def test_read_executions_are_released(spark: Any, tmp_path: Path, no_cyclic_gc: None) -> None:
    small = str(tmp_path / "small")
    spark.range(5).selectExpr("id AS k", "id * 2 AS v").write.parquet(small)
    capture = SparkLineageCapture(spark)
    capture.start()
    refs: list[Any] = []
    handles: list[Any] = []
    try:
        reader = capture._reader
        read = reader.read

        def recording_read(func_name: str, qe: Any, succeeded: bool, *reply: Any) -> Any:
            # the JVM queue hands a HeldExecution: the handle it fetches must be released too
            handle = qe._handle() if isinstance(qe, HeldExecution) else qe
            refs.append(_weak(spark, handle))
            handles.append(handle)
            return read(func_name, qe, succeeded, *reply)

        reader.read = recording_read
        joined = (
            spark.range(1000)
            .withColumnRenamed("id", "k")
            .join(spark.read.parquet(small).hint("broadcast"), "k")
        )
        joined.write.parquet(str(tmp_path / "joined"))
        assert lst.drain(spark.sparkContext._jsc, 30)
        assert capture._drain()
    finally:
        result = capture.stop()
    assert any(d.name == str(tmp_path / "joined") for d in result.outputs), result.outputs
    assert refs, "the capture read no execution"
    # the write's QueryExecution (executed plan, broadcast relation) is no longer kept by the capture
    assert all(_collected(spark, refs))
    for handle in handles:
        with pytest.raises(Py4JError, match="does not exist"):  # its object id is unknown now
            handle.id()


def test_read_rdd_jobs_are_released(spark: Any, tmp_path: Path, no_cyclic_gc: None) -> None:
    source = tmp_path / "in"
    source.mkdir()
    (source / "a.txt").write_text("a\n")
    capture = SparkLineageCapture(spark)
    capture.start()
    try:
        spark.sparkContext.textFile(str(source)).saveAsTextFile(str(tmp_path / "out"))
        assert lst.drain(spark.sparkContext._jsc, 30)
        watcher = capture._rdd_jobs
        assert watcher is not None
        item = watcher._queue.peek()
        option = item.get(1)
        job = option.get()
        ref = _weak(spark, job)
        release(job, option, item)  # this test's own handles
        spark.range(3).count()  # an execution: the reader thread reads it, then the queued jobs
        assert capture._drain()
        assert int(watcher._queue.size()) == 0
        assert _collected(spark, [ref]) == [True]
    finally:
        result = capture.stop()
    assert any(d.name == str(tmp_path / "out") for d in result.outputs), result.outputs


def test_release_skips_what_is_no_handle() -> None:
    class Handle:
        detached = 0

        def _detach(self) -> None:
            Handle.detached += 1
            raise RuntimeError("the gateway is gone")

    release(None, "text", Handle(), Handle())  # never raises
    assert Handle.detached == 2
