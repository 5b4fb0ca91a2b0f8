"""The compact plan writer's packaging and its failure path (compiling it is tested with Spark)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from lineage_operators.spark import plan_json, plan_writer


def test_java_source_is_a_package_resource() -> None:
    source = plan_writer.java_source()
    package, _, name = plan_writer.CLASS_NAME.rpartition(".")
    assert f"package {package};" in source
    assert f"public class {name} " in source
    # the fields it writes are the ones the engine reads
    for field in ("projectList", "exprId", "joinType", "generatorOutput", "cteId", "replacement"):
        assert f'"{field}"' in source


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
    monkeypatch.setattr(plan_json, "_logged", set())
    caplog.set_level(logging.INFO, logger="lineage_operators")
    tools: Any = _NoJanino()
    assert plan_writer.compact_writer(tools) is None
    assert plan_writer.compact_writer(tools) is None
    assert tools.builds == 1  # not retried
    assert caplog.text.count("cannot compile the compact plan writer") == 1
    assert "Traceback" not in caplog.text
