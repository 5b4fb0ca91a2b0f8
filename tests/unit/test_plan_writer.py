"""The compact plan writer's packaging and its failure path (compiling it is tested with Spark)."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest

from lineage_operators.spark.plan.columns import writer as plan_writer


def test_java_source_is_a_package_resource() -> None:
    source = plan_writer.java_source()
    package, _, name = plan_writer.CLASS_NAME.rpartition(".")
    assert f"package {package};" in source
    assert f"public class {name} " in source


# How the engine reads a node's constructor fields (column_lineage/*.py).
_FIELD_READS = re.compile(
    r"(?:fields\.get\(|_attrs_field\(node, |expr_field\(\w+, |expr_list_field\(\w+, |_named\(node, "
    r'|head\[|join_type\.get\()"(\w+)"|"(\w+)" in node\.fields'
)


def test_writer_keeps_exactly_the_fields_the_engine_reads() -> None:
    """A field the engine starts reading must be added to the writer (and none kept for nothing)."""
    import lineage_operators.column_lineage as engine_package

    engine = Path(engine_package.__file__).resolve().parent
    read = {
        first or second
        for module in engine.glob("*.py")
        for first, second in _FIELD_READS.findall(module.read_text(encoding="utf-8"))
    }
    block = re.search(r"FIELDS = .*?\{(.*?)\}", plan_writer.java_source(), re.S)
    assert block is not None
    written = set(re.findall(r'"(\w+)"', block.group(1)))
    assert len(read) > 20
    # dataType is written on casts and their attributes only (cast_code), outside the list; sql
    # (descriptions) on the top expressions of the DESCRIBED fields, only when asked for
    assert read - {"dataType", "sql"} == written
    assert '",\\"sql\\":"' in plan_writer.java_source()


class _NoJanino:
    """JvmTools whose JVM has no Janino: constructing the compiler fails, as py4j would."""

    def __init__(self) -> None:
        self.builds = 0
        self._cache: dict[str, Any] = {}

    @property
    def jvm(self) -> Any:
        self.builds += 1
        raise RuntimeError("org.codehaus.janino.SimpleCompiler is not on the classpath")

    def cached(self, key: str, build: Any) -> Any:
        if key not in self._cache:
            self._cache[key] = build(self)
        return self._cache[key]


def test_compile_failure_gives_none_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from lineage_operators import _logging

    monkeypatch.setattr(_logging, "_logged_once", set())
    caplog.set_level(logging.INFO, logger="lineage_operators")
    tools: Any = _NoJanino()
    assert plan_writer.compact_writer(tools) is None
    assert plan_writer.compact_writer(tools) is None
    assert tools.builds == 1  # not retried
    assert caplog.text.count("cannot compile lineage_operators.PlanWriter") == 1
    assert "Traceback" not in caplog.text
