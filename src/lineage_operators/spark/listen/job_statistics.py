"""Statistics of writes that have no write-metrics node (JDBC, a stream's file sink), from the task
metrics of their jobs.

A file write's rows, bytes and files come from its ``DataWritingCommandExec`` metrics
(:mod:`~lineage_operators.spark.plan.statistics`). A JDBC write (``df.write.jdbc``, ``format("jdbc").save()``,
``INSERT INTO`` a JDBC-backed table, CTAS with the ``jdbc`` provider) has none: ``JdbcUtils.savePartition``
counts its rows in the task's ``outputMetrics.recordsWritten`` instead, and runs in jobs of a *nested* SQL
execution (``foreachPartition``). openlineage-spark reports these task metrics (``JobMetricsHolder``: records
and bytes written by the job's tasks). We read the same numbers after the listener bus is drained, from
Spark's status stores, without a listener of our own:

* the SQL status store gives each execution's root execution and jobs, so every job run under
  one top-level command (its tree of executions) is found;
* the app status store gives each job's stages and their ``outputRecords``/``outputBytes``.

The records written by a tree's jobs go to each JDBC write of the tree, once per dataset: an
``INSERT INTO`` a JDBC relation runs a nested ``SaveIntoDataSourceCommand`` of the same table.

A stream's micro-batch into a file sink (``WriteToMicroBatchDataSourceV1``) is the other write with no
metrics node in the plan we read: ``FileStreamSink.addBatch`` runs the file write inside the batch. Its
jobs' tasks count the rows, bytes and files written as a JDBC write's do, and openlineage-spark reports
them the same way, so the same reading gives its ``outputStatistics`` (with the files: one per writing
task, as for an RDD's Hadoop write).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.spark.jvm.spark_classes import SQL_EXECUTION_UI_DATA, STREAM_WRITE_V1
from lineage_operators.spark.jvm.text import RSEP, split_list, split_records
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.listen.execution_ids import key_field

log = get_logger(__name__)


@dataclass(frozen=True)
class ExecutionJobs:
    """One SQL execution as the status store knows it (``job_tags``: only when read for
    attribution, :mod:`~lineage_operators.spark.attribution.classic`)."""

    execution_id: int
    root_id: int
    query_id: str | None
    job_ids: tuple[int, ...] = ()
    job_tags: frozenset[str] = frozenset()


@dataclass(frozen=True)
class JobTotals:
    """Summed over a job's stages (last attempts): what its tasks read and wrote."""

    succeeded: bool
    records_read: int
    bytes_read: int
    records_written: int
    bytes_written: int
    #: tasks of the stages that wrote: one file each for an RDD's Hadoop write (empty ones too)
    files_written: int = 0


def execution_fields(t: JvmTools) -> list[Any]:
    """Field handles of an execution record: id, root id, query id, job ids (more may follow)."""
    return [
        t.step(SQL_EXECUTION_UI_DATA, "executionId"),
        t.step(SQL_EXECUTION_UI_DATA, "rootExecutionId"),
        key_field(t),
        t.mk_string(t.chain((SQL_EXECUTION_UI_DATA, "jobs"), (t.line.collection_class("map"), "keys"))),
    ]


def _build_execution_fn(t: JvmTools) -> Any:
    return t.function(t.record(execution_fields(t)))


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def parse_executions(text: str | None, since_id: int = -1) -> list[ExecutionJobs]:
    """Records of :func:`read_executions`' JVM function; executions up to ``since_id`` left out."""
    found = []
    for record in split_records(text):
        if len(record) < 4:
            continue
        execution_id, root_id = _int(record[0]), _int(record[1])
        if execution_id is None or execution_id <= since_id:
            continue
        jobs = tuple(j for j in (_int(v) for v in split_list(record[3])) if j is not None)
        tags = frozenset(split_list(record[4])) if len(record) > 4 else frozenset()
        root = execution_id if root_id is None else root_id
        found.append(ExecutionJobs(execution_id, root, record[2], jobs, tags))
    return found


def last_execution_id(store: Any) -> int:
    """The newest execution id of a ``SQLAppStatusStore`` (-1 when it holds none)."""
    count = int(store.executionsCount())
    if count <= 0:
        return -1
    return int(store.executionsList(count - 1, 1).head().executionId())


def read_executions(
    t: JvmTools, jss: Any, since_id: int = -1, record_fn: tuple[str, Any] | None = None
) -> list[ExecutionJobs]:
    """The executions of the session's SQL status store whose id is above ``since_id``.

    Execution ids are consecutive and the store evicts the oldest first, so only its tail is read
    (one JVM call, whatever ``spark.sql.ui.retainedExecutions`` is). ``record_fn``: the cache key
    and builder of a record function with more fields than :func:`execution_fields`.
    """
    store = jss.sharedState().statusStore()
    count = int(store.executionsCount())
    if count <= 0:
        return []
    last = last_execution_id(store)
    wanted = count if since_id < 0 else min(count, max(last - since_id, 0))
    if wanted <= 0:
        return []
    key, build = record_fn or ("job_statistics.execution", _build_execution_fn)
    fn = t.cached(key, build)
    text = t.read(t.joined(t.coll.map(store.executionsList(count - wanted, wanted), fn), RSEP))
    return parse_executions(text, since_id)


