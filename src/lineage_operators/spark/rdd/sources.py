"""The files behind RDDs: input locations found by walking an RDD's dependencies to its sources.

Two readers need them. The RDD-only job watcher (:mod:`~lineage_operators.spark.rdd.jobs`) reads each job's
inputs from its final RDD: in the JVM by the compiled reader (:mod:`~lineage_operators.spark.rdd.reader`, same
rules, same
:data:`MAX_DEPTH`), from Python here when it cannot be compiled. Plan reading finds the files
behind the ``LogicalRDD`` leaves of DataFrames made from RDDs (``createDataFrame(rdd)``,
``rdd.toDF()``). Sources are ``HadoopRDD``/``NewHadoopRDD`` input directories and the
directories of ``FileScanRDD``'s files; the walk costs a few py4j calls per level of dependencies.
"""

from __future__ import annotations

from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.spark.jvm.spark_classes import HADOOP_PATH
from lineage_operators.spark.jvm.text import NONE, SEP, split_list
from lineage_operators.spark.jvm.tools import JvmTools

log = get_logger(__name__)

_RDD = "org.apache.spark.rdd.RDD"
_DEPENDENCY = "org.apache.spark.Dependency"
_HADOOP_RDD = "org.apache.spark.rdd.HadoopRDD"
_NEW_HADOOP_RDD = "org.apache.spark.rdd.NewHadoopRDD"
_FILE_SCAN_RDD = "org.apache.spark.sql.execution.datasources.FileScanRDD"
_PARALLEL_COLLECTION_RDD = "org.apache.spark.rdd.ParallelCollectionRDD"
#: What the walk answers for a parallelized collection: its elements are read from Python, by
#: reflection (:func:`_file_parents`), as the compiled reader does in the JVM.
_PARALLELIZED = "\u0000parallelized"
#: Elements of a parallelized collection looked at, at most (a schema merge lists its files).
MAX_FILES = 1000
_FILE_PARTITION = "org.apache.spark.sql.execution.datasources.FilePartition"
_PARTITIONED_FILE = "org.apache.spark.sql.execution.datasources.PartitionedFile"
_LOGICAL_RDD = "org.apache.spark.sql.execution.LogicalRDD"
_CONF = "org.apache.hadoop.conf.Configuration"
_INPUT_DIR = "mapreduce.input.fileinputformat.inputdir"
_OBJECT = "java.lang.Object"
#: Levels of RDD dependencies walked at most (iterative jobs can be deeper; their sources are
#: then missed rather than making the walk unbounded).
MAX_DEPTH = 200


def _build_parents_fn(t: JvmTools) -> Any:
    """RDD -> the RDDs it depends on."""
    dep_rdd = t.function(t.step(_DEPENDENCY, "rdd"))
    return t.function(t.chain((_RDD, "dependencies"), t.coll.step("map", dep_rdd)))


def _build_source_fn(t: JvmTools) -> Any:
    """RDD -> its input locations (SEP2-joined) when it reads files, else NONE."""
    get_dir = (_CONF, "get", ("java.lang.String", _INPUT_DIR))
    file_dir = t.function(
        t.chain((_PARTITIONED_FILE, "toPath"), (HADOOP_PATH, "getParent"), ("java.lang.Object", "toString"))
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
                t.when(
                    _FILE_SCAN_RDD, scan_dirs, t.when(_PARALLEL_COLLECTION_RDD, t.constant(_PARALLELIZED))
                ),
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
    return locations_of(source_items(t, rdds))


def source_items(t: JvmTools, rdds: Any) -> list[str]:
    """Input items as read (a Hadoop input-dir value still lists several, see :func:`locations_of`)."""
    source = t.cached("rdd.source", _build_source_fn)
    parents = t.cached("rdd.parents", _build_parents_fn)
    items: list[str] = []
    level = rdds
    for _ in range(MAX_DEPTH):
        text = t.read(t.joined(t.coll.map(level, source), SEP))
        if not text:
            break
        for index, field in enumerate(text.split(SEP)):
            if field == _PARALLELIZED:
                items.extend(p for p in _file_parents(level.apply(index)) if p not in items)
            elif field and field != NONE:
                items.extend(split_list(field))
        level = t.coll.flat_map(level, parents).distinct()
    return items


def _file_parents(rdd: Any) -> list[str]:
    """The folders of the files a Parquet or ORC schema merge reads footers of: Spark parallelizes
    (path, length) pairs for it. Any other collection (PySpark's pickled batches) stops at its first
    element. A few py4j calls per element: this is the fallback of the compiled reader."""
    try:
        field = rdd.getClass().getDeclaredField("data")
        field.setAccessible(True)
        elements = field.get(rdd).iterator()
    except Exception as exc:
        log.debug("lineage capture: cannot read a parallelized collection: %s", describe(exc))
        return []
    parents: list[str] = []
    for _ in range(MAX_FILES):
        if not elements.hasNext():
            break
        element = elements.next()  # py4j hands byte arrays over as bytes: not a pair
        is_pair = hasattr(element, "getClass") and element.getClass().getName() == "scala.Tuple2"
        file = element._1() if is_pair else None
        if not isinstance(file, str) or file.rfind("/") <= 0:
            break
        parent = file[: file.rfind("/")]
        if parent not in parents:
            parents.append(parent)
    return parents


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


__all__ = [
    "MAX_DEPTH",
    "is_logical_rdd_fn",
    "locations_of",
    "logical_rdd_locations",
    "source_items",
    "source_locations",
]
