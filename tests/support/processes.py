"""Child processes run the way the tests need them: to the end, text output captured, no raise."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Protocol, TypeVar


def run_to_end(
    args: Sequence[str | Path], *, cwd: Path, env: Mapping[str, str], timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    """Run ``args`` to its end; the caller asserts on the exit status and the captured output."""
    return subprocess.run(
        [str(arg) for arg in args],
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


class ServerProcess:
    """A test server run as a child process in a session of its own, its data in the folder ``root``: what
    stopping it, halting it (a fault test's outage) and bringing it back have in common. A subclass starts
    its process in ``_launch`` (again on :meth:`resume`, same ports, same data)."""

    root: Path | None = None
    _process: subprocess.Popen[bytes] | None = None

    def _launch(self) -> None:
        raise NotImplementedError

    def halt(self) -> None:
        """Stop the process as a crash or an outage would (SIGKILL), keeping its data: the server goes away
        mid-run and :meth:`resume` brings it back for what follows."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)

    def resume(self) -> None:
        """Start the halted server again on the same ports over the same data."""
        if self._process is None or self._process.poll() is not None:
            self._launch()

    def stop(self) -> None:
        """End the server's process group and remove its folder (all it stored with it)."""
        process, self._process = self._process, None
        stop_group(process)
        root, self.root = self.root, None
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)


def stop_group(process: subprocess.Popen[bytes] | None, wait_s: float = 30) -> None:
    """Stop a server started with ``start_new_session=True`` and all it started: TERM to its process
    group, KILL when it has not ended within ``wait_s``. None, or a process that ended, is left alone."""
    import contextlib
    import os
    import signal

    if process is None or process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=wait_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=wait_s)


def log_tail(log: Path, lines: int = 40) -> str:
    """The last ``lines`` of a server's log, for an error message."""
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "<no log>"


def wait_until_answering(
    process: subprocess.Popen[bytes] | None,
    answers: Callable[[], bool],
    *,
    name: str,
    log: Path | None,
    timeout: float,
    unavailable: type[Exception] = RuntimeError,
    interval: float = 0.2,
) -> None:
    """Poll ``answers()`` (an ``OSError`` counts as no answer) until it is true; raise ``unavailable``
    with the end of the server's ``log`` when ``process`` exits first or ``timeout`` seconds pass."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is None or process.poll() is not None:
            status = "never started" if process is None else f"exited with status {process.returncode}"
            raise unavailable(f"{name} {status}:\n{log_tail(log) if log else '<no log>'}")
        with contextlib.suppress(OSError):
            if answers():
                return
        time.sleep(interval)
    raise unavailable(
        f"{name} did not answer within {timeout:.0f} s:\n{log_tail(log) if log else '<no log>'}"
    )


class _Service(Protocol):
    def start(self) -> object: ...
    def stop(self) -> None: ...


S = TypeVar("S", bound=_Service)


@contextlib.contextmanager
def started_or_failed(server: S, unavailable: type[Exception]) -> Iterator[S]:
    """``server`` started for a fixture, stopped afterwards. A start that raises ``unavailable`` fails the
    test with that one message (never a skip, no chained traceback): a missing service is an error."""
    import pytest

    failure = None
    try:
        server.start()
    except unavailable as exc:
        failure = str(exc)
    if failure is not None:  # outside the except block: one clean message, no chained traceback
        pytest.fail(failure, pytrace=False)
    try:
        yield server
    finally:
        server.stop()
