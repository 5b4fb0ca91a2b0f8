"""Secret redaction: applied to everything before it leaves the capture or reaches a log line.

CONTRACT (implementation pending).
"""

from __future__ import annotations

from collections.abc import Mapping

REDACTED = "***"


def is_secret_key(key: str) -> bool:
    """True for option/conf keys that hold secrets (``*password*``, ``*secret*``, ``*token*``, ...)."""
    raise NotImplementedError


def redact_url(url: str) -> str:
    """Remove userinfo and secret query parameters from a URL or JDBC URL."""
    raise NotImplementedError


def redact_mapping(values: Mapping[str, object]) -> dict[str, object]:
    """Copy of ``values`` with secret keys' values replaced and URL values redacted."""
    raise NotImplementedError


def redact_text(text: str) -> str:
    """Redact URLs with credentials and ``key=secret`` pairs inside free text (messages, SQL)."""
    raise NotImplementedError
