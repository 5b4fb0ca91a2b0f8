"""Thread ownership (which capture a thread works for) and the attribution rule, without Spark."""

from __future__ import annotations

import collections
import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from lineage_operators.spark.attribution import ownership
from lineage_operators.spark.attribution.classic import attributed
from lineage_operators.spark.attribution.ownership import TAG_PREFIX, Owner, claim, release, verdict
from lineage_operators.spark.listen.job_statistics import ExecutionJobs

OWN, OTHER = f"{TAG_PREFIX}own", f"{TAG_PREFIX}other"


@pytest.mark.parametrize(
    ("tags", "expected"),
    [
        ((), None),
        (("user-tag", "spark-session-1"), None),
        ((OWN,), "own"),
        ((OTHER,), "other"),
        ((OTHER, OWN), "own"),  # a nested capture's thread carries both
        (("user-tag", OTHER), "other"),
    ],
)
def test_verdict(tags: tuple[str, ...], expected: str | None) -> None:
    assert verdict(tags, OWN) == expected


def test_new_threads_work_for_nested_captures_of_one_task_but_not_for_unrelated_ones() -> None:
    outer, inner, unrelated = Owner(), Owner(), Owner()
    inner.enclosing = (outer,)
    assert ownership.owners_for_new_thread([]) == ()
    assert ownership.owners_for_new_thread([outer]) == (outer,)
    assert ownership.owners_for_new_thread([outer, inner]) == (outer, inner)
    assert ownership.owners_for_new_thread([outer, unrelated]) == ()


@dataclass
class Facts:
    query_id: str | None
    qe_id: int | None
    tags: frozenset[str] | None = None


def test_attribution_rule() -> None:
    records = [
        ExecutionJobs(10, 10, "own", job_tags=frozenset({OWN})),
        ExecutionJobs(11, 11, "other", job_tags=frozenset({OTHER, "user"})),
        ExecutionJobs(12, 12, "untagged-old", job_tags=frozenset()),
        ExecutionJobs(13, 13, "write-root"),  # the command; its job runs in a nested execution
        ExecutionJobs(14, 13, "write-nested", job_tags=frozenset({OTHER})),
    ]
    facts = [
        Facts("own", 1),  # tagged by this capture although its QueryExecution is old
        Facts("other", 200),  # another capture's thread, new QueryExecution
        Facts("untagged-old", 2),  # old QueryExecution, started after start(): window keeps it
        Facts("untagged-new", 201),  # no jobs (DDL): new QueryExecution keeps it
        Facts("gone", 3),  # old and not in the store (started before start(), or evicted)
        Facts("write-root", 202),  # root of another capture's write
        Facts(None, None, frozenset({OTHER})),  # another capture's RDD job
        Facts(None, None, frozenset()),  # an untagged RDD job
    ]
    kept = attributed(facts, records, own_tag=OWN, qe_watermark=100, exec_watermark=9)
    assert [(f.query_id, f.tags) for f in kept] == [
        ("own", None),
        ("untagged-old", None),
        ("untagged-new", None),
        (None, frozenset()),
    ]
    # no tag of its own (pinned-thread mode off): the time window alone, as before
    kept = attributed(facts, records, own_tag=None, qe_watermark=100, exec_watermark=9)
    assert {f.query_id for f in kept} == {"own", "other", "untagged-old", "untagged-new", "write-root", None}


# -- threads and their tags --------------------------------------------------------------------


def _py4j_function(body: Callable[[], Any]) -> Callable[[], Any]:
    """A function whose module looks like py4j's (a py4j thread class's ``run``)."""
    namespace: dict[str, Any] = {"__name__": "py4j.clientserver", "body": body}
    exec("def run():\n    return body()\n", namespace)
    function: Callable[[], Any] = namespace["run"]
    return function


class Client:
    """py4j's ``JavaClient`` in pinned-thread mode: a connection per thread, opened on its first
    command; the pool (``deque``) holds the connections not in use, each once."""

    def __init__(self) -> None:
        self.deque: collections.deque[object] = collections.deque()
        self.local = threading.local()
        self.opened = 0

    def _create_new_connection(self) -> object:
        self.opened += 1
        self.local.connection = object()
        return self.local.connection

    def send_command(self) -> None:
        connection = getattr(self.local, "connection", None)
        if connection is not None:
            with contextlib.suppress(ValueError):
                self.deque.remove(connection)
        else:
            connection = self._create_new_connection()
        self.deque.append(connection)

    def reset_connection(self) -> None:
        self.deque.remove(self.local.connection)
        del self.local.connection


class Jvm:
    """A fake JVM: job tags per Python thread, as pinned-thread mode keeps them."""

    def __init__(self) -> None:
        self.by_thread: dict[str, set[str]] = {}
        self.client = Client()
        ownership.tag_new_connections(self.client)

    def add(self, tag: str) -> None:
        self.client.send_command()
        self.by_thread.setdefault(threading.current_thread().name, set()).add(tag)

    def remove(self, tag: str) -> None:
        self.client.send_command()
        self.by_thread.get(threading.current_thread().name, set()).discard(tag)

    def owner(self) -> Owner:
        return Owner(self.add, self.remove)

    def spark_call(self) -> None:
        self.client.send_command()


