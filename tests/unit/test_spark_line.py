"""What differs per Spark line, read from the versions alone (no Spark)."""

from __future__ import annotations

from typing import Any

import pytest

from lineage_operators.spark.jvm.spark_line import Collections, SparkLine
from lineage_operators.spark.listen import execution_queue
from lineage_operators.spark.listen.execution_queue import SETTLE_MS

_212 = ("scala.collection.TraversableOnce", "scala.collection.TraversableLike")
_213 = ("scala.collection.IterableOnceOps", "scala.collection.IterableOps")


@pytest.mark.parametrize(
    ("versions", "classes", "query_id", "settle"),
    [
        (("3.5.9", "2.12.18"), _212, False, 0),
        (("4.0.5", "2.13.16"), _213, False, SETTLE_MS),
        (("4.1.1", "2.13.17"), _213, False, SETTLE_MS),
        (("4.2.0", "2.13.17"), _213, True, SETTLE_MS),
        (("4.3.0-preview1", "2.13.18"), _213, True, SETTLE_MS),
    ],
)
def test_line_table(versions: tuple[str, str], classes: tuple[str, str], query_id: bool, settle: int) -> None:
    line = SparkLine(*versions)
    assert execution_queue.settle_ms(line) == settle  # measured per line (docs/history.md)
    scala_212 = classes == _212
    assert (line.collection_class("once"), line.collection_class("iterable")) == classes
    assert line.has_query_id is query_id
    assert line.has_product_element_names is not scala_212
    wrapper = "scala.collection.mutable.WrappedArray" if scala_212 else "scala.collection.immutable.ArraySeq"
    assert line.wrap_array[0] == wrapper


class _Seq:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def map(self, *args: Any) -> str:
        self.calls.append(("map", *args))
        return "mapped"


class _Jvm:
    class scala:
        class collection:
            class Seq:
                @staticmethod
                def canBuildFrom() -> str:
                    return "cbf"


def test_scala_212_binds_a_builder_to_map_and_flat_map() -> None:
    old = Collections(SparkLine("3.5.9", "2.12.18"), _Jvm())
    new = Collections(SparkLine("4.3.0", "2.13.18"), _Jvm())
    fn = object()
    assert old.step("map", fn)[-1] == ("scala.collection.generic.CanBuildFrom", "cbf")
    assert old.step("filter", fn) == ("scala.collection.TraversableLike", "filter", ("scala.Function1", fn))
    assert new.step("map", fn) == ("scala.collection.IterableOps", "map", ("scala.Function1", fn))
    seq = _Seq()
    old.map(seq, fn)
    new.map(seq, fn)
    assert seq.calls == [("map", fn, "cbf"), ("map", fn)]