def tree_jobs(
    executions: Iterable[ExecutionJobs], writes: Mapping[str, Collection[Hashable]]
) -> dict[str, tuple[int, ...]]:
    """Query id of a write -> the jobs of its execution tree.

    ``writes`` maps the query id of each execution whose output wants job statistics to the
    identities of that output. In a tree, the outermost write of an identity takes the jobs; a
    nested write of the same identity (``INSERT INTO`` a JDBC relation runs a
    ``SaveIntoDataSourceCommand`` of the same table) gets nothing, so rows are counted once.
    """
    trees: dict[int, list[ExecutionJobs]] = {}
    for execution in executions:
        trees.setdefault(execution.root_id, []).append(execution)
    found: dict[str, tuple[int, ...]] = {}
    for members in trees.values():
        members.sort(key=lambda e: e.execution_id)
        jobs = tuple(sorted({job for e in members for job in e.job_ids}))
        seen: set[Hashable] = set()
        for execution in members:
            keys = writes.get(execution.query_id or "")
            if keys is None or seen.issuperset(keys):
                continue
            seen.update(keys)
            found[str(execution.query_id)] = jobs
    return found


def job_totals(sc: Any, job_id: int) -> JobTotals | None:
    """A job's totals from the app status store (``sc`` is the JVM SparkContext); None if unknown."""
    try:
        store = sc.statusStore()
        job = store.job(job_id)
        succeeded = str(job.status().toString()) == "SUCCEEDED"
        totals = [0, 0, 0, 0]
        files = 0
        iterator = job.stageIds().iterator()
        while iterator.hasNext():
            stage = store.lastStageAttempt(int(iterator.next()))
            values = (stage.inputRecords(), stage.inputBytes(), stage.outputRecords(), stage.outputBytes())
            totals = [a + int(b) for a, b in zip(totals, values, strict=True)]
            if int(values[2]) or int(values[3]):
                files += int(stage.numCompleteTasks())
        return JobTotals(succeeded, totals[0], totals[1], totals[2], totals[3], files)
    except Exception as exc:
        log.debug("lineage capture: no statistics for job %d: %s", job_id, describe(exc))
        return None


def wants_job_statistics(rel: Any, root: str | None = None) -> bool:
    """An output (RelationFacts) with no statistics from a write node: a JDBC write, or the file sink
    of a micro-batch (``root``: the class of its execution's analyzed plan)."""
    if rel.rows is not None or rel.size is not None or rel.files is not None:
        return False
    return rel.provider == "jdbc" or (root == STREAM_WRITE_V1 and rel.location is not None)


def _identity(rel: Any) -> Hashable:
    return (rel.jdbc_url, rel.jdbc_table, rel.jdbc_query, rel.location, rel.table)


def add_job_statistics(
    t: JvmTools,
    jss: Any,
    facts: Sequence[Any],
    since_id: int = -1,
    executions: Sequence[ExecutionJobs] | None = None,
) -> None:
    """Give the JDBC outputs of succeeded executions (ExecutionFacts) their rows written.

    Call after the listener bus is drained (both status stores are then up to date); pass the
    ``executions`` above ``since_id`` when they were read already. As openlineage-spark, nothing
    is set when the jobs wrote nothing; bytes only when counted (a JDBC write counts none, so no
    ``size`` where openlineage-spark reports 0).
    """
    targets = {
        f.query_id: f
        for f in facts
        if f.succeeded and f.query_id and any(wants_job_statistics(r, f.root) for r in f.outputs)
    }
    if not targets:
        return
    writes = {
        q: {_identity(r) for r in f.outputs if wants_job_statistics(r, f.root)} for q, f in targets.items()
    }
    try:
        if executions is None:
            executions = read_executions(t, jss, since_id)
        jobs = tree_jobs(executions, writes)
        sc = jss.sparkContext()
    except Exception as exc:
        log.debug("lineage capture: cannot read Spark's SQL status store: %s", describe(exc))
        return
    for query_id, job_ids in jobs.items():
        totals = [job_totals(sc, job) for job in job_ids]
        if not totals or any(x is None for x in totals):
            continue
        rows = sum(x.records_written for x in totals if x is not None)
        size = sum(x.bytes_written for x in totals if x is not None)
        files = sum(x.files_written for x in totals if x is not None)
        if rows + size <= 0:
            continue
        execution = targets[query_id]
        for rel in execution.outputs:
            if wants_job_statistics(rel, execution.root):
                rel.rows, rel.size = rows, (size or None)
                if rel.provider != "jdbc":
                    rel.files = files


__all__ = [
    "ExecutionJobs",
    "JobTotals",
    "add_job_statistics",
    "job_totals",
    "last_execution_id",
    "parse_executions",
    "read_executions",
    "tree_jobs",
    "wants_job_statistics",
]
