"""Which capture a thread works for, so tasks sharing one Spark session keep their lineage apart.

A session can outlive a task (a session the user keeps, ``dag.test`` running every task in one
process) and a thread can outlive the task that started it. Executions are attributed by thread:

* The thread that starts a capture works for it until the capture stops.
* A thread started while captures run works for them for its whole life, also after they
  stopped: it is that task's thread. A profile hook, installed with ``threading.setprofile`` only
  while a capture runs, runs once at the start of each new thread to record this and removes
  itself. When captures of unrelated tasks run at once in one process (nested captures of one
  task are fine), a new thread's task cannot be known: it works for none.
* Any other thread (older than the task, a pool thread started before it) works for nobody.

The mark travels with the thread's work:

* Classic sessions: as a Spark job tag (``SparkContext.addJobTag``; tags are per JVM thread and
  pyspark's default pinned-thread mode gives each Python thread its own py4j connection, served
  by its own JVM thread). The capture's thread is tagged when the capture starts and untagged
  when it stops. Any other marked thread is tagged when py4j opens its connection, which is its
  first Spark call (:func:`tag_new_connections`): a thread that never calls Spark costs nothing,
  and no Python call of any thread is watched. A connection py4j opens again (after a reset)
  is tagged again. The capture reads the tags of each execution's jobs from Spark's status store.
* Spark Connect: the gRPC interceptor runs on the calling thread and asks
  :func:`marks_of_current_thread`.

Nothing here raises into a user's thread; a hook that fails removes itself.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import uuid
import weakref
from collections.abc import Callable, Iterable
from types import FrameType
from typing import Any, Literal

from lineage_operators._logging import get_logger

log = get_logger(__name__)

#: Prefix of the Spark job tag that marks a capture's threads.
TAG_PREFIX = "lineage-operators-capture-"

#: Adds (or removes) a job tag on the calling thread's JVM thread.
Tagger = Callable[[str], None]

Verdict = Literal["own", "other"]


class Owner:
    """One capture's claim on the threads of its task."""

    def __init__(self, tagger: Tagger | None = None, untagger: Tagger | None = None) -> None:
        self.tag = f"{TAG_PREFIX}{uuid.uuid4().hex[:16]}"
        self.active = False
        self.tagger = tagger
        self.untagger = untagger
        #: the captures still running on the claiming thread when this one started (nesting)
        self.enclosing: tuple[Owner, ...] = ()
        self.thread: threading.Thread | None = None

    def __repr__(self) -> str:
        return f"Owner({self.tag}, active={self.active})"


_lock = threading.Lock()
_active: list[Owner] = []
_marks: weakref.WeakKeyDictionary[threading.Thread, tuple[Owner, ...]] = weakref.WeakKeyDictionary()
_hook_pid: int | None = None


def claim(owner: Owner) -> None:
    """Mark the calling thread and every thread started from now on as ``owner``'s.

    Raises what the tagger raises (the capture decides); the Python-side marks stay.
    """
    thread = threading.current_thread()
    with _lock:
        current = _marks.get(thread, ())
        owner.enclosing = tuple(o for o in current if o.active)
        owner.thread = thread
        owner.active = True
        _marks[thread] = (*current, owner)
        _active.append(owner)
        _install_hook()
    if owner.tagger is not None:
        owner.tagger(owner.tag)


def release(owner: Owner) -> None:
    """``owner``'s capture stopped: its thread is free again; threads it started stay marked."""
    with _lock:
        if not owner.active:
            return
        owner.active = False
        if owner in _active:
            _active.remove(owner)
        thread = owner.thread
        if thread is not None and thread in _marks:
            _marks[thread] = tuple(o for o in _marks[thread] if o is not owner)
        if not _active:
            _remove_hook()
    if owner.untagger is not None and thread is threading.current_thread():
        try:
            owner.untagger(owner.tag)
        except Exception as exc:
            log.debug("lineage capture: could not remove the job tag %s: %s", owner.tag, type(exc).__name__)


def marks_of_current_thread() -> tuple[str, ...]:
    """The tags of the captures the calling thread works for (empty: none known)."""
    with _lock:
        return tuple(o.tag for o in _marks.get(threading.current_thread(), ()))


