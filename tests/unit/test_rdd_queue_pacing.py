"""The reader thread reads the RDD-job queue at most once per interval between executions (no Spark)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from lineage_operators.spark.rdd import jobs as rdd
from lineage_operators.spark.rdd.jobs import QUEUE_READ_INTERVAL_S, RddJobWatcher


def test_between_executions_the_queue_is_read_once_per_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr(rdd, "time", SimpleNamespace(monotonic=lambda: clock[0]))  # this module only
    watcher = RddJobWatcher(tools=None, jsc=SimpleNamespace(sc=lambda: None))  # type: ignore[arg-type]
    reads: list[float] = []
    monkeypatch.setattr(watcher, "read_queued", lambda wait_s=-1: reads.append(clock[0]) or True)

    for _ in range(50):  # a burst of executions, each followed by the reader's call
        watcher.read_queued_if_due()
        clock[0] += QUEUE_READ_INTERVAL_S / 100
    assert reads == [1000.0]  # the first call reads; the burst's other 49 cost no round trip

    clock[0] = 1000.0 + QUEUE_READ_INTERVAL_S
    watcher.read_queued_if_due()
    assert reads == [1000.0, 1000.0 + QUEUE_READ_INTERVAL_S]
