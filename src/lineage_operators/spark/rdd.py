"""Jobs that use only RDDs, and the files behind an RDD turned into a DataFrame.

No SQL execution runs for ``sc.textFile(p).saveAsTextFile(q)``, so the query listener never sees
it. Like openlineage-spark's ``RddExecutionContext`` we read such jobs from Spark's scheduler:

* A ``SparkListenerInterface`` is registered on its own listener-bus queue. It is a JDK dynamic
  proxy whose ``InvocationHandler`` is composed of method handles (:mod:`.jvm`): it runs entirely in
  the JVM, ignores every event but ``onJobStart`` of jobs without a SQL execution id, and for those
  puts the event and the scheduler's ``ActiveJob`` (final RDD, result function) in a JVM queue.
  No py4j callback per task or job: the task-overhead benchmark is unaffected.
* When the capture builds its result (after draining the bus), each queued job is read: inputs by
  walking the final RDD's dependencies to its sources (``HadoopRDD``/``NewHadoopRDD`` input
  directories, ``FileScanRDD`` files' directories), the output directory from the Hadoop write
  configuration held by the result function (``saveAsTextFile``, ``saveAsHadoopFile``,
  ``saveAsPickleFile``, ``saveAsNewAPIHadoopFile``...), statistics from Spark's status store
  (:func:`.job_statistics.job_totals`).

As in openlineage-spark, the ``ActiveJob`` is looked up when the listener sees the job start; a
job that is over by then (a few milliseconds of work) is not seen.
"""

from __future__ import annotations

import threading
from typing import Any

from lineage_operators._logging import get_logger
from lineage_operators.spark._errors import describe
from lineage_operators.spark.handles import release
from lineage_operators.spark.job_statistics import job_totals
from lineage_operators.spark.jvm import NONE, SEP, JvmTools, split_list

log = get_logger(__name__)

_RDD = "org.apache.spark.rdd.RDD"
_DEPENDENCY = "org.apache.spark.Dependency"
_HADOOP_RDD = "org.apache.spark.rdd.HadoopRDD"
_NEW_HADOOP_RDD = "org.apache.spark.rdd.NewHadoopRDD"
_FILE_SCAN_RDD = "org.apache.spark.sql.execution.datasources.FileScanRDD"
_FILE_PARTITION = "org.apache.spark.sql.execution.datasources.FilePartition"
_PARTITIONED_FILE = "org.apache.spark.sql.execution.datasources.PartitionedFile"
_LOGICAL_RDD = "org.apache.spark.sql.execution.LogicalRDD"
_CONF = "org.apache.hadoop.conf.Configuration"
_PATH = "org.apache.hadoop.fs.Path"
_JOB_START = "org.apache.spark.scheduler.SparkListenerJobStart"
_ACTIVE_JOB = "org.apache.spark.scheduler.ActiveJob"
_INPUT_DIR = "mapreduce.input.fileinputformat.inputdir"
_OUTPUT_DIR = "mapreduce.output.fileoutputformat.outputdir"
_JOB_TAGS = "spark.job.tags"
_OBJECT = "java.lang.Object"
_WRITE_CONFIGS = {
    "org.apache.spark.internal.io.HadoopMapRedWriteConfigUtil",
    "org.apache.spark.internal.io.HadoopMapReduceWriteConfigUtil",
}
QUEUE_NAME = "lineageOperatorsRddJobs"
#: Levels of RDD dependencies walked at most (iterative jobs can be deeper; their sources are
#: then missed rather than making the walk unbounded).
MAX_DEPTH = 200


# --------------------------------------------------------------------------------------------
# walking RDD dependencies (JVM-side, a few py4j calls per level)
# --------------------------------------------------------------------------------------------


def _build_parents_fn(t: JvmTools) -> Any:
    """RDD -> the RDDs it depends on."""
    dep_rdd = t.function(t.step(_DEPENDENCY, "rdd"))
    return t.function(t.chain((_RDD, "dependencies"), t.coll.step("map", dep_rdd)))


def _build_source_fn(t: JvmTools) -> Any:
    """RDD -> its input locations (SEP2-joined) when it reads files, else NONE."""
    get_dir = (_CONF, "get", ("java.lang.String", _INPUT_DIR))
    file_dir = t.function(
        t.chain((_PARTITIONED_FILE, "toPath"), (_PATH, "getParent"), ("java.lang.Object", "toString"))
    )
    files = t.function(
        t.chain(
            (_FILE_PARTITION, "files"),
            t.static(*t.line.wrap_array, ["java.lang.Object"]),
            t.coll.step("map", file_dir),
        )
    )
    scan_dirs = t.mk_string(
        t.chain(
            (_FILE_SCAN_RDD, "filePartitions"),
            t.coll.step("flatMap", files),
            (t.line.collection_class("seq"), "distinct"),
        )
    )
    return t.function(
        t.when(
            _HADOOP_RDD,
            t.text(t.chain((_HADOOP_RDD, "getJobConf"), get_dir)),
            t.when(
                _NEW_HADOOP_RDD,
                t.text(t.chain((_NEW_HADOOP_RDD, "getConf"), get_dir)),
                t.when(_FILE_SCAN_RDD, scan_dirs),
            ),
        )
    )


