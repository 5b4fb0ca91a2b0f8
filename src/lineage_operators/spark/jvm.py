"""JVM-side functions built from method handles, so one py4j call can read every node of a plan.

A py4j round trip costs 0.1-0.5 ms; reading a 50-way union node by node would take hundreds of
them. Instead we compose ``java.lang.invoke`` method handles (getter chains, type guards,
exception fallbacks, string joins) into a ``scala.Function1`` with
``MethodHandleProxies.asInterfaceInstance`` and run ``seq.map(fn).mkString(sep)`` inside the JVM:
a constant number of round trips whatever the plan size. Only JDK and Scala library APIs are used;
the one piece of JVM code this package ships is the compact plan writer of column lineage
(:mod:`lineage_operators.spark.plan_writer`, Java source compiled at run time).

Every built function is total: a missing method, a failed cast or an exception yields
:data:`NONE` for that field instead of failing the whole record.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from lineage_operators.spark.spark_line import Collections, SparkLine, detect

#: Between fields of one record.
SEP = "\u001f"
#: Between the items of a list inside one field.
SEP2 = "\u001e"
#: Between records.
RSEP = "\u001d"
#: Between the fields of a record nested inside a field.
SEP3 = "\u001c"
#: Between the fields of a catalog-table record (the innermost nesting level).
CTSEP = "\u0017"
#: A field that is absent (None, a failed cast, an exception).
NONE = "\u0015"

# A step of a getter chain: (class name, method name) or (class name, method name, bound args)
# where bound args are (parameter class name, value) pairs.
Step = tuple[Any, ...]


class JvmTools:
    """Factory and cache of JVM-side functions for one py4j gateway."""

    def __init__(self, gateway: Any, *, fast: bool = True) -> None:
        self.gateway = gateway
        #: the compiled ``jvm_src/Handles.java`` (one round trip per combinator), built on first
        #: use; False where it cannot be compiled (or ``fast`` is off): then pure py4j calls
        self._handles: Any = None if fast else False
        self.jvm = gateway.jvm
        inv = self.jvm.java.lang.invoke
        self._mh = inv.MethodHandles
        self._mt = inv.MethodType
        self._proxies = inv.MethodHandleProxies
        self._lookup = self._mh.publicLookup()
        self._loader = self.jvm.org.apache.spark.util.Utils.getContextOrSparkClassLoader()
        self._classes: dict[str, Any] = {}
        self._java_classes: dict[str, Any] = {}
        self._functions: dict[str, Any] = {}
        #: building blocks every function reuses (each costs py4j round trips to make): the
        #: one-time set-up of a fresh process builds thousands of handles
        self._parts: dict[Any, Any] = {}
        self._lock = threading.RLock()
        self._line: SparkLine | None = None
        self._collections: Collections | None = None
        obj = self.cls("java.lang.Object")
        self._oo = self._mt.methodType(obj, obj)
        self._nothing = self._mh.dropArguments(
            self._mh.constant(obj, NONE), 0, [self.cls("java.lang.Throwable"), obj]
        )

    def fast(self) -> Any:
        """The JVM-side combinators (``jvm_src/Handles.java``), or None: compose by py4j calls.

        Compiled on first use rather than here: :func:`tools_for` runs on the task's thread at
        ``start()``, the set-up of the functions on the capture's reader thread."""
        found = self._handles
        if found is None:
            from lineage_operators.spark import jvm_classes

            with self._lock:
                if self._handles is None:
                    self._handles = (
                        jvm_classes.compiled_instance(
                            self,
                            HANDLES_SOURCE,
                            HANDLES_CLASS,
                            "JVM-side functions are composed by py4j calls",
                        )
                        or False
                    )
                found = self._handles
        return found or None

    def seq(self, items: Sequence[Any]) -> Any:
        """A JVM ``Object[]`` of ``items`` built by the compiled helper, eight per round trip."""
        fast = self.fast()
        if fast is None:
            return self.array("java.lang.Object", items)
        arr = None
        for start in range(0, len(items), 8):
            chunk = list(items[start : start + 8])
            arr = fast.seq(arr, len(chunk), *(chunk + [None] * (8 - len(chunk))))
        return arr if arr is not None else fast.seq(None, 0, *([None] * 8))

    # -- the Spark line ----------------------------------------------------------------------

    @property
    def line(self) -> SparkLine:
        """This JVM's Spark and Scala versions (:mod:`.spark_line`), read on first use."""
        if self._line is None:
            self._line = detect(self.jvm)
        return self._line

    @property
    def coll(self) -> Collections:
        """Scala collection calls of this JVM's Scala version (:class:`.spark_line.Collections`)."""
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

    def has_class(self, name: str) -> bool:
        if name in self._classes:
            return True
        fast = self.fast()
        try:
            if fast is not None:
                return bool(fast.hasClass(name))
            return bool(self.jvm.org.apache.spark.util.Utils.classIsLoadable(name))
        except Exception:
            return False

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

    # -- method handle combinators (all handles are (Object)Object) ----------------------------

    def step(self, class_name: str, method: str, *bound: tuple[str, Any]) -> Any:
        """A handle calling ``method`` on its argument, with ``bound`` trailing arguments."""
        fast = self.fast()
        if fast is not None:
            if not bound:
                return fast.step0(class_name, method)
            if len(bound) == 1:
                return fast.step1(class_name, method, bound[0][0], bound[0][1])
            return fast.step(
                class_name, method, SEP.join(c for c, _ in bound), self.seq([v for _, v in bound])
            )
        param_classes = self.array("java.lang.Class", [self.cls(c) for c, _ in bound])
        handle = self._lookup.unreflect(self.cls(class_name).getMethod(method, param_classes))
        if bound:
            handle = self._mh.insertArguments(
                handle, 1, self.array("java.lang.Object", [v for _, v in bound])
            )
        return handle.asType(self._oo)

    def static(self, class_name: str, method: str, params: Sequence[str], *bound_tail: Any) -> Any:
        """A static method taking the argument first, then ``bound_tail``."""
        fast = self.fast()
        if fast is not None:
            tail = self.seq(list(bound_tail)) if bound_tail else None
            return fast.staticStep(class_name, method, SEP.join(params), tail)
        param_classes = self.array("java.lang.Class", [self.cls(c) for c in params])
        handle = self._lookup.unreflect(self.cls(class_name).getMethod(method, param_classes))
        if bound_tail:
            handle = self._mh.insertArguments(handle, 1, self.array("java.lang.Object", list(bound_tail)))
        return handle.asType(self._oo)

    def chain(self, *steps: Step | Any) -> Any:
        """Compose getters left to right; a step is a tuple for :meth:`step` or a handle."""
        fast = self.fast()
        if fast is not None:
            return self._fast_chain(fast, steps)
        handle = None
        for item in steps:
            nxt = self.step(*item) if isinstance(item, tuple) else item
            handle = nxt if handle is None else self._mh.filterReturnValue(handle, nxt)
        return handle

    def _fast_chain(self, fast: Any, steps: Sequence[Step | Any]) -> Any:
        handle = None
        for item in steps:
            if not isinstance(item, tuple):
                handle = fast.then(handle, item)
            elif len(item) == 2:
                handle = fast.then0(handle, item[0], item[1])
            elif len(item) == 3:
                handle = fast.then1(handle, item[0], item[1], item[2][0], item[2][1])
            else:
                handle = fast.then(handle, self.step(*item))
        return handle

    def safe(self, handle: Any) -> Any:
        """``handle`` with any exception turned into :data:`NONE`."""
        fast = self.fast()
        if fast is not None:
            return fast.safe(handle)
        return self._mh.catchException(handle, self.cls("java.lang.Throwable"), self._nothing)

    def first(self, *handles: Any) -> Any:
        """The first handle that does not throw (the last one's failure gives :data:`NONE`)."""
        fast = self.fast()
        if fast is not None:
            result = fast.safe(handles[-1])
            for handle in reversed(handles[:-1]):
                result = fast.orElse(handle, result)
            return result
        result = self.safe(handles[-1])
        throwable = self.cls("java.lang.Throwable")
        for handle in reversed(handles[:-1]):
            fallback = self._mh.dropArguments(result, 0, [throwable])
            result = self._mh.catchException(handle, throwable, fallback)
        return result

    def when(self, class_name: str, then: Any, otherwise: Any | None = None) -> Any:
        """``then`` if the argument is an instance of ``class_name``, else ``otherwise``/NONE."""
        fast = self.fast()
        if fast is not None:
            return fast.when(class_name, then, otherwise)
        is_instance = self.part(
            "isInstance",
            lambda: self._lookup.findVirtual(
                self.cls("java.lang.Class"),
                "isInstance",
                self._mt.methodType(self.cls("boolean"), self.cls("java.lang.Object")),
            ),
        )
        test = self.part(("instanceOf", class_name), lambda: is_instance.bindTo(self.cls(class_name)))
        if otherwise is None:
            otherwise = self.constant(NONE)
        return self._mh.guardWithTest(test, then, otherwise)

    def constant(self, value: Any) -> Any:
        fast = self.fast()
        if fast is not None:
            if isinstance(value, (str, bool, int)) or value is None:
                key = ("constant", type(value).__name__, value)
                return self.part(key, lambda: fast.constant(value))
            return fast.constant(value)
        obj = self.cls("java.lang.Object")
        if isinstance(value, (str, bool, int)) or value is None:
            key = ("constant", type(value).__name__, value)
            return self.part(key, lambda: self._mh.dropArguments(self._mh.constant(obj, value), 0, [obj]))
        return self._mh.dropArguments(self._mh.constant(obj, value), 0, [obj])

    def text(self, handle: Any) -> Any:
        """``handle`` then ``String.valueOf``-like conversion; null becomes :data:`NONE`."""
        fast = self.fast()
        if fast is not None:
            return fast.text(handle)
        to_string = self.part(
            "toString",
            lambda: self.static(
                "java.util.Objects", "toString", ["java.lang.Object", "java.lang.String"], NONE
            ),
        )
        return self.safe(self._mh.filterReturnValue(handle, to_string))

    def option_text(self, handle: Any) -> Any:
        """Text of the value inside a ``scala.Option`` (None gives :data:`NONE`)."""
        fast = self.fast()
        if fast is not None:
            return fast.optionText(handle)
        return self.text(self.chain(handle, ("scala.Option", "get")))

    def mk_string(self, handle: Any, sep: str = SEP2) -> Any:
        """A Scala collection returned by ``handle`` joined with ``sep``."""
        fast = self.fast()
        if fast is not None:
            return fast.mkString(handle, self.once(), sep)
        return self.text(self.chain(handle, (self.once(), "mkString", ("java.lang.String", sep))))

    def array_join(self, sep: str = ".") -> Any:
        """A handle joining a Java ``String[]`` argument with ``sep``."""
        fast = self.fast()
        if fast is not None:
            return fast.arrayJoin(sep)
        join = self._lookup.findStatic(
            self.cls("java.lang.String"),
            "join",
            self._mt.methodType(
                self.cls("java.lang.String"),
                self.array(
                    "java.lang.Class",
                    [self.cls("java.lang.CharSequence"), self.cls("[Ljava.lang.CharSequence;")],
                ),
            ),
        )
        return self._mh.insertArguments(join, 0, self.array("java.lang.Object", [sep])).asType(self._oo)

    def option_map(self, handle: Any, inner: Any) -> Any:
        """``handle`` returns a ``scala.Option``: the text of ``inner`` applied to its value, or "".

        Uses ``Option.map`` + ``toList.mkString`` so an empty Option costs no exception.
        """
        fast = self.fast()
        if fast is not None:
            return fast.optionMap(handle, inner, self.once())
        return self.text(
            self.chain(
                handle,
                ("scala.Option", "map", ("scala.Function1", self.function(inner))),
                ("scala.Option", "toList"),
                (self.once(), "mkString", ("java.lang.String", "")),
            )
        )

    def record(self, fields: Sequence[Any], sep: str = SEP) -> Any:
        """One string per argument: the text of every field handle joined with ``sep``."""
        fast = self.fast()
        if fast is not None:
            return fast.record(sep, self.seq(list(fields)))
        join = self.part(("join", sep, len(fields)), lambda: self._joiner(sep, len(fields)))
        join = self._mh.filterArguments(
            join, 0, self.array("java.lang.invoke.MethodHandle", [self.text(f) for f in fields])
        )
        count = len(fields)
        reorder = self.part(("reorder", count), lambda: self.array("int", [0] * count))  # never written
        return self._mh.permuteArguments(join, self._oo, reorder)

    def _joiner(self, sep: str, count: int) -> Any:
        """``String.join(sep, ...)`` of ``count`` Object arguments."""
        char_seq = self.cls("java.lang.CharSequence")
        join = self._lookup.findStatic(
            self.cls("java.lang.String"),
            "join",
            self._mt.methodType(
                self.cls("java.lang.String"),
                self.array("java.lang.Class", [char_seq, self.cls("[Ljava.lang.CharSequence;")]),
            ),
        )
        join = self._mh.insertArguments(join, 0, self.array("java.lang.Object", [sep]))
        join = join.asCollector(self.cls("[Ljava.lang.CharSequence;"), count)
        obj = self.cls("java.lang.Object")
        return join.asType(self._mt.methodType(obj, self.array("java.lang.Class", [obj] * count)))

    def identity(self) -> Any:
        fast = self.fast()
        if fast is not None:
            return fast.identity()
        return self._mh.identity(self.cls("java.lang.Object"))

    def opt(self, handle: Any) -> Any:
        """Text of a ``scala.Option`` returned by ``handle``: its value, or "" when empty."""
        fast = self.fast()
        if fast is not None:
            return fast.opt(handle, self.once())
        return self.text(
            self.chain(
                handle,
                ("scala.Option", "toList"),
                (self.once(), "mkString", ("java.lang.String", "")),
            )
        )

    def builder(self, handle: Any) -> Any:
        """``handle``'s text wrapped in a ``java.lang.StringBuilder`` (read it with :meth:`read`)."""
        fast = self.fast()
        if fast is not None:
            return fast.builder(handle)
        ctor = self.part(
            "StringBuilder",
            lambda: self._lookup.findConstructor(
                self.cls("java.lang.StringBuilder"),
                self._mt.methodType(self.cls("void"), self.cls("java.lang.CharSequence")),
            ).asType(self._oo),
        )
        return self._mh.filterReturnValue(self.text(handle), ctor)

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
        fast = self.fast()
        if fast is not None:
            return fast.function(handle)
        return self._proxies.asInterfaceInstance(self.cls("scala.Function1"), handle)

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

_PRIMITIVES = {
    "boolean": "java.lang.Boolean",
    "int": "java.lang.Integer",
    "long": "java.lang.Long",
    "void": "java.lang.Void",
}
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


def split_records(text: str | None) -> list[list[str | None]]:
    """Parse ``mkString(RSEP)`` of records into field lists (:data:`NONE` -> None)."""
    if not text:
        return []
    return [[None if field == NONE else field for field in record.split(SEP)] for record in text.split(RSEP)]


def split_list(field: str | None) -> list[str]:
    """The items of a :data:`SEP2`-joined field."""
    if not field:
        return []
    return [item for item in field.split(SEP2) if item]
