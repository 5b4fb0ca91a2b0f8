"""Fixtures for the Spark <-> real PostgreSQL (JDBC) smoke test."""

from __future__ import annotations

import sys
from pathlib import Path

# `tests.support` is imported from the repository root; `python -m pytest` puts the working
# directory on sys.path, a bare `pytest` run from elsewhere may not.
_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tests.support.postgres import postgres  # noqa: E402, F401  (session-scoped fixture)
