"""Which jobs' task metrics belong to which JDBC write (pure parts of spark/listen/job_statistics.py)."""

from __future__ import annotations

from typing import Any

import pytest

from lineage_operators.spark.facts import ExecutionFacts, RelationFacts
from lineage_operators.spark.jvm.text import NONE, RSEP, SEP, SEP2
from lineage_operators.spark.listen.job_statistics import (
    ExecutionJobs,
    add_job_statistics,
    parse_executions,
    tree_jobs,
    wants_job_statistics,
)


def _record(*fields: str) -> str:
    return SEP.join(fields)


def test_parse_executions_keeps_newer_ones_and_their_jobs() -> None:
    text = RSEP.join(
        [
            _record("3", "3", "q3", ""),
            _record("4", "3", "q4", f"7{SEP2}8"),
            _record("5", "5", NONE, "9"),
            _record("x", "5", "bad", ""),
        ]
    )
    assert parse_executions(text, since_id=3) == [
        ExecutionJobs(4, 3, "q4", (7, 8)),
        ExecutionJobs(5, 5, None, (9,)),
    ]
    assert parse_executions(None) == []


def test_parse_executions_read_for_attribution_keep_their_jobs_capture_tags() -> None:
    tag = "lineage-operators-capture-1"
    text = RSEP.join([_record("6", "6", "q6", f"1{SEP2}2", tag), _record("7", "6", "q7", "3", "")])
    assert parse_executions(text) == [
        ExecutionJobs(6, 6, "q6", (1, 2), frozenset({tag})),
        ExecutionJobs(7, 6, "q7", (3,), frozenset()),
    ]


T1 = ("jdbc:postgresql://db/x", "t1")
JT = ("file:/warehouse/jt",)

# (executions, writes wanting statistics, expected query id -> jobs)
CASES: list[tuple[str, list[ExecutionJobs], dict[str, set[Any]], dict[str, tuple[int, ...]]]] = [
    (
        "df.write.jdbc: the command has no job, its nested foreachPartition has",
        [ExecutionJobs(0, 0, "save", ()), ExecutionJobs(1, 0, "fp", (0,))],
        {"save": {T1}},
        {"save": (0,)},
    ),
    (
        "two writes of the task: each tree its own jobs",
        [
            ExecutionJobs(0, 0, "a", ()),
            ExecutionJobs(1, 0, "fp1", (0,)),
            ExecutionJobs(2, 2, "b", ()),
            ExecutionJobs(3, 2, "fp2", (1, 2)),
        ],
        {"a": {T1}, "b": {T1}},
        {"a": (0,), "b": (1, 2)},
    ),
    (
        "INSERT INTO a JDBC relation: the nested save of the same table is not counted again",
        [ExecutionJobs(3, 3, "insert", ()), ExecutionJobs(4, 3, "save", ()), ExecutionJobs(5, 3, "fp", (1,))],
        {"insert": {T1}, "save": {T1}},
        {"insert": (1,)},
    ),
    (
        "INSERT INTO a JDBC-backed catalog table: table name and JDBC name both get the rows",
        [ExecutionJobs(3, 3, "insert", ()), ExecutionJobs(4, 3, "save", ()), ExecutionJobs(5, 3, "fp", (1,))],
        {"insert": {JT}, "save": {T1}},
        {"insert": (1,), "save": (1,)},
    ),
    (
        "a tree without a JDBC write gives nothing",
        [ExecutionJobs(0, 0, "parquet", (0,))],
        {},
        {},
    ),
]


@pytest.mark.parametrize(
    ("executions", "writes", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_tree_jobs(
    executions: list[ExecutionJobs], writes: dict[str, set[Any]], expected: dict[str, tuple[int, ...]]
) -> None:
    assert tree_jobs(executions, writes) == expected


STREAM_WRITE_V1 = "org.apache.spark.sql.execution.streaming.sources.WriteToMicroBatchDataSourceV1"


def test_only_jdbc_and_stream_file_sink_outputs_without_statistics_want_them() -> None:
    assert wants_job_statistics(RelationFacts(jdbc_url="jdbc:x", jdbc_table="t", provider="jdbc"))
    assert not wants_job_statistics(RelationFacts(jdbc_url="jdbc:x", provider="jdbc", rows=3))
    assert not wants_job_statistics(RelationFacts(location="/data/out", provider="parquet"))
    sink = RelationFacts(location="/data/stream", provider="parquet")
    assert wants_job_statistics(sink, STREAM_WRITE_V1)
    assert not wants_job_statistics(RelationFacts(location="/data/stream", files=2), STREAM_WRITE_V1)
    assert not wants_job_statistics(RelationFacts(kafka=("b:9092", "t")), STREAM_WRITE_V1)


def test_a_stream_file_sink_gets_rows_bytes_and_files_of_its_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    from lineage_operators.spark.listen import job_statistics

    totals = {7: job_statistics.JobTotals(True, 10, 100, 4, 512, 2)}
    monkeypatch.setattr(job_statistics, "job_totals", lambda sc, job: totals[job])

    class Session:
        def sparkContext(self) -> None:
            return None

    sink = RelationFacts(location="/data/stream", provider="parquet")
    batch = ExecutionFacts("microbatch", True, query_id="b", root=STREAM_WRITE_V1, outputs=[sink])
    executions = [ExecutionJobs(5, 5, "b", (7,))]
    add_job_statistics(None, Session(), [batch], executions=executions)  # type: ignore[arg-type]
    assert (sink.rows, sink.size, sink.files) == (4, 512, 2)


def test_failed_writes_and_file_writes_touch_no_status_store() -> None:
    """No JDBC write that succeeded: the status store is not read at all (the JVM objects are None)."""
    failed = ExecutionFacts(
        "save", False, query_id="q", outputs=[RelationFacts(jdbc_url="j", provider="jdbc")]
    )
    files = ExecutionFacts(
        "save", True, query_id="r", outputs=[RelationFacts(location="/out", provider="parquet")]
    )
    add_job_statistics(None, None, [failed, files])  # type: ignore[arg-type]
    assert failed.outputs[0].rows is None
    assert files.outputs[0].rows is None


def test_executions_read_for_attribution_are_not_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    from lineage_operators.spark.listen import job_statistics

    def read_again(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the status store was read a second time")

    monkeypatch.setattr(job_statistics, "read_executions", read_again)
    totals = job_statistics.JobTotals(True, 0, 0, 5, 0)
    monkeypatch.setattr(job_statistics, "job_totals", lambda sc, job: totals)

    class Session:
        def sparkContext(self) -> None:
            return None

    table = RelationFacts(jdbc_url="jdbc:x", jdbc_table="t", provider="jdbc")
    write = ExecutionFacts("save", True, query_id="w", outputs=[table])
    executions = [ExecutionJobs(3, 3, "w", ()), ExecutionJobs(4, 3, "fp", (2,), frozenset({"tag"}))]
    add_job_statistics(None, Session(), [write], since_id=2, executions=executions)  # type: ignore[arg-type]
    assert write.outputs[0].rows == 5
