"""Canary secrets: planted by the fault-matrix tests wherever a user might put a secret, and looked
for by the suite-wide scan in tests/conftest.py in every log line, captured output and event.

:func:`our_log_records` keeps what our loggers wrote while a suite's jobs ran (tests/s3, tests/hive), for
the suites' own check that no credential of their session's conf is in it."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable, Iterator

CANARY = "CanaryPw7Qz9x"  # passwords, keys, tokens
CANARY_USER = "CanaryUser4Kd"  # a Spark Connect user_id
#: The S3 tests' credentials (tests/support/s3_server.py): S3Proxy's one identity, and what Spark's S3A
#: signs with. The access key is no secret to AWS, but a user's key id in an event is still a leak.
S3_ACCESS_KEY = "CanaryS3Key2Rv"
S3_SECRET_KEY = "CanaryS3Secret8Jm"
CANARIES = (CANARY, CANARY_USER, S3_ACCESS_KEY, S3_SECRET_KEY)


def leaked(texts: Iterable[str]) -> list[str]:
    """The canaries found in any of ``texts``."""
    found: list[str] = []
    for text in texts:
        found += [c for c in CANARIES if c in text and c not in found]
    return found


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