def _split_input_dirs(value: str) -> list[str]:
    """Hadoop's comma-joined input directories (a ``\\,`` is a comma inside a path)."""
    parts, current, escaped = [], "", False
    for char in value:
        if escaped:
            current += char
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ",":
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [p for p in (p.strip() for p in parts) if p]


def source_locations(t: JvmTools, rdds: Any) -> list[str]:
    """Input locations of the RDDs in the JVM ``Seq`` ``rdds`` and of everything they depend on."""
    return locations_of(_source_items(t, rdds))


def _source_items(t: JvmTools, rdds: Any) -> list[str]:
    """Input items as read (a Hadoop input-dir value still lists several, see :func:`locations_of`)."""
    source = t.cached("rdd.source", _build_source_fn)
    parents = t.cached("rdd.parents", _build_parents_fn)
    items: list[str] = []
    level = rdds
    for _ in range(MAX_DEPTH):
        text = t.read(t.joined(t.coll.map(level, source), SEP))
        if not text:
            break
        for field in text.split(SEP):
            if field and field != NONE:
                items.extend(split_list(field))
        level = t.coll.flat_map(level, parents).distinct()
    return items


def locations_of(items: list[str] | tuple[str, ...]) -> list[str]:
    """Pure: the distinct locations of input items (a Hadoop input-dir value lists several)."""
    found: list[str] = []
    for item in items:
        for location in _split_input_dirs(item) if "," in item else [item]:
            if location not in found:
                found.append(location)
    return found


def is_logical_rdd_fn(t: JvmTools) -> Any:
    """JVM function: plan node -> whether it is a ``LogicalRDD``."""
    return t.cached(
        "rdd.is_logical",
        lambda t: t.function(t.when(_LOGICAL_RDD, t.constant(True), t.constant(False))),
    )


def logical_rdd_locations(t: JvmTools, leaves: Any) -> list[str]:
    """Files behind the ``LogicalRDD`` leaves of a plan (``createDataFrame(rdd)``, ``rdd.toDF()``)."""
    if not leaves.exists(is_logical_rdd_fn(t)):
        return []
    rdd_of = t.cached(
        "rdd.of_logical",
        lambda t: t.function(
            t.chain(
                t.when(
                    _LOGICAL_RDD,
                    t.chain(t.step(_LOGICAL_RDD, "rdd"), t.static("scala.Some", "apply", [_OBJECT])),
                    t.chain(t.constant(None), t.static("scala.Option", "apply", [_OBJECT])),
                ),
                # a list: Scala 2.12's flatMap takes collections only, not an Option
                ("scala.Option", "toList"),
            )
        ),
    )
    try:
        rdds = t.coll.flat_map(leaves, rdd_of)
        return source_locations(t, rdds)
    except Exception as exc:
        log.debug("lineage capture: cannot read the RDD behind a DataFrame: %s", describe(exc))
        return []


# --------------------------------------------------------------------------------------------
# the job listener
# --------------------------------------------------------------------------------------------


