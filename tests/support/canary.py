"""Canary secrets: planted by the fault-matrix tests wherever a user might put a secret, and looked
for by the suite-wide scan in tests/conftest.py in every log line, captured output and event."""

from __future__ import annotations

from collections.abc import Iterable

CANARY = "CanaryPw7Qz9x"  # passwords, keys, tokens
CANARY_USER = "CanaryUser4Kd"  # a Spark Connect user_id
CANARIES = (CANARY, CANARY_USER)


def leaked(texts: Iterable[str]) -> list[str]:
    """The canaries found in any of ``texts``."""
    found: list[str] = []
    for text in texts:
        found += [c for c in CANARIES if c in text and c not in found]
    return found