def verdict(tags: Iterable[str], own: str) -> Verdict | None:
    """Pure: ``own`` if a thread of this capture ran it, ``other`` if only another capture's
    threads did, None when no capture's mark is on it (the caller's time-window rule decides)."""
    others = False
    for tag in tags:
        if tag == own:
            return "own"
        others = others or tag.startswith(TAG_PREFIX)
    return "other" if others else None


# -- the new-thread hook ------------------------------------------------------------------------


def _install_hook() -> None:
    """Called with ``_lock`` held; leaves a profiler the user installed alone (threads started
    then work for nobody)."""
    global _hook_pid
    current = threading.getprofile() if hasattr(threading, "getprofile") else None
    if current is _on_thread_start:
        return
    if current is not None:
        log.debug("lineage capture: a thread profiler is installed; new threads are not attributed")
        return
    _hook_pid = os.getpid()
    threading.setprofile(_on_thread_start)


def _remove_hook() -> None:
    current = threading.getprofile() if hasattr(threading, "getprofile") else _on_thread_start
    if current is _on_thread_start:
        threading.setprofile(None)  # type: ignore[arg-type]


def owners_for_new_thread(active: list[Owner]) -> tuple[Owner, ...]:
    """Pure: the captures a thread started now works for: all running ones if they are nested
    in one another (one task), none if unrelated tasks capture at once."""
    for leaf in reversed(active):
        chain = (*leaf.enclosing, leaf)
        if all(any(o is c for c in chain) for o in active):
            return chain
    return ()


def _on_thread_start(frame: FrameType, event: str, arg: Any) -> None:
    """First profile event of a thread started while a capture runs (``threading.setprofile``):
    records the thread's owners and removes itself, so the thread runs unprofiled from here."""
    sys.setprofile(None)
    try:
        if os.getpid() != _hook_pid:  # a forked child (the provider's emitter) inherited the hook
            return
        thread = threading.current_thread()
        if _is_py4j_thread(thread):
            return  # a callback connection or py4j's finalizer: not the task's
        with _lock:
            owners = owners_for_new_thread(_active)
            if owners:
                _marks[thread] = owners
    except Exception:
        return


def _is_py4j_thread(thread: threading.Thread) -> bool:
    """py4j's threads: its ``Thread`` subclasses, or a plain ``Thread`` running py4j code."""
    target = getattr(thread, "_target", None)  # set until run() ends; the hook runs before
    module = getattr(target, "__module__", None) or type(thread).__module__
    return module.startswith("py4j")


_TAGS_NEW_CONNECTIONS = "_lineage_operators_tags_new_connections"


def tag_new_connections(client: Any) -> None:
    """Make py4j's ``JavaClient`` tag each connection it opens for a marked thread (idempotent).

    In pinned-thread mode ``_create_new_connection`` runs once per Python thread, on that
    thread, right before its first command; the tag is sent over the new connection before it.
    """
    if getattr(client, _TAGS_NEW_CONNECTIONS, False):
        return
    original: Callable[[], Any] = client._create_new_connection

    def _create_new_connection() -> Any:
        connection = original()
        try:
            with _lock:
                owners = _marks.get(threading.current_thread(), ())
            if owners:
                tag_current_thread(owners)  # gives the new connection back to py4j's pool...
                with contextlib.suppress(ValueError):
                    client.deque.remove(connection)  # ...while the caller still holds it
        except Exception as exc:
            log.debug("lineage capture: could not tag a new connection: %s", type(exc).__name__)
        return connection

    client._create_new_connection = _create_new_connection
    setattr(client, _TAGS_NEW_CONNECTIONS, True)


def tag_current_thread(owners: Iterable[Owner]) -> None:
    """Put the owners' job tags on the calling thread's JVM thread; failures are ignored."""
    for owner in owners:
        if owner.tagger is None:
            continue
        try:
            owner.tagger(owner.tag)
        except Exception as exc:
            log.debug("lineage capture: could not tag a thread: %s", type(exc).__name__)


__all__ = [
    "TAG_PREFIX",
    "Owner",
    "claim",
    "marks_of_current_thread",
    "owners_for_new_thread",
    "release",
    "tag_current_thread",
    "tag_new_connections",
    "verdict",
]
