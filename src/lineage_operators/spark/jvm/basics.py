"""What every JVM-side function is made of: one gateway's classes, arrays, method-handle factories
and shared building blocks, each looked up or made once.

Every py4j round trip costs 0.1-0.5 ms, and py4j resolves ``jvm.a.b.C`` one round trip per name
part: :class:`JvmBasics` keeps what it has looked up for the life of the gateway. Both ways of
composing functions (:mod:`~lineage_operators.spark.jvm.builders`) and
:class:`~lineage_operators.spark.jvm.tools.JvmTools`
(a :class:`JvmBasics`) build on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lineage_operators.spark.jvm.spark_line import Collections, SparkLine, detect
from lineage_operators.spark.jvm.text import NONE


class JvmBasics:
    """Cached classes, arrays, ``java.lang.invoke`` factories and building blocks of one gateway."""

    def __init__(self, gateway: Any) -> None:
        self.gateway = gateway
        self.jvm = gateway.jvm
        inv = self.jvm.java.lang.invoke
        self._mh = inv.MethodHandles
        self._mt = inv.MethodType
        self._proxies = inv.MethodHandleProxies
        self._lookup = self._mh.publicLookup()
        self._loader = self.jvm.org.apache.spark.util.Utils.getContextOrSparkClassLoader()
        self._classes: dict[str, Any] = {}
        self._java_classes: dict[str, Any] = {}
        #: building blocks every function reuses (each costs py4j round trips to make): the
        #: one-time set-up of a fresh process builds thousands of handles
        self._parts: dict[Any, Any] = {}
        self._line: SparkLine | None = None
        self._collections: Collections | None = None
        obj = self.cls("java.lang.Object")
        self._oo = self._mt.methodType(obj, obj)
        self._nothing = self._mh.dropArguments(
            self._mh.constant(obj, NONE), 0, [self.cls("java.lang.Throwable"), obj]
        )

    # -- the Spark line ----------------------------------------------------------------------

    @property
    def line(self) -> SparkLine:
        """This JVM's Spark and Scala versions (:mod:`~lineage_operators.spark.jvm.spark_line`), read on first
        use."""
        if self._line is None:
            self._line = detect(self.jvm)
        return self._line

    @property
    def coll(self) -> Collections:
        """Scala collection calls of this JVM's Scala version
        (:class:`~lineage_operators.spark.jvm.spark_line.Collections`)."""
        if self._collections is None:
            self._collections = Collections(self.line, self.jvm)
        return self._collections

    def once(self) -> str:
        """The class declaring ``mkString``/``size``/``toList`` of collections and iterators."""
        return self.line.collection_class("once")

    # -- classes and arrays ------------------------------------------------------------------

    def cls(self, name: str) -> Any:
        """A ``java.lang.Class`` (cached); raises if the class is not on the classpath."""
        found = self._classes.get(name)
        if found is None:
            if name in _PRIMITIVES:
                found = self.java_class(_PRIMITIVES[name]).TYPE
            else:
                found = self.java_class("java.lang.Class").forName(name, False, self._loader)
            self._classes[name] = found
        return found

    def part(self, key: Any, build: Any) -> Any:
        """A building block made once per gateway by ``build()`` (handles are immutable)."""
        found = self._parts.get(key)
        if found is None:
            found = build()
            self._parts[key] = found
        return found

    def array(self, element_class: str, items: Sequence[Any]) -> Any:
        if not items:  # never written to: one empty array per element class serves every call
            return self.part(("empty", element_class), lambda: self._new_array(element_class, ()))
        return self._new_array(element_class, items)

    def _new_array(self, element_class: str, items: Sequence[Any]) -> Any:
        java_cls = self.jvm.int if element_class == "int" else self.java_class(element_class)
        arr = self.gateway.new_array(java_cls, len(items))
        for index, item in enumerate(items):
            arr[index] = item
        return arr

    def java_class(self, name: str) -> Any:
        """py4j resolves ``jvm.a.b.C`` one round trip per name part: resolve each class once."""
        found = self._java_classes.get(name)
        if found is None:
            found = self.jvm
            for part in name.split("."):
                found = getattr(found, part)
            self._java_classes[name] = found
        return found


_PRIMITIVES = {
    "boolean": "java.lang.Boolean",
    "int": "java.lang.Integer",
    "long": "java.lang.Long",
    "void": "java.lang.Void",
}

__all__ = ["JvmBasics"]
