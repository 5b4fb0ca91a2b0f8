"""Which of the executions a classic capture saw belong to its task.

A session's query listener sees every execution of the session, whichever thread or task ran it.
The rule, in order:

1. An execution whose jobs carry this capture's job tag
   (:mod:`~lineage_operators.spark.attribution.ownership`) is the task's.
2. One whose jobs carry only other captures' tags is not: another task's thread ran it (a thread
   that outlived its task, a task running beside this one).
3. Otherwise (no jobs, e.g. DDL; a thread that works for no capture; tags cleared by the user;
   pinned-thread mode off) the time window decides: the execution is the task's if its
   ``QueryExecution`` was created after the capture started, or, for an older one, if Spark's SQL
   status store shows it started after that.

Tags are read from Spark's status stores after the listener bus is drained, in one py4j call:
the executions that started after the capture did, each with its root execution and the job tags
of its jobs (a write's jobs run in a nested execution of the same root).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.spark.attribution.ownership import (
    TAG_PREFIX,
    Owner,
    claim,
    tag_new_connections,
    verdict,
)
from lineage_operators.spark.jvm.spark_classes import SQL_EXECUTION_UI_DATA
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.listen.job_statistics import ExecutionJobs, execution_fields, read_executions
from lineage_operators.spark.session.fork_safety import protect_py4j_connections_from_forks

log = get_logger(__name__)

_APP_STORE = "org.apache.spark.status.AppStatusStore"
_JOB = "org.apache.spark.status.api.v1.JobData"
_HOLDER = "java.util.concurrent.atomic.AtomicReference"
_REFERENCE = "java.lang.ref.Reference"
_WEAK = "java.lang.ref.WeakReference"
_JSC = "org.apache.spark.api.java.JavaSparkContext"
_SC = "org.apache.spark.SparkContext"


def attributed(
    facts: Sequence[Any],
    records: Sequence[ExecutionJobs],
    *,
    own_tag: str | None,
    qe_watermark: int | None,
    exec_watermark: int,
) -> list[Any]:
    """Pure: the facts (``ExecutionFacts``) of this task, by the rule of the module docstring.

    ``records``: the status store's executions newer than ``exec_watermark`` (older ones cannot
    be the task's). Facts with ``tags`` set (RDD jobs) are judged by those tags alone.
    """
    by_query = {r.query_id: r for r in records if r.query_id}
    root_tags: dict[int, set[str]] = {}
    for each in records:
        root_tags.setdefault(each.root_id, set()).update(each.job_tags)
    kept = []
    for execution in facts:
        record = by_query.get(execution.query_id) if execution.query_id else None
        if execution.tags is not None:
            tags: Iterable[str] = execution.tags
        else:
            tags = root_tags.get(record.root_id, ()) if record is not None else ()
        judged = verdict(tags, own_tag) if own_tag else None
        if judged == "own" or (
            judged is None and _in_window(execution, record, qe_watermark, exec_watermark)
        ):
            kept.append(execution)
    return kept


def _in_window(
    facts: Any, record: ExecutionJobs | None, qe_watermark: int | None, exec_watermark: int
) -> bool:
    if facts.tags is not None or qe_watermark is None:
        return True  # RDD jobs are read only while the capture runs
    if facts.qe_id is not None and facts.qe_id > qe_watermark:
        return True
    return record is not None and record.execution_id > exec_watermark


def claim_task_threads(sc: Any) -> Owner | None:
    """This capture's mark on the task's threads (:mod:`~lineage_operators.spark.attribution.ownership`), or
    None where Spark cannot keep it: without pinned-thread mode, Python threads share JVM threads (and their
    job tags)."""
    from py4j.clientserver import ClientServer

    if not isinstance(sc._gateway, ClientServer):
        return None
    # a tag lives on the JVM thread of a py4j connection: the provider's forked emitter must not
    # close the connection (py4j would log a reset and reconnect; the new one is tagged again)
    protect_py4j_connections_from_forks()
    tag_new_connections(sc._gateway._gateway_client)

    def tag(value: str) -> None:
        jsc = sc._jsc
        if jsc is not None:  # the session may be stopped when a late thread is tagged
            jsc.addJobTag(value)

    def untag(value: str) -> None:
        jsc = sc._jsc
        if jsc is not None:
            jsc.removeJobTag(value)

    owner = Owner(tag, untag)
    try:
        claim(owner)
    except Exception as exc:
        log.info("lineage capture: the task's thread could not be tagged: %s", describe(exc))
    return owner


def read_records(
    tools: JvmTools, jss: Any, jsc: Any, exec_watermark: int, app_id: str
) -> list[ExecutionJobs]:
    """The SQL executions that started after ``exec_watermark``, with their jobs and the jobs'
    capture tags (one JVM call; evicted executions are missing). JDBC job statistics reuse them
    (:mod:`~lineage_operators.spark.listen.job_statistics`).

    The record function is built once per JVM (~30 round trips) and looks jobs up in the store that
    a holder points at: a new application (the next task of a ``dag.test()``) costs one call to
    point it at its store, weakly, so a stopped application's store is not kept alive by it.
    """
    holder, point_at = tools.cached("attribution.store_holder", _build_point_at)
    tools.cached(f"attribution.store.{app_id}", lambda t: point_at.apply(jsc) or True)
    return read_executions(
        tools,
        jss,
        exec_watermark,
        ("attribution.records", lambda t: t.function(t.record(_fields(t, holder)))),
    )


def _build_point_at(t: JvmTools) -> tuple[Any, Any]:
    """A holder of the current application's status store, and the function (of a
    ``JavaSparkContext``) that points it there, weakly."""
    holder = t.java_class(_HOLDER)()
    to_object = t._mt.methodType(t.cls("void"), t.cls("java.lang.Object"))
    weak = t._lookup.findConstructor(t.cls(_WEAK), to_object).asType(t._oo)
    store_in = t._lookup.findVirtual(t.cls(_HOLDER), "set", to_object).bindTo(holder).asType(t._oo)
    point_at = t.function(t.chain((_JSC, "sc"), (_SC, "statusStore"), weak, store_in))
    return holder, point_at


def _fields(t: JvmTools, holder: Any) -> list[Any]:
    """Field handles of an execution record; jobs are looked up in the store ``holder`` points at."""
    handles = t.jvm.java.lang.invoke.MethodHandles
    getter = t._mt.methodType(t.cls("java.lang.Object"))
    current = t._lookup.findVirtual(t.cls(_HOLDER), "get", getter).bindTo(holder)
    current = current.asType(t._mt.methodType(t.cls(_REFERENCE)))
    store = handles.filterReturnValue(current, t._lookup.findVirtual(t.cls(_REFERENCE), "get", getter))
    job = t._lookup.findVirtual(t.cls(_APP_STORE), "job", t._mt.methodType(t.cls(_JOB), t.cls("int")))
    job = handles.collectArguments(job, 0, store.asType(t._mt.methodType(t.cls(_APP_STORE))))
    job = job.asType(t._oo)
    no_tags = t.constant(t.jvm.scala.Option.empty().toList())
    tags_of_job = t.function(t.first(t.chain(job, (_JOB, "jobTags")), no_tags))
    ours = t.function(t.step("java.lang.String", "startsWith", ("java.lang.String", TAG_PREFIX)))
    job_tags = t.mk_string(  # only captures' tags: Spark adds two long ones of its own per job
        t.chain(
            (SQL_EXECUTION_UI_DATA, "jobs"),
            (t.line.collection_class("map"), "keys"),
            t.coll.step("flatMap", tags_of_job),
            t.coll.step("filter", ours),
        )
    )
    return [*execution_fields(t), job_tags]


__all__ = ["attributed", "claim_task_threads", "read_records"]