def _build_dispatch(t: JvmTools) -> Any:
    """(queue, job map, proxy, method, args) -> Object: the listener's ``InvocationHandler`` body.

    Built once per JVM; each capture only binds its queue and the scheduler's job map
    (:meth:`RddJobWatcher.start`). Composed here by py4j calls it cost ~300 round trips on the task's
    thread at the first ``start()``; the compiled helper (``Handles.rddDispatch``, the same
    composition) builds it in one call.
    """
    fast = t.fast()
    if fast is not None:
        return fast.rddDispatch()
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
    thread calls it after every execution it reads, so the queue does not keep them, and what they
    reference (broadcast relations among them), alive until the task ends (the memory benchmark's
    task runs 41 such jobs). Statistics are read at :meth:`executions`, once the jobs are over.
    """

    def __init__(self, tools: JvmTools, jsc: Any) -> None:
        self._t = tools
        self._sc = jsc.sc()
        self._queue: Any = None
        self._listener: Any = None
        self._lock = threading.Lock()
        self._read: list[tuple[frozenset[str], Any]] = []  # (job tags, rdd_reader.JobFiles)
        self._jobs: list[Any] = []  # ExecutionFacts, read so far

    def start(self) -> None:
        self._queue = self._t.java_class("java.util.concurrent.LinkedBlockingQueue")()
        dispatch = self._t.cached("rdd.dispatch", _build_dispatch)
        jobs = self._sc.dagScheduler().jobIdToActiveJob()
        fast = self._t.fast()
        if fast is not None:
            handler = fast.rddHandler(dispatch, self._queue, jobs)
        else:
            bound = self._t._mh.insertArguments(
                dispatch, 0, self._t.array("java.lang.Object", [self._queue, jobs])
            )
            handler = self._t._proxies.asInterfaceInstance(
                self._t.cls("java.lang.reflect.InvocationHandler"), bound
            )
        interfaces, loader = self._t.cached("rdd.proxy_types", _proxy_types)
        proxy = self._t.java_class("java.lang.reflect.Proxy")
        self._listener = proxy.newProxyInstance(loader, interfaces, handler)
        try:
            self._sc.listenerBus().addToQueue(self._listener, QUEUE_NAME)
        except Exception:  # no such method on this Spark: the shared queue works too
            self._sc.addSparkListener(self._listener)

    def stop(self) -> None:
        if self._listener is not None:
            try:
                self._sc.removeSparkListener(self._listener)
            finally:
                self._listener = None

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

    def _drain_in_jvm(self) -> list[tuple[frozenset[str], Any]] | None:
        """Take and read every queued job in one JVM call (``RddJobReader.drain``): the reader thread
        asks after each execution, so an empty queue must cost one round trip and no handle; None
        without the compiled reader."""
        from lineage_operators.spark import rdd_reader

        reader = rdd_reader.reader(self._t)
        if reader is None:
            return None
        try:
            files = rdd_reader.parse_drained(str(reader.drain(self._queue, MAX_DEPTH)))
        except Exception as exc:
            log.warning("lineage capture: cannot read RDD jobs: %s", describe(exc))
            return []
        return [(f.tags, f) for f in files if f is not None]

    def _drain_from_python(self) -> list[tuple[frozenset[str], Any]]:
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
        self._jobs.extend(f for f in (self._facts(tags, files) for tags, files in read) if f is not None)
        return self._jobs

    def _read_files(self, items: Any, count: int) -> list[tuple[frozenset[str], Any]]:
        """One JVM call for all jobs (:mod:`.rdd_reader`); job by job from Python without it."""
        from lineage_operators.spark import rdd_reader

        reader = rdd_reader.reader(self._t)
        if reader is not None:
            try:
                files = rdd_reader.parse(str(reader.read(items, MAX_DEPTH)), count)
            except Exception as exc:
                log.info("lineage capture: reading RDD jobs from Python: %s", describe(exc))
            else:
                return [(_item_tags(items, i), f) for i, f in enumerate(files) if f is not None]
        found = []
        for index in range(count):
            item = None
            try:
                item = items.get(index)
                found.append((_job_tags(item.get(0)), self._read_job(item)))
            except Exception as exc:
                log.warning("lineage capture: cannot read an RDD job: %s", describe(exc))
            finally:
                release(item)
        return found

    def _read_job(self, item: Any) -> Any:
        from lineage_operators.spark.rdd_reader import JobFiles

        event, active = item.get(0), item.get(1)
        job_id = int(event.jobId())
        if active.isEmpty():
            return JobFiles(job_id, ended=True)
        job = active.get()
        seq = self._t.java_class("scala.Option").apply(job.finalStage().rdd()).toList()
        output = _output_dir(self._t, job.finalStage())
        return JobFiles(job_id, tuple(_source_items(self._t, seq)), output)

    def _facts(self, tags: frozenset[str], files: Any) -> Any:
        """``ExecutionFacts`` of a job that touched files (``files``: ``rdd_reader.JobFiles``)."""
        from lineage_operators.spark.plan_facts import ExecutionFacts, RelationFacts

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
            if len(inputs) == 1:  # as openlineage-spark: input statistics of single-input jobs
                inputs[0].rows, inputs[0].size = totals.records_read, totals.bytes_read
        succeeded = totals is None or totals.succeeded
        return ExecutionFacts(
            func_name="rddJob", succeeded=succeeded, inputs=inputs, outputs=outputs, tags=tags
        )


def _item_tags(items: Any, index: int) -> frozenset[str]:
    """The tags of the job at ``index`` of the drained queue, releasing the handles it took."""
    item = event = None
    try:
        item = items.get(index)
        event = item.get(0)
        return _job_tags(event)
    finally:
        release(event, item)


def _job_tags(event: Any) -> frozenset[str]:
    """The job's tags (``SparkContext.addJobTag``, joined with commas in its properties)."""
    from lineage_operators.spark.rdd_reader import job_tags

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


__all__ = ["RddJobWatcher", "logical_rdd_locations", "source_locations"]
