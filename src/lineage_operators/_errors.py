"""Describing exceptions in log lines without leaking secrets.

py4j/Spark exception messages can quote JDBC URLs, options or SQL: log lines get the exception's
type and its redacted message, never a traceback.
"""

from __future__ import annotations

from lineage_operators.redaction import redact_text


def describe(exc: BaseException, limit: int = 300) -> str:
    """``Type: redacted message`` (truncated); just the type when redaction itself fails."""
    try:
        message = redact_text(str(exc)).strip().splitlines()
        first = message[0][:limit] if message else ""
        return f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    except Exception:
        return type(exc).__name__
