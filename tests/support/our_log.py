"""Every log record of our loggers while a block runs: where the S3 suites look for the session's credentials.

The suite-wide canary scan (tests/conftest.py) already sees every record of every logger; a suite that runs
its jobs in a session fixture keeps its own copy so a test can assert on it (and fail with the job's name)
rather than only failing the session at its end.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator


class _Keep(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.texts: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.texts.append(self.format(record))


@contextlib.contextmanager
def our_log_records() -> Iterator[list[str]]:
    """Every record of our loggers (``lineage_operators.*``, DEBUG up) while the block runs, formatted with
    its traceback: where a credential of the session's conf must never be."""
    ours = logging.getLogger("lineage_operators")
    keep, saved = _Keep(), ours.level
    keep.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    ours.addHandler(keep)
    ours.setLevel(logging.DEBUG)
    try:
        yield keep.texts
    finally:
        ours.removeHandler(keep)
        ours.setLevel(saved)
