"""The compiled combinators (``jvm/java/Handles.java``) build the same JVM-side functions as the
pure-py4j composition, in about one round trip per combinator: the same record texts for the
same executions, and the same results of each combinator; where the class cannot be compiled the
pure-py4j composition is used and works."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from spark_helpers import run_captured
from test_plan_batch_parity import _workload

from lineage_operators.spark.jvm import classes as jvm_classes
from lineage_operators.spark.jvm.text import NONE
from lineage_operators.spark.jvm.tools import JvmTools, tools_for
from lineage_operators.spark.listen.execution_queue import HeldExecution
from lineage_operators.spark.plan import batch as plan_batch
from lineage_operators.spark.plan import reader as plan_module


def _both(spark: Any) -> tuple[JvmTools, JvmTools]:
    fast = tools_for(spark.sparkContext._gateway)
    assert fast.fast() is not None
    pure = JvmTools(spark.sparkContext._gateway, fast=False)
    assert pure.fast() is None
    return fast, pure


def test_execution_reader_texts_equal(spark: Any, tmp_path: Path, monkeypatch: Any) -> None:
    fast, pure = _both(spark)
    fast_reader = plan_batch.batch_reader(fast)
    assert fast_reader is not None
    # a second instance of the same compiled class (py4j caches methods by class name, so a
    # second class of the same name could not be called), given the pure-py4j functions
    no_args = fast.array("java.lang.Class", [])
    another = fast_reader.getClass().getDeclaredConstructor(no_args)
    monkeypatch.setattr(
        plan_batch.jvm_classes,
        "compiled_instance",
        lambda *_: another.newInstance(fast.array("java.lang.Object", [])),
    )
    pure_reader = plan_batch._configure(pure)
    monkeypatch.undo()
    executions: list[tuple[Any, bool]] = []
    original = plan_module.PlanReader.read

    def keep(reader: Any, func_name: str, qe: Any, succeeded: bool, *reply: Any) -> Any:
        # a binding of the test's own: the capture releases the one it reads with
        own = qe._pending.current() if isinstance(qe, HeldExecution) else qe
        executions.append((own, bool(succeeded)))
        return original(reader, func_name, qe, succeeded, *reply)

    monkeypatch.setattr(plan_module.PlanReader, "read", keep)
    run_captured(spark, lambda: _workload(spark, tmp_path))
    assert len(executions) >= 10
    for qe, succeeded in executions:
        texts = [t.read(r.read(qe, succeeded)) for t, r in ((fast, fast_reader), (pure, pure_reader))]
        assert texts[0] == texts[1]
        assert texts[0]


def _results(t: JvmTools, value: Any) -> list[str]:
    """Each combinator, applied to ``value`` (a ``scala.Some`` of a string)."""
    once = t.once()
    length = t.chain(("scala.Option", "get"), ("java.lang.String", "length"))
    functions = [
        t.record(
            [
                length,
                t.step("java.lang.Object", "toString"),
                t.chain(("scala.Option", "get"), ("java.lang.String", "substring", ("int", 1), ("int", 2))),
                t.chain(
                    ("scala.Option", "get"),
                    (
                        "java.lang.String",
                        "replace",
                        ("java.lang.CharSequence", "b"),
                        ("java.lang.CharSequence", "x"),
                    ),
                ),
                t.first(t.step("scala.Option", "get"), t.constant("fallback")),
                t.first(t.chain(("scala.Option", "get"), ("java.lang.String", "length")), t.constant(0)),
                t.when("scala.Some", t.constant("some"), t.constant("other")),
                t.when("java.lang.String", t.constant("string")),
                t.option_text(t.identity()),
                t.option_map(t.identity(), t.chain(("java.lang.String", "toUpperCase"))),
                t.opt(t.identity()),
                t.mk_string(t.chain(("scala.Option", "toList")), "+"),
                t.chain(
                    t.step("scala.Option", "get"),
                    t.static("java.lang.System", "identityHashCode", ["java.lang.Object"]),
                    t.constant(None),
                ),
                t.chain(("java.lang.Object", "hashCode")),
            ]
        ),
        t.builder(t.step("scala.Option", "get")),
        t.text(t.chain(t.step("scala.Option", "get"), t.step("java.lang.String", "substring", ("int", 10)))),
    ]
    with pytest.raises(Exception, match="no_such_method_here"):  # as builders expect (try/except)
        t.step("java.lang.String", "no_such_method_here")
    assert t.has_class("java.lang.String")
    assert not t.has_class("no.such.Class")
    assert once
    return [t.read(t.function(fn).apply(value)) or "" for fn in functions]


def test_combinators_equal(spark: Any) -> None:
    fast, pure = _both(spark)
    value = fast.jvm.scala.Some("abc")
    assert _results(fast, value) == _results(pure, value)
    joined = fast.function(fast.text(fast.array_join("/"))).apply(fast.array("java.lang.String", ["a", "b"]))
    assert joined == pure.function(pure.text(pure.array_join("/"))).apply(
        pure.array("java.lang.String", ["a", "b"])
    )
    assert joined == "a/b"
    assert NONE in _results(fast, fast.jvm.scala.Option.empty())[0]


def test_uncompilable_helper_falls_back(
    spark: Any, monkeypatch: Any, caplog: pytest.LogCaptureFixture
) -> None:
    real = jvm_classes.java_source
    monkeypatch.setattr(
        jvm_classes, "java_source", lambda name: "not java" if name == "Handles.java" else real(name)
    )
    caplog.set_level("INFO", logger="lineage_operators")
    t = JvmTools(spark.sparkContext._gateway)
    assert t.fast() is None
    assert t.fast() is None  # not retried
    assert caplog.text.count("cannot compile lineage_operators.Handles") == 1
    fast, _ = _both(spark)
    value = fast.jvm.scala.Some("abc")
    assert _results(t, value) == _results(fast, value)
