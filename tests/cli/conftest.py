from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from tests.support.browser import chromium, open_view  # noqa: F401  (fixtures for the browser tests)


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[..., Path]:
    """Write events (dicts, or raw strings for bad lines) as a FileTransport .jsonl file."""

    def write(events: Iterable[Any], name: str = "events.jsonl") -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [e if isinstance(e, str) else json.dumps(e) for e in events]
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return path

    return write
