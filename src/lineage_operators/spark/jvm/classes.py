"""Small Java classes shipped in ``jvm/java/`` and compiled in the driver's JVM, once per JVM.

They are compiled with Janino, the compiler Spark's own code generation uses (so it is on every
driver's classpath), against Spark's class loader. Each replaces many py4j round trips with one
call; each caller keeps a Python fallback for a JVM where compiling fails.

Compiling costs a fresh driver JVM ~1.2 CPU-s, and Airflow runs every task in a fresh process: the
bytecode of the first compile on a machine is kept on disk (:mod:`~lineage_operators.spark.jvm.class_cache`)
and later JVMs define the classes from those bytes with Janino's own ``ByteArrayClassLoader`` (what
``SimpleCompiler.getClassLoader`` builds after a compile), in ~20 ms. Bytes that do not load, or whose
class cannot be instantiated, are compiled from source instead.

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
from lineage_operators.spark.jvm import class_cache

log = get_logger(__name__)

COMPILER = "org.codehaus.janino.SimpleCompiler"


class CompilingJvm(Protocol):
    """What compiling needs of :class:`~lineage_operators.spark.jvm.tools.JvmTools`."""

    jvm: Any

    @property
    def line(self) -> Any: ...

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
        return _cached_or_compiled(tools, java_source(file_name), class_name)
    except Exception as exc:  # logged once: the failure is cached for the JVM
        log.info(
            "lineage capture: cannot compile %s (%s); %s",
            class_name,
            describe(exc),
            fallback,
        )
        return False  # cached: never retried in this JVM


def _cached_or_compiled(tools: CompilingJvm, source: str, class_name: str) -> Any:
    """An instance of ``class_name``: from the disk cache's bytes where they load, else compiled
    (and the compiled bytes stored for the next JVM)."""
    root = class_cache.cache_root()
    key = None if root is None else _key(tools, class_name, source)
    if root is not None and key is not None:
        classes = class_cache.load(root, key)
        if classes is not None:
            try:
                return _instantiate(tools, _define(tools, classes).loadClass(class_name))
            except Exception as exc:
                log.info(
                    "lineage capture: cached %s did not load (%s); compiling it", class_name, describe(exc)
                )
    compiler = _compile(tools, source)
    instance = _instantiate(tools, compiler.getClassLoader().loadClass(class_name))
    if root is not None and key is not None:
        _store(tools, root, key, compiler)
    return instance


def _key(tools: CompilingJvm, class_name: str, source: str) -> class_cache.CacheKey | None:
    """The cache key of ``source`` in this JVM, or None (logged at DEBUG) when a version cannot be read."""
    try:
        line = tools.line
        java = tools.cached("jvm_classes.java_version", _java_version)
        return class_cache.CacheKey.of(class_name, source, line.spark_version, line.scala_version, java)
    except Exception as exc:
        log.debug("lineage capture: no cache key for %s (%s)", class_name, describe(exc))
        return None


def _java_version(tools: CompilingJvm) -> str:
    return str(tools.jvm.java.lang.System.getProperty("java.version"))


def _parent_loader(tools: CompilingJvm) -> Any:
    return tools.jvm.org.apache.spark.util.Utils.getContextOrSparkClassLoader()


def _compile(tools: CompilingJvm, source: str) -> Any:
    """A Janino ``SimpleCompiler`` that has compiled ``source`` against Spark's class loader."""
    compiler = tools.jvm.org.codehaus.janino.SimpleCompiler()
    compiler.setParentClassLoader(_parent_loader(tools))
    compiler.cook(source)
    return compiler


def _define(tools: CompilingJvm, classes: dict[str, bytes]) -> Any:
    """A class loader of ``classes`` (name -> bytecode) under Spark's, as a compile would make."""
    by_name = tools.jvm.java.util.HashMap()
    for name, data in classes.items():
        by_name.put(name, bytearray(data))
    loaders = tools.jvm.org.codehaus.commons.compiler.util.reflect
    return loaders.ByteArrayClassLoader(by_name, _parent_loader(tools))


def _store(tools: CompilingJvm, root: Any, key: class_cache.CacheKey, compiler: Any) -> None:
    """Keep the compiled bytes for the next JVM; any failure only means it compiles too (DEBUG)."""
    try:
        codes = compiler.getBytecodes()
        classes = {str(name): bytes(codes.get(name)) for name in list(codes.keySet())}
    except Exception as exc:
        log.debug("lineage capture: cannot read %s's compiled bytes (%s)", key.class_name, describe(exc))
        return
    class_cache.store(root, key, classes)


def _instantiate(tools: CompilingJvm, cls: Any) -> Any:
    no_types = tools.array("java.lang.Class", [])
    return cls.getDeclaredConstructor(no_types).newInstance(tools.array("java.lang.Object", []))


__all__ = ["compiled_instance", "java_source"]
