"""The suite-wide canary scan (tests/conftest.py) finds a planted secret in each place it looks."""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from types import SimpleNamespace

from tests import conftest
from tests.support.canary import CANARY, CANARY_USER


def _taken_hits() -> list[str]:
    hits = list(conftest._hits)
    conftest._hits.clear()  # these were planted on purpose: the session must not fail for them
    return hits


def test_log_records_captured_output_and_event_files_are_scanned():
    saved = list(conftest._hits)
    conftest._hits.clear()
    try:
        # straight to the scanning handler: through a logger, pytest's own capture would hold it too
        record = logging.LogRecord(
            "some.library", logging.ERROR, __file__, 1, "connecting with %s", (CANARY,), None
        )
        conftest._HANDLER.handle(record)
        conftest.pytest_runtest_logreport(
            SimpleNamespace(
                nodeid="x::y", when="call", sections=[("Captured stderr call", f"u={CANARY_USER}")]
            )
        )
        with tempfile.TemporaryDirectory() as outside_basetemp:  # the session-end scan must not see it
            (Path(outside_basetemp) / "events.jsonl").write_text(f'{{"name": "{CANARY}"}}\n')
            conftest._scan_event_files(Path(outside_basetemp))
        hits = _taken_hits()
    finally:
        conftest._hits[:] = saved
    assert len(hits) == 3, hits
    assert "log record of some.library" in hits[0]
    assert "Captured stderr call" in hits[1]
    assert "events.jsonl" in hits[2]
