"""JVM-side functions built from method handles, so one py4j call can read every node of a plan.

A py4j round trip costs 0.1-0.5 ms; reading a 50-way union node by node would take hundreds of
them. Instead we compose ``java.lang.invoke`` method handles (getter chains, type guards,
exception fallbacks, string joins) into a ``scala.Function1`` with
``MethodHandleProxies.asInterfaceInstance`` and run ``seq.map(fn).mkString(sep)`` inside the JVM:
a constant number of round trips whatever the plan size. Only JDK and Scala library APIs are used;
the one piece of JVM code this package ships is the compact plan writer of column lineage
(:mod:`lineage_operators.spark.plan.columns.writer`, Java source compiled at run time).

Every built function is total: a missing method, a failed cast or an exception yields
:data:`NONE` for that field instead of failing the whole record.

The handles are composed by the compiled helper ``jvm/java/Handles.java`` where it compiles, else
by py4j calls (:mod:`~lineage_operators.spark.jvm.builders`); the texts they return are
:mod:`~lineage_operators.spark.jvm.text`'s.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from lineage_operators.spark.jvm.basics import JvmBasics
from lineage_operators.spark.jvm.builders import CompiledBuilder, HandleBuilder, Py4jBuilder, Step
from lineage_operators.spark.jvm.text import SEP, SEP2


class JvmTools(JvmBasics):
    """Factory and cache of JVM-side functions for one py4j gateway."""

    def __init__(self, gateway: Any, *, fast: bool = True) -> None:
        super().__init__(gateway)
        self._functions: dict[str, Any] = {}
        self._lock = threading.RLock()
        #: how handles are composed: by the compiled ``jvm/java/Handles.java`` (one round trip per
        #: combinator), chosen on first use (:meth:`fast`); by pure py4j calls where it cannot be
        #: compiled or ``fast`` is off
        self._builder: HandleBuilder | None = None if fast else Py4jBuilder(self)

    def fast(self) -> Any:
        """The JVM-side combinators (``jvm/java/Handles.java``), or None: compose by py4j calls.

        Compiled on first use rather than here: :func:`tools_for` runs on the task's thread at
        ``start()``, the set-up of the functions on the capture's reader thread."""
        return self._chosen().handles

    def fast_if_ready(self) -> Any:
        """:meth:`fast`'s combinators if they are compiled already, else None (compiling takes
        ~0.6 s, which a caller on the task's thread must not add to the task)."""
        found = self._builder
        return None if found is None else found.handles

    def _chosen(self) -> HandleBuilder:
        """The way handles are composed, chosen once: compiling fails at most once (logged)."""
        found = self._builder
        if found is None:
            from lineage_operators.spark.jvm import classes as jvm_classes

            with self._lock:
                if self._builder is None:
                    handles = jvm_classes.compiled_instance(
                        self, HANDLES_SOURCE, HANDLES_CLASS, "JVM-side functions are composed by py4j calls"
                    )
                    self._builder = Py4jBuilder(self) if handles is None else CompiledBuilder(self, handles)
                found = self._builder
        return found

    def seq(self, items: Sequence[Any]) -> Any:
        """A JVM ``Object[]`` of ``items`` built by the compiled helper, eight per round trip."""
        return self._chosen().seq(items)

    def has_class(self, name: str) -> bool:
        if name in self._classes:
            return True
        builder = self._chosen()
        try:
            return builder.has_class(name)
        except Exception:
            return False

    # -- method handle combinators (all handles are (Object)Object) ----------------------------

    def step(self, class_name: str, method: str, *bound: tuple[str, Any]) -> Any:
        """A handle calling ``method`` on its argument, with ``bound`` trailing arguments."""
        return self._chosen().step(class_name, method, *bound)

    def static(self, class_name: str, method: str, params: Sequence[str], *bound_tail: Any) -> Any:
        """A static method taking the argument first, then ``bound_tail``."""
        return self._chosen().static(class_name, method, params, *bound_tail)

    def chain(self, *steps: Step | Any) -> Any:
        """Compose getters left to right; a step is a tuple for :meth:`step` or a handle."""
        return self._chosen().chain(*steps)

    def safe(self, handle: Any) -> Any:
        """``handle`` with any exception turned into :data:`NONE`."""
        return self._chosen().safe(handle)

    def first(self, *handles: Any) -> Any:
        """The first handle that does not throw (the last one's failure gives :data:`NONE`)."""
        return self._chosen().first(*handles)

    def when(self, class_name: str, then: Any, otherwise: Any | None = None) -> Any:
        """``then`` if the argument is an instance of ``class_name``, else ``otherwise``/NONE."""
        return self._chosen().when(class_name, then, otherwise)

    def constant(self, value: Any) -> Any:
        return self._chosen().constant(value)

    def text(self, handle: Any) -> Any:
        """``handle`` then ``String.valueOf``-like conversion; null becomes :data:`NONE`."""
        return self._chosen().text(handle)

    def option_text(self, handle: Any) -> Any:
        """Text of the value inside a ``scala.Option`` (None gives :data:`NONE`)."""
        return self._chosen().option_text(handle)

    def mk_string(self, handle: Any, sep: str = SEP2) -> Any:
        """A Scala collection returned by ``handle`` joined with ``sep``."""
        return self._chosen().mk_string(handle, sep)

    def array_join(self, sep: str = ".") -> Any:
        """A handle joining a Java ``String[]`` argument with ``sep``."""
        return self._chosen().array_join(sep)

    def option_map(self, handle: Any, inner: Any) -> Any:
        """``handle`` returns a ``scala.Option``: the text of ``inner`` applied to its value, or "".

        Uses ``Option.map`` + ``toList.mkString`` so an empty Option costs no exception.
        """
        return self._chosen().option_map(handle, inner)

    def record(self, fields: Sequence[Any], sep: str = SEP) -> Any:
        """One string per argument: the text of every field handle joined with ``sep``."""
        return self._chosen().record(fields, sep)

    def identity(self) -> Any:
        return self._chosen().identity()

    def opt(self, handle: Any) -> Any:
        """Text of a ``scala.Option`` returned by ``handle``: its value, or "" when empty."""
        return self._chosen().opt(handle)

    def builder(self, handle: Any) -> Any:
        """``handle``'s text wrapped in a ``java.lang.StringBuilder`` (read it with :meth:`read`)."""
        return self._chosen().builder(handle)

    def joined(self, seq: Any, sep: str) -> Any:
        """A Scala collection of strings joined with ``sep`` into a JVM-side string builder."""
        return seq.addString(self.java_class("scala.collection.mutable.StringBuilder")(), sep)

    def read(self, text: Any) -> str | None:
        """The text of a JVM ``CharSequence`` reference, fetched in chunks.

        py4j's Java side writes a reply larger than its 8 KiB buffer in two TCP segments, and
        Nagle's algorithm holds the second until the delayed ACK (40 ms on Linux) of the first:
        every reply over ~8 KiB costs 40 ms. Chunks below that cost one round trip each.
        """
        if text is None or isinstance(text, str):
            return text
        size = int(text.length())
        if size <= _CHUNK:
            return str(text.toString())
        return "".join(str(text.substring(i, min(i + _CHUNK, size))) for i in range(0, size, _CHUNK))

    def function(self, handle: Any) -> Any:
        """A ``scala.Function1`` running ``handle`` inside the JVM."""
        return self._chosen().function(handle)

    # -- cache -------------------------------------------------------------------------------

    def cached(self, key: str, build: Any) -> Any:
        """The function registered as ``key``, built once per gateway by ``build(self)``."""
        with self._lock:
            found = self._functions.get(key)
            if found is None:
                found = build(self)
                self._functions[key] = found
            return found


#: The compiled combinators (:meth:`JvmTools.fast`).
HANDLES_SOURCE = "Handles.java"
HANDLES_CLASS = "lineage_operators.Handles"

#: Characters per py4j reply when reading long texts (escaping may double them; below 8 KiB).
_CHUNK = 3000

_TOOLS: dict[int, JvmTools] = {}
_TOOLS_LOCK = threading.Lock()


def tools_for(gateway: Any) -> JvmTools:
    """The shared :class:`JvmTools` of ``gateway`` (one per JVM, built lazily)."""
    key = id(gateway)
    with _TOOLS_LOCK:
        found = _TOOLS.get(key)
        if found is None or found.gateway is not gateway:
            found = JvmTools(gateway)
            _TOOLS[key] = found
        return found


#: The separators and splitters of :mod:`~lineage_operators.spark.jvm.text` are imported from here by every
#: plan reader.
__all__ = ["JvmTools", "tools_for"]
