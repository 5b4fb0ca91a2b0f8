"""The two ways :class:`~lineage_operators.spark.jvm.tools.JvmTools` composes method handles.

* :class:`CompiledBuilder` calls ``lineage_operators.Handles`` (``jvm/java/Handles.java``, compiled
  in the driver's JVM by :mod:`~lineage_operators.spark.jvm.classes`): one py4j round trip per combinator.
* :class:`Py4jBuilder` composes the same handles with ``java.lang.invoke`` calls made one by one
  over py4j (many round trips per combinator): the fallback where the helper cannot be compiled.

Both build the same functions (the Spark tests compare their texts); ``JvmTools`` chooses one per
gateway and hands every combinator to it. All handles are ``(Object)Object``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from lineage_operators.spark.jvm.basics import JvmBasics
from lineage_operators.spark.jvm.text import NONE, SEP

# A step of a getter chain: (class name, method name) or (class name, method name, bound args)
# where bound args are (parameter class name, value) pairs.
Step = tuple[Any, ...]


class HandleBuilder(Protocol):
    """The combinators of :class:`~lineage_operators.spark.jvm.tools.JvmTools` (documented there)."""

    #: the compiled ``lineage_operators.Handles`` instance, or None: composed by py4j calls
    handles: Any

    def seq(self, items: Sequence[Any]) -> Any: ...
    def has_class(self, name: str) -> bool: ...
    def step(self, class_name: str, method: str, *bound: tuple[str, Any]) -> Any: ...
    def static(self, class_name: str, method: str, params: Sequence[str], *bound_tail: Any) -> Any: ...
    def chain(self, *steps: Step | Any) -> Any: ...
    def safe(self, handle: Any) -> Any: ...
    def first(self, *handles: Any) -> Any: ...
    def when(self, class_name: str, then: Any, otherwise: Any | None) -> Any: ...
    def constant(self, value: Any) -> Any: ...
    def text(self, handle: Any) -> Any: ...
    def option_text(self, handle: Any) -> Any: ...
    def mk_string(self, handle: Any, sep: str) -> Any: ...
    def array_join(self, sep: str) -> Any: ...
    def option_map(self, handle: Any, inner: Any) -> Any: ...
    def record(self, fields: Sequence[Any], sep: str) -> Any: ...
    def identity(self) -> Any: ...
    def opt(self, handle: Any) -> Any: ...
    def builder(self, handle: Any) -> Any: ...
    def function(self, handle: Any) -> Any: ...


def _cacheable(value: Any) -> bool:
    """A constant shared by every function that uses it (a part); other values are built each time."""
    return isinstance(value, (str, bool, int)) or value is None


class CompiledBuilder:
    """Each combinator in one call of the compiled ``lineage_operators.Handles``."""

    def __init__(self, tools: JvmBasics, handles: Any) -> None:
        self._t = tools
        self.handles = handles

    def seq(self, items: Sequence[Any]) -> Any:
        """A JVM ``Object[]`` of ``items``, eight per round trip."""
        arr = None
        for start in range(0, len(items), 8):
            chunk = list(items[start : start + 8])
            arr = self.handles.seq(arr, len(chunk), *(chunk + [None] * (8 - len(chunk))))
        return arr if arr is not None else self.handles.seq(None, 0, *([None] * 8))

    def has_class(self, name: str) -> bool:
        return bool(self.handles.hasClass(name))

    def step(self, class_name: str, method: str, *bound: tuple[str, Any]) -> Any:
        if not bound:
            return self.handles.step0(class_name, method)
        if len(bound) == 1:
            return self.handles.step1(class_name, method, bound[0][0], bound[0][1])
        return self.handles.step(
            class_name, method, SEP.join(c for c, _ in bound), self.seq([v for _, v in bound])
        )

    def static(self, class_name: str, method: str, params: Sequence[str], *bound_tail: Any) -> Any:
        tail = self.seq(list(bound_tail)) if bound_tail else None
        return self.handles.staticStep(class_name, method, SEP.join(params), tail)

    def chain(self, *steps: Step | Any) -> Any:
        fast, handle = self.handles, None
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
        return self.handles.safe(handle)

    def first(self, *handles: Any) -> Any:
        result = self.handles.safe(handles[-1])
        for handle in reversed(handles[:-1]):
            result = self.handles.orElse(handle, result)
        return result

    def when(self, class_name: str, then: Any, otherwise: Any | None) -> Any:
        return self.handles.when(class_name, then, otherwise)

    def constant(self, value: Any) -> Any:
        if _cacheable(value):
            key = ("constant", type(value).__name__, value)
            return self._t.part(key, lambda: self.handles.constant(value))
        return self.handles.constant(value)

    def text(self, handle: Any) -> Any:
        return self.handles.text(handle)

    def option_text(self, handle: Any) -> Any:
        return self.handles.optionText(handle)

    def mk_string(self, handle: Any, sep: str) -> Any:
        return self.handles.mkString(handle, self._t.once(), sep)

    def array_join(self, sep: str) -> Any:
        return self.handles.arrayJoin(sep)

    def option_map(self, handle: Any, inner: Any) -> Any:
        return self.handles.optionMap(handle, inner, self._t.once())

    def record(self, fields: Sequence[Any], sep: str) -> Any:
        return self.handles.record(sep, self.seq(list(fields)))

    def identity(self) -> Any:
        return self.handles.identity()

    def opt(self, handle: Any) -> Any:
        return self.handles.opt(handle, self._t.once())

    def builder(self, handle: Any) -> Any:
        return self.handles.builder(handle)

    def function(self, handle: Any) -> Any:
        return self.handles.function(handle)


class Py4jBuilder:
    """Each combinator composed from ``java.lang.invoke`` calls made over py4j, one by one."""

    def __init__(self, tools: JvmBasics) -> None:
        self._t = tools
        self.handles: Any = None
        self._mh = tools._mh
        self._mt = tools._mt
        self._lookup = tools._lookup
        self._proxies = tools._proxies
        self._oo = tools._oo
        self._nothing = tools._nothing

    def seq(self, items: Sequence[Any]) -> Any:
        return self._t.array("java.lang.Object", items)

    def has_class(self, name: str) -> bool:
        return bool(self._t.jvm.org.apache.spark.util.Utils.classIsLoadable(name))

    def step(self, class_name: str, method: str, *bound: tuple[str, Any]) -> Any:
        t = self._t
        param_classes = t.array("java.lang.Class", [t.cls(c) for c, _ in bound])
        handle = self._lookup.unreflect(t.cls(class_name).getMethod(method, param_classes))
        if bound:
            handle = self._mh.insertArguments(handle, 1, t.array("java.lang.Object", [v for _, v in bound]))
        return handle.asType(self._oo)

    def static(self, class_name: str, method: str, params: Sequence[str], *bound_tail: Any) -> Any:
        t = self._t
        param_classes = t.array("java.lang.Class", [t.cls(c) for c in params])
        handle = self._lookup.unreflect(t.cls(class_name).getMethod(method, param_classes))
        if bound_tail:
            handle = self._mh.insertArguments(handle, 1, t.array("java.lang.Object", list(bound_tail)))
        return handle.asType(self._oo)

    def chain(self, *steps: Step | Any) -> Any:
        handle = None
        for item in steps:
            nxt = self.step(*item) if isinstance(item, tuple) else item
            handle = nxt if handle is None else self._mh.filterReturnValue(handle, nxt)
        return handle

    def safe(self, handle: Any) -> Any:
        return self._mh.catchException(handle, self._t.cls("java.lang.Throwable"), self._nothing)

    def first(self, *handles: Any) -> Any:
        result = self.safe(handles[-1])
        throwable = self._t.cls("java.lang.Throwable")
        for handle in reversed(handles[:-1]):
            fallback = self._mh.dropArguments(result, 0, [throwable])
            result = self._mh.catchException(handle, throwable, fallback)
        return result

    def when(self, class_name: str, then: Any, otherwise: Any | None) -> Any:
        t = self._t
        is_instance = t.part(
            "isInstance",
            lambda: self._lookup.findVirtual(
                t.cls("java.lang.Class"),
                "isInstance",
                self._mt.methodType(t.cls("boolean"), t.cls("java.lang.Object")),
            ),
        )
        test = t.part(("instanceOf", class_name), lambda: is_instance.bindTo(t.cls(class_name)))
        if otherwise is None:
            otherwise = self.constant(NONE)
        return self._mh.guardWithTest(test, then, otherwise)

    def constant(self, value: Any) -> Any:
        obj = self._t.cls("java.lang.Object")
        if _cacheable(value):
            key = ("constant", type(value).__name__, value)
            return self._t.part(key, lambda: self._mh.dropArguments(self._mh.constant(obj, value), 0, [obj]))
        return self._mh.dropArguments(self._mh.constant(obj, value), 0, [obj])

    def text(self, handle: Any) -> Any:
        to_string = self._t.part(
            "toString",
            lambda: self.static(
                "java.util.Objects", "toString", ["java.lang.Object", "java.lang.String"], NONE
            ),
        )
        return self.safe(self._mh.filterReturnValue(handle, to_string))

    def option_text(self, handle: Any) -> Any:
        return self.text(self.chain(handle, ("scala.Option", "get")))

    def mk_string(self, handle: Any, sep: str) -> Any:
        return self.text(self.chain(handle, (self._t.once(), "mkString", ("java.lang.String", sep))))

    def array_join(self, sep: str) -> Any:
        t = self._t
        join = self._lookup.findStatic(
            t.cls("java.lang.String"),
            "join",
            self._mt.methodType(
                t.cls("java.lang.String"),
                t.array(
                    "java.lang.Class",
                    [t.cls("java.lang.CharSequence"), t.cls("[Ljava.lang.CharSequence;")],
                ),
            ),
        )
        return self._mh.insertArguments(join, 0, t.array("java.lang.Object", [sep])).asType(self._oo)

    def option_map(self, handle: Any, inner: Any) -> Any:
        """``Option.map`` + ``toList.mkString``: an empty Option costs no exception."""
        return self.text(
            self.chain(
                handle,
                ("scala.Option", "map", ("scala.Function1", self.function(inner))),
                ("scala.Option", "toList"),
                (self._t.once(), "mkString", ("java.lang.String", "")),
            )
        )

    def record(self, fields: Sequence[Any], sep: str) -> Any:
        t = self._t
        join = t.part(("join", sep, len(fields)), lambda: self._joiner(sep, len(fields)))
        join = self._mh.filterArguments(
            join, 0, t.array("java.lang.invoke.MethodHandle", [self.text(f) for f in fields])
        )
        count = len(fields)
        reorder = t.part(("reorder", count), lambda: t.array("int", [0] * count))  # never written
        return self._mh.permuteArguments(join, self._oo, reorder)

    def _joiner(self, sep: str, count: int) -> Any:
        """``String.join(sep, ...)`` of ``count`` Object arguments."""
        t = self._t
        char_seq = t.cls("java.lang.CharSequence")
        join = self._lookup.findStatic(
            t.cls("java.lang.String"),
            "join",
            self._mt.methodType(
                t.cls("java.lang.String"),
                t.array("java.lang.Class", [char_seq, t.cls("[Ljava.lang.CharSequence;")]),
            ),
        )
        join = self._mh.insertArguments(join, 0, t.array("java.lang.Object", [sep]))
        join = join.asCollector(t.cls("[Ljava.lang.CharSequence;"), count)
        obj = t.cls("java.lang.Object")
        return join.asType(self._mt.methodType(obj, t.array("java.lang.Class", [obj] * count)))

    def identity(self) -> Any:
        return self._mh.identity(self._t.cls("java.lang.Object"))

    def opt(self, handle: Any) -> Any:
        return self.text(
            self.chain(
                handle,
                ("scala.Option", "toList"),
                (self._t.once(), "mkString", ("java.lang.String", "")),
            )
        )

    def builder(self, handle: Any) -> Any:
        t = self._t
        ctor = t.part(
            "StringBuilder",
            lambda: self._lookup.findConstructor(
                t.cls("java.lang.StringBuilder"),
                self._mt.methodType(t.cls("void"), t.cls("java.lang.CharSequence")),
            ).asType(self._oo),
        )
        return self._mh.filterReturnValue(self.text(handle), ctor)

    def function(self, handle: Any) -> Any:
        return self._proxies.asInterfaceInstance(self._t.cls("scala.Function1"), handle)


__all__ = ["CompiledBuilder", "HandleBuilder", "Py4jBuilder", "Step"]
