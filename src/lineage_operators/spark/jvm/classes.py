"""Small Java classes shipped in ``jvm/java/`` and compiled in the driver's JVM, once per JVM.

They are compiled with Janino, the compiler Spark's own code generation uses (so it is on every
driver's classpath), against Spark's class loader. Each replaces many py4j round trips with one
call; each caller keeps a Python fallback for a JVM where compiling fails.

The tools are described by :class:`CompilingJvm` rather than imported from
:mod:`~lineage_operators.spark.jvm.tools`, because
:mod:`~lineage_operators.spark.jvm.tools` compiles its own helper here: the two modules used to import each
other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any, Protocol

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger

log = get_logger(__name__)

COMPILER = "org.codehaus.janino.SimpleCompiler"


class CompilingJvm(Protocol):
    """What compiling needs of :class:`~lineage_operators.spark.jvm.tools.JvmTools`."""

    jvm: Any

    def cached(self, key: str, build: Callable[[Any], Any]) -> Any: ...

    def array(self, element_class: str, items: Sequence[Any]) -> Any: ...


def java_source(file_name: str) -> str:
    folder = resources.files("lineage_operators.spark.jvm").joinpath("java")
    return folder.joinpath(file_name).read_text(encoding="utf-8")


def compiled_instance(tools: CompilingJvm, file_name: str, class_name: str, fallback: str) -> Any:
    """An instance of ``class_name`` (compiled on first use), or None when it cannot be built;
    the failure is logged once, at INFO, saying what is used instead (``fallback``)."""
    found = tools.cached(f"jvm_classes.{class_name}", lambda t: _build(t, file_name, class_name, fallback))
    return found or None


def _build(tools: CompilingJvm, file_name: str, class_name: str, fallback: str) -> Any:
    try:
        return _compile(tools, java_source(file_name), class_name)
    except Exception as exc:  # logged once: the failure is cached for the JVM
        log.info(
            "lineage capture: cannot compile %s (%s); %s",
            class_name,
            describe(exc),
            fallback,
        )
        return False  # cached: never retried in this JVM


def _compile(tools: CompilingJvm, source: str, class_name: str) -> Any:
    compiler = tools.jvm.org.codehaus.janino.SimpleCompiler()
    compiler.setParentClassLoader(tools.jvm.org.apache.spark.util.Utils.getContextOrSparkClassLoader())
    compiler.cook(source)
    cls = compiler.getClassLoader().loadClass(class_name)
    no_types = tools.array("java.lang.Class", [])
    return cls.getDeclaredConstructor(no_types).newInstance(tools.array("java.lang.Object", []))


__all__ = ["compiled_instance", "java_source"]
