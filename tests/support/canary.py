"""Canary secrets: planted by the fault-matrix tests wherever a user might put a secret, and looked
for by the suite-wide scan in tests/conftest.py in every log line, captured output and event."""

from __future__ import annotations

from collections.abc import Iterable

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