@pytest.fixture
def jvm() -> Iterator[Jvm]:
    fake = Jvm()
    yield fake
    assert ownership._active == []
    assert threading.getprofile() is None
    assert len(fake.client.deque) == len(set(map(id, fake.client.deque))), "a connection pooled twice"


def _run(name: str, target: Callable[[], Any]) -> None:
    thread = threading.Thread(target=target, name=name)
    thread.start()
    thread.join()


def test_threads_started_during_a_capture_are_tagged_on_their_first_spark_call(jvm: Jvm) -> None:
    a = jvm.owner()
    claim(a)
    assert jvm.by_thread == {"MainThread": {a.tag}}
    assert ownership.marks_of_current_thread() == (a.tag,)
    _run("a-writer", jvm.spark_call)
    _run("a-pure-python", lambda: sum(range(1000)))  # never calls Spark: no tag, no JVM call
    release(a)
    assert jvm.by_thread == {"MainThread": set(), "a-writer": {a.tag}}
    assert jvm.client.opened == 2
    assert ownership.marks_of_current_thread() == ()

    b = jvm.owner()
    claim(b)
    _run("b-writer", jvm.spark_call)
    release(b)
    assert jvm.by_thread["b-writer"] == {b.tag}
    assert jvm.by_thread["MainThread"] == set()


def test_a_thread_that_outlives_its_task_is_tagged_as_its_tasks_thread(jvm: Jvm) -> None:
    go, seen = threading.Event(), []
    a = jvm.owner()
    claim(a)

    def late_writer() -> None:
        go.wait()
        seen.append(ownership.marks_of_current_thread())
        jvm.spark_call()  # its first Spark call comes after a stopped, while b runs

    thread = threading.Thread(target=late_writer, name="late")
    thread.start()
    release(a)
    b = jvm.owner()
    claim(b)
    go.set()
    thread.join()
    release(b)
    assert jvm.by_thread["late"] == {a.tag}
    assert seen == [(a.tag,)]


def test_new_threads_run_unprofiled(jvm: Jvm) -> None:
    a = jvm.owner()
    claim(a)
    seen: list[Any] = []
    try:
        _run("busy", lambda: seen.extend((sys.getprofile(), ownership.marks_of_current_thread())))
    finally:
        release(a)
    assert seen == [None, (a.tag,)]


def test_a_connection_opened_again_is_tagged_again(jvm: Jvm) -> None:
    a = jvm.owner()
    claim(a)
    go, reset = threading.Event(), threading.Event()

    def writer() -> None:
        jvm.spark_call()
        jvm.by_thread["writer"].clear()  # the JVM thread of the old connection is gone
        jvm.client.reset_connection()
        reset.set()
        go.wait()
        jvm.spark_call()

    thread = threading.Thread(target=writer, name="writer")
    thread.start()
    reset.wait()
    release(a)
    go.set()
    thread.join()
    assert jvm.by_thread["writer"] == {a.tag}
    assert jvm.client.opened == 3  # the main thread's, the writer's, and its new one


def test_threads_that_work_for_nobody_are_never_tagged(jvm: Jvm) -> None:
    older = threading.Event()

    def call_later() -> None:
        older.wait()
        jvm.spark_call()

    before = threading.Thread(target=call_later, name="older")
    before.start()
    a = jvm.owner()
    claim(a)
    older.set()
    before.join()
    release(a)
    _run("after", jvm.spark_call)
    assert set(jvm.by_thread) == {"MainThread"}


def test_py4j_threads_are_left_alone(jvm: Jvm) -> None:
    a = jvm.owner()
    claim(a)
    try:
        _run("py4j-callback", _py4j_function(jvm.spark_call))  # py4j code is the thread's target
    finally:
        release(a)
    assert "py4j-callback" not in jvm.by_thread


def test_a_failing_tagger_never_reaches_the_thread(jvm: Jvm) -> None:
    def broken(tag: str) -> None:
        raise RuntimeError("JVM gone")

    a = Owner(broken)
    with pytest.raises(RuntimeError):
        claim(a)  # the capture decides; the Python-side marks stay
    results: list[str] = []

    def writer() -> None:
        jvm.spark_call()
        results.append("ran")

    try:
        _run("writer", writer)
    finally:
        release(a)
    assert results == ["ran"]


def test_unrelated_captures_at_once_leave_new_threads_unmarked(jvm: Jvm) -> None:
    a, b = jvm.owner(), jvm.owner()
    claimed, done = threading.Event(), threading.Event()

    def other_task() -> None:  # a task thread that existed before either capture
        claim(b)
        claimed.set()
        done.wait()
        release(b)

    other = threading.Thread(target=other_task, name="other-task")
    other.start()
    claimed.wait()
    claim(a)
    marks: list[tuple[str, ...]] = []
    try:
        _run("ambiguous", lambda: marks.append(ownership.marks_of_current_thread()))
    finally:
        release(a)
        done.set()
        other.join()
    assert marks == [()]


def test_a_profiler_the_user_installed_is_kept() -> None:
    def profiler(frame: Any, event: str, arg: Any) -> None: ...

    threading.setprofile(profiler)
    try:
        a = Owner()
        claim(a)
        release(a)
        assert sys.getprofile() is None
        assert threading.getprofile() is profiler
    finally:
        threading.setprofile(None)  # type: ignore[arg-type]
