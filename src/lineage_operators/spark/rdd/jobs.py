"""Jobs that use only RDDs: the scheduler listener that queues them and the watcher that reads them.

No SQL execution runs for ``sc.textFile(p).saveAsTextFile(q)``, so the query listener never sees
it. Like openlineage-spark's ``RddExecutionContext`` we read such jobs from Spark's scheduler:

* A listener is added to a listener-bus queue Spark already runs
  (:func:`~lineage_operators.spark.listen.listener.add_to_bus`; a
  queue of its own cost a thread woken for every event of the task). It is compiled
  (``Handles.RddJobListener``), or where that cannot be, a JDK dynamic proxy whose
  ``InvocationHandler`` is composed of method handles (:mod:`~lineage_operators.spark.jvm.tools`). Either runs
  entirely in the JVM, ignores every event but ``onJobStart`` of jobs without a SQL execution id, and for
  those puts the event and the scheduler's ``ActiveJob`` (final RDD, result function) in a JVM queue. No py4j
  callback per task or job.
* When the capture builds its result (after draining the bus), each queued job is read: inputs by
  walking the final RDD's dependencies to its sources (:mod:`~lineage_operators.spark.rdd.sources`:
  ``HadoopRDD``/ ``NewHadoopRDD`` input directories, ``FileScanRDD`` files' directories), the output directory
  from the Hadoop write configuration held by the result function (``saveAsTextFile``, ``saveAsHadoopFile``,
  ``saveAsPickleFile``, ``saveAsNewAPIHadoopFile``...), statistics from Spark's status store
  (:func:`~lineage_operators.spark.listen.job_statistics.job_totals`). The compiled reader
  (:mod:`~lineage_operators.spark.rdd.reader`) reads all queued jobs in one JVM call; the walk from Python is
  its fallback.

As in openlineage-spark, the ``ActiveJob`` is looked up when the listener sees the job start; a
job that is over by then (a few milliseconds of work) is not seen.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.spark.facts import RDD_JOB, ExecutionFacts, RelationFacts
from lineage_operators.spark.jvm.handles import release
from lineage_operators.spark.jvm.text import NONE
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.listen.job_statistics import job_totals
from lineage_operators.spark.listen.listener import add_to_bus
from lineage_operators.spark.rdd import reader as rdd_reader
from lineage_operators.spark.rdd.reader import JobFiles, job_tags
from lineage_operators.spark.rdd.sources import MAX_DEPTH, locations_of, source_items

log = get_logger(__name__)

_JOB_START = "org.apache.spark.scheduler.SparkListenerJobStart"
#: Between executions, the queue is read at most this often: even empty, a read is a round trip
#: (~1 ms on a busy driver), and a SQL-only task (the overhead benchmark's: 62 executions) queues
#: nothing. Jobs queued meanwhile stay referenced at most this much longer.
QUEUE_READ_INTERVAL_S = 1.0
_OUTPUT_DIR = "mapreduce.output.fileoutputformat.outputdir"
_JOB_TAGS = "spark.job.tags"
_WRITE_CONFIGS = {
    "org.apache.spark.internal.io.HadoopMapRedWriteConfigUtil",
    "org.apache.spark.internal.io.HadoopMapReduceWriteConfigUtil",
}


# --------------------------------------------------------------------------------------------
# the job listener
# --------------------------------------------------------------------------------------------


def _build_dispatch(t: JvmTools) -> Any:
    """(queue, job map, proxy, method, args) -> Object: the body of the listener's
    ``InvocationHandler`` where ``Handles`` (and its compiled listener) is missing.

    Built once per JVM by ~300 py4j round trips; each capture only binds its queue and the
    scheduler's job map (:meth:`RddJobWatcher.start`).
    """
    mh, mt, lookup, cls = t._mh, t._mt, t._lookup, t.cls
    obj, method, args_cls = (
        cls("java.lang.Object"),
        cls("java.lang.reflect.Method"),
        cls("[Ljava.lang.Object;"),
    )
    string, boolean = cls("java.lang.String"), cls("boolean")

    def params(*names: Any) -> Any:
        return t.array("java.lang.Class", list(names))

    def oo(arity: int) -> Any:
        return mt.methodType(obj, params(*[obj] * arity))

    # onJobStart: (queue, map, event) -> queue.add(List.of(event, map.get(event.jobId)))
    get = lookup.findVirtual(
        cls("scala.collection.mutable.HashMap"), "get", mt.methodType(cls("scala.Option"), obj)
    )
    active = mh.filterArguments(
        get.asType(oo(2)), 1, t.array("java.lang.invoke.MethodHandle", [t.step(_JOB_START, "jobId")])
    )
    list_of = lookup.findStatic(
        cls("java.util.List"), "of", mt.methodType(cls("java.util.List"), params(obj, obj))
    )
    pair = mh.permuteArguments(
        mh.collectArguments(list_of.asType(oo(2)), 1, active), oo(2), t.array("int", [1, 0, 1])
    )
    add = lookup.findVirtual(cls("java.util.Collection"), "add", mt.methodType(boolean, obj)).asType(oo(2))
    enqueue = mh.collectArguments(add, 1, pair)
    is_sql = t.chain(
        (_JOB_START, "properties"),
        ("java.util.Properties", "getProperty", ("java.lang.String", "spark.sql.execution.id")),
        t.static("java.util.Objects", "nonNull", ["java.lang.Object"]),
    ).asType(mt.methodType(boolean, obj))
    nothing = mh.dropArguments(mh.constant(obj, NONE), 0, params(obj, obj, obj))
    on_start = mh.guardWithTest(mh.dropArguments(is_sql, 0, params(obj, obj)), nothing, enqueue)
    on_start = mh.catchException(
        on_start, cls("java.lang.Throwable"), mh.dropArguments(nothing, 0, params(cls("java.lang.Throwable")))
    )
    first = mh.insertArguments(mh.arrayElementGetter(args_cls), 1, t.array("java.lang.Object", [0]))
    on_args = mh.dropArguments(
        mh.filterArguments(on_start, 2, t.array("java.lang.invoke.MethodHandle", [first])),
        2,
        params(obj, method),
    )

    def name_is(name: str) -> Any:
        get_name = lookup.findVirtual(method, "getName", mt.methodType(string)).asType(
            mt.methodType(obj, method)
        )
        equals = lookup.findVirtual(string, "equals", mt.methodType(boolean, obj)).bindTo(name)
        test = mh.filterReturnValue(get_name, equals)
        return mh.dropArguments(mh.dropArguments(test, 0, params(obj, obj, obj)), 4, params(args_cls))

    def constant(value: Any) -> Any:
        return mh.dropArguments(mh.constant(obj, value), 0, params(obj, obj, obj, method, args_cls))

    identity = t.static("java.lang.System", "identityHashCode", ["java.lang.Object"])
    hash_code = mh.dropArguments(mh.dropArguments(identity, 0, params(obj, obj)), 3, params(method, args_cls))
    dispatch = constant(None)
    dispatch = mh.guardWithTest(name_is("toString"), constant("lineage_operators.RddJobListener"), dispatch)
    dispatch = mh.guardWithTest(name_is("hashCode"), hash_code, dispatch)
    dispatch = mh.guardWithTest(name_is("equals"), constant(False), dispatch)
    return mh.guardWithTest(name_is("onJobStart"), on_args, dispatch)


def _proxy_types(t: JvmTools) -> tuple[Any, Any]:
    """The listener interface (as a one-element array) and its class loader, for ``Proxy``."""
    interface = t.cls("org.apache.spark.scheduler.SparkListenerInterface")
    return t.array("java.lang.Class", [interface]), interface.getClassLoader()


class RddJobWatcher:
    """Collects the RDD-only jobs run between :meth:`start` and :meth:`stop`.

    The JVM queue holds each job's ``ActiveJob`` (stages, RDD lineage, closures and what they
    capture) until the job's files are read. :meth:`read_queued` reads them; the capture's reader
    thread calls :meth:`read_queued_if_due` after the executions it reads, so the queue does not
    keep them, and what they reference (broadcast relations among them), alive until the task ends
    (the memory benchmark's task runs 41 such jobs). Statistics are read at :meth:`executions`,
    once the jobs are over.
    """

    def __init__(self, tools: JvmTools, jsc: Any) -> None:
        self._t = tools
        self._sc = jsc.sc()
        self._queue: Any = None
        self._listener: Any = None
        self._lock = threading.Lock()
        self._read: list[Any] = []  # rdd_reader.JobFiles of jobs that touched files, or could not be read
        self._jobs: list[Any] = []  # ExecutionFacts, read so far
        self._read_at = float("-inf")  # time.monotonic() of the last read_queued_if_due read

    def start(self) -> None:
        self._queue = self._t.java_class("java.util.concurrent.LinkedBlockingQueue")()
        jobs = self._sc.dagScheduler().jobIdToActiveJob()
        fast = self._t.fast()
        self._listener = fast.rddListener(self._queue, jobs) if fast is not None else self._proxy(jobs)
        add_to_bus(self._sc, self._listener)

    def _proxy(self, jobs: Any) -> Any:
        """The listener as a dynamic proxy over :func:`_build_dispatch` (no compiled ``Handles``)."""
        dispatch = self._t.cached("rdd.dispatch", _build_dispatch)
        bound = self._t._mh.insertArguments(
            dispatch, 0, self._t.array("java.lang.Object", [self._queue, jobs])
        )
        handler = self._t._proxies.asInterfaceInstance(
            self._t.cls("java.lang.reflect.InvocationHandler"), bound
        )
        interfaces, loader = self._t.cached("rdd.proxy_types", _proxy_types)
        return self._t.java_class("java.lang.reflect.Proxy").newProxyInstance(loader, interfaces, handler)

    def stop(self) -> None:
        if self._listener is not None:
            try:
                self._sc.removeSparkListener(self._listener)
            finally:
                self._listener = None

    def read_queued_if_due(self) -> None:
        """:meth:`read_queued`, unless the last such read was under :data:`QUEUE_READ_INTERVAL_S` ago."""
        now = time.monotonic()
        if now - self._read_at < QUEUE_READ_INTERVAL_S:
            return
        self._read_at = now
        self.read_queued()

    def read_queued(self, wait_s: float = -1) -> bool:
        """Read the files of the jobs queued so far and release them from the queue; False when
        another thread is reading and did not finish within ``wait_s`` (-1: wait)."""
        if self._queue is None or not self._lock.acquire(timeout=wait_s):
            return False
        try:
            drained = self._drain_in_jvm()
            self._read.extend(self._drain_from_python() if drained is None else drained)
            return True
        finally:
            self._lock.release()

    def _drain_in_jvm(self) -> list[Any] | None:
        """Take and read every queued job in one JVM call (``RddJobReader.drain``): the reader thread
        asks after each execution, so an empty queue must cost one round trip and no handle; None
        without the compiled reader."""
        reader = rdd_reader.reader(self._t)
        if reader is None:
            return None
        try:
            files = rdd_reader.parse_drained(str(reader.drain(self._queue, MAX_DEPTH)))
        except Exception as exc:
            log.warning("lineage capture: cannot read RDD jobs: %s", describe(exc))
            return []
        return [f for f in files if f is not None]

    def _drain_from_python(self) -> list[Any]:
        """Without the compiled reader: the queue drained and each job's RDDs walked from Python."""
        if self._queue.isEmpty():
            return []
        items = self._t.java_class("java.util.ArrayList")()
        try:
            count = int(self._queue.drainTo(items))
            return self._read_files(items, count) if count else []
        finally:
            release(items)  # py4j keeps the jobs (stages, RDDs, closures) while it is bound

    def executions(self, wait_s: float = -1) -> list[Any]:
        """:class:`ExecutionFacts` of the RDD jobs queued so far (call after draining the bus)."""
        self.read_queued(wait_s)
        with self._lock:
            read, self._read = self._read, []
        self._jobs.extend(f for f in map(self._facts, read) if f is not None)
        return self._jobs

    def _read_files(self, items: Any, count: int) -> list[Any]:
        """Job by job from Python (:mod:`~lineage_operators.spark.rdd.sources`), each job's handles released
        after it."""
        found = []
        for index in range(count):
            item = None
            try:
                item = items.get(index)
                found.append(self._read_job(item))
            except Exception as exc:
                log.warning("lineage capture: cannot read an RDD job: %s", describe(exc))
            finally:
                release(item)
        return found

    def _read_job(self, item: Any) -> Any:
        event, active = item.get(0), item.get(1)
        job_id = int(event.jobId())
        if active.isEmpty():
            return JobFiles(job_id, ended=True)
        job = active.get()
        seq = self._t.java_class("scala.Option").apply(job.finalStage().rdd()).toList()
        output = _output_dir(self._t, job.finalStage())
        return JobFiles(job_id, tuple(source_items(self._t, seq)), output, tags=_job_tags(event))

    def _facts(self, files: Any) -> Any:
        """``ExecutionFacts`` of a job that touched files (``files``: ``rdd_reader.JobFiles``)."""
        if files.ended:
            log.info("lineage capture: RDD job %d ended before it could be read", files.job_id)
            return None
        if files.unreadable:
            log.warning("lineage capture: cannot read RDD job %d", files.job_id)
            return None
        inputs = [RelationFacts(location=loc) for loc in locations_of(files.input_items)]
        outputs = [RelationFacts(location=files.output)] if files.output else []
        if not inputs and not outputs:
            return None
        totals = job_totals(self._sc, files.job_id)
        if outputs and totals is not None:
            outputs[0].rows, outputs[0].size = totals.records_written, totals.bytes_written
            outputs[0].files = totals.files_written or None
            if len(inputs) == 1:  # as openlineage-spark: input statistics of single-input jobs
                inputs[0].rows, inputs[0].size = totals.records_read, totals.bytes_read
        succeeded = totals is None or totals.succeeded
        return ExecutionFacts(
            func_name=RDD_JOB, succeeded=succeeded, inputs=inputs, outputs=outputs, tags=files.tags
        )


def _job_tags(event: Any) -> frozenset[str]:
    """The job's tags (``SparkContext.addJobTag``, joined with commas in its properties)."""
    try:
        value = event.properties().getProperty(_JOB_TAGS)
    except Exception:
        return frozenset()
    return job_tags(str(value) if value else None)


def _output_dir(t: JvmTools, stage: Any) -> str | None:
    """The output directory of a Hadoop write job, from the write configuration its function holds."""
    try:
        func = stage.func()
    except Exception:
        return None  # a shuffle map stage: no result function
    for field in func.getClass().getDeclaredFields():
        if field.getType().isPrimitive():
            continue
        field.setAccessible(True)
        value = field.get(func)
        if value is None or str(value.getClass().getName()) not in _WRITE_CONFIGS:
            continue
        conf_field = value.getClass().getDeclaredField("conf")
        conf_field.setAccessible(True)
        conf = conf_field.get(value).value()
        out = conf.get(_OUTPUT_DIR)
        return str(out) if out else None
    return None


__all__ = ["RddJobWatcher"]
