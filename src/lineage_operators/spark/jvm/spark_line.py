"""Everything that differs between the Spark lines capture supports, in one place.

pyspark 3.5 ships Scala 2.12 jars, 4.x Scala 2.13; Spark 4.2 added ``QueryExecution.queryId``.
Capture code never tests versions itself: it asks the :class:`SparkLine` of its JVM (detected once
per JVM, :func:`detect`) for the class that declares a collection method, how to call a
collection method that takes an implicit builder on 2.12, or whether a feature exists.

What differs, and why it matters:

* Scala collections (2.12 -> 2.13): ``TraversableOnce`` -> ``IterableOnceOps`` (``mkString``,
  ``size``, ``toList``), ``TraversableLike`` -> ``IterableOps`` (``map``/``flatMap``/``filter``;
  on 2.12 ``map``/``flatMap``/``+:``/``++`` take a ``CanBuildFrom``, bound here once),
  ``MapLike`` -> ``MapOps``, ``SeqLike`` -> ``SeqOps``, ``WrappedArray.make`` ->
  ``ArraySeq.unsafeWrapArray``.
* ``Product.productElementNames`` (2.13 only): the compact plan writer
  (``jvm/java/PlanWriter.java``) names a node's fields from Spark's
  ``ScalaReflection.getConstructorParameterNames`` on 2.12.
* ``QueryExecution.queryId`` / ``SQLExecutionUIData.queryId`` (Spark 4.2+): before 4.2 an
  execution is joined to Spark's SQL status store by the ``QueryExecution`` id instead, which
  the execution-id recorder (``jvm/java/ExecutionIds.java``) maps to the SQL execution id.
* When the capture reads an ended execution (:attr:`SparkLine.settles_reads`): measured, not
  derived (``docs/history.md``). On 4.3, reading an execution 50 ms after it ended took the
  library's cost of a 9 s task from 1.6% to 1.1% (32 and 80 paired rounds): the reader no longer
  wants the GIL the moment the task's action returns. On 3.5 the same delay cost more than it
  saved (2.2% against 1.1%, 128 and 80 paired rounds): there a shorter GIL switch interval did not
  remove the extra time, so the race is not what costs, and a later read overlaps the next
  action's work on the executors' cores. 4.0 and 4.1 follow 4.3 (not measured apart).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_SCALA_212 = {
    "once": "scala.collection.TraversableOnce",
    "iterable": "scala.collection.TraversableLike",
    "map": "scala.collection.MapLike",
    "seq": "scala.collection.SeqLike",
}
_SCALA_213 = {
    "once": "scala.collection.IterableOnceOps",
    "iterable": "scala.collection.IterableOps",
    "map": "scala.collection.MapOps",
    "seq": "scala.collection.SeqOps",
}
_CBF = "scala.collection.generic.CanBuildFrom"


def _numbers(version: str) -> tuple[int, int]:
    parts = [int("".join(c for c in p if c.isdigit()) or 0) for p in version.split(".")[:2]]
    padded = [*parts, 0, 0]
    return padded[0], padded[1]


@dataclass(frozen=True)
class SparkLine:
    """The Spark and Scala versions of one JVM and what follows from them."""

    spark_version: str
    scala_version: str

    @property
    def spark(self) -> tuple[int, int]:
        return _numbers(self.spark_version)

    @property
    def scala(self) -> tuple[int, int]:
        return _numbers(self.scala_version)

    @property
    def scala_212(self) -> bool:
        return self.scala < (2, 13)

    @property
    def has_query_id(self) -> bool:
        """``QueryExecution.queryId`` and ``SQLExecutionUIData.queryId`` exist (Spark 4.2+)."""
        return self.spark >= (4, 2)

    @property
    def settles_reads(self) -> bool:
        """The capture reads an ended execution a little later rather than at once (see above)."""
        return self.spark >= (4, 0)

    @property
    def has_product_element_names(self) -> bool:
        return not self.scala_212

    def collection_class(self, role: str) -> str:
        """The class declaring a collection method: ``once`` (``mkString``, ``size``,
        ``toList``), ``iterable`` (``map``, ``flatMap``, ``filter``, ``head``), ``map``
        (``keys``, ``keySet``, ``get``) or ``seq`` (``distinct``)."""
        return (_SCALA_212 if self.scala_212 else _SCALA_213)[role]

    @property
    def wrap_array(self) -> tuple[str, str]:
        """(class, static method) wrapping a JVM array as a Scala ``Seq`` without copying."""
        if self.scala_212:
            return "scala.collection.mutable.WrappedArray", "make"
        return "scala.collection.immutable.ArraySeq", "unsafeWrapArray"


def detect(jvm: Any) -> SparkLine:
    """The line of the JVM behind a py4j ``jvm`` view (called once per JVM,
    :mod:`~lineage_operators.spark.jvm.tools`)."""
    spark = str(jvm.org.apache.spark.package.SPARK_VERSION())
    scala = str(jvm.scala.util.Properties.versionNumberString())
    return SparkLine(spark, scala)


class Collections:
    """Scala collection calls that take an implicit builder on 2.12, for one JVM.

    ``step``: a getter-chain step (:meth:`~lineage_operators.spark.jvm.tools.JvmTools.chain`) for
    ``map``/``flatMap``/``filter`` with a bound ``scala.Function1``; the other methods call a JVM collection
    from Python."""

    def __init__(self, line: SparkLine, jvm: Any) -> None:
        self.line = line
        self._cbf = jvm.scala.collection.Seq.canBuildFrom() if line.scala_212 else None

    def step(self, method: str, function: Any) -> tuple[Any, ...]:
        owner = self.line.collection_class("iterable")
        if self._cbf is not None and method in ("map", "flatMap"):
            return owner, method, ("scala.Function1", function), (_CBF, self._cbf)
        return owner, method, ("scala.Function1", function)

    def map(self, seq: Any, function: Any) -> Any:
        return seq.map(function) if self._cbf is None else seq.map(function, self._cbf)

    def flat_map(self, seq: Any, function: Any) -> Any:
        return seq.flatMap(function) if self._cbf is None else seq.flatMap(function, self._cbf)

    def prepended(self, item: Any, seq: Any) -> Any:
        return seq.prepended(item) if self._cbf is None else getattr(seq, "$plus$colon")(item, self._cbf)

    def appended_all(self, seq: Any, more: Any) -> Any:
        return seq.appendedAll(more) if self._cbf is None else getattr(seq, "$plus$plus")(more, self._cbf)


__all__ = ["Collections", "SparkLine", "detect"]
