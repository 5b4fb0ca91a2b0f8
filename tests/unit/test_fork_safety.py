"""py4j connections in a forked child, and py4j's records at exit (no Spark, no py4j needed)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

import pytest

from lineage_operators._logging import PY4J_LOGGERS
from lineage_operators.spark.session import fork_safety


class _Handle:
    def __init__(self) -> None:
        self.detached = False

    def detach(self) -> None:
        self.detached = True


class _Connection:
    """Stands in for py4j's ``ClientServerConnection``: ``close`` would shut the socket down."""

    def __init__(self) -> None:
        self.socket: _Handle | None = _Handle()
        self.stream: _Handle | None = _Handle()
        self.is_connected = True
        self.closed = False

    def close(self) -> None:
        self.closed = True


def test_a_forked_child_forgets_the_parents_connection_instead_of_closing_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fork_safety._wrap(_Connection, os.getpid())
    in_parent, in_child = _Connection(), _Connection()
    socket, stream = in_child.socket, in_child.stream
    in_parent.close()
    assert in_parent.closed

    monkeypatch.setattr(fork_safety.os, "getpid", lambda: -1)  # now "in the child"
    in_child.close()
    assert not in_child.closed
    assert in_child.socket is None
    assert in_child.stream is None
    assert not in_child.is_connected
    assert socket is not None
    assert socket.detached
    assert stream is not None
    assert stream.detached


@pytest.fixture
def py4j_levels() -> Iterator[None]:
    saved = {name: logging.getLogger(name).level for name in PY4J_LOGGERS}
    yield
    for name, level in saved.items():
        logging.getLogger(name).setLevel(level)


@pytest.mark.usefixtures("py4j_levels")
def test_at_exit_py4j_passes_only_warnings() -> None:
    for name in PY4J_LOGGERS:
        logging.getLogger(name).setLevel(logging.INFO)
    fork_safety._quiet_py4j_teardown()
    assert [logging.getLogger(name).getEffectiveLevel() for name in PY4J_LOGGERS] == [
        logging.WARNING,
        logging.WARNING,
    ]
    assert not logging.getLogger("py4j.java_gateway").isEnabledFor(logging.INFO)


@pytest.mark.usefixtures("py4j_levels")
def test_at_exit_a_stricter_level_is_kept() -> None:
    logging.getLogger("py4j.java_gateway").setLevel(logging.ERROR)
    fork_safety._quiet_py4j_teardown()
    assert logging.getLogger("py4j.java_gateway").level == logging.ERROR
