"""Streaming reads of FileTransport output: every layout, bad content skipped with reasons."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from lineage_operators.testing.events import load_events, read_event_file, stream_event_file

EVENT = {"eventType": "START", "job": {"name": "j"}, "run": {"runId": "r"}}


def _stream(path: Path, **kwargs: int) -> tuple[list[dict], list[tuple[str, str]]]:
    skipped: list[tuple[str, str]] = []
    events = list(stream_event_file(path, lambda reason, where: skipped.append((reason, where)), **kwargs))
    return events, skipped


def test_pretty_printed_arrays_and_lines_read_like_the_strict_reader(tmp_path: Path) -> None:
    path = tmp_path / "mixed.json"
    path.write_text(
        json.dumps(EVENT)
        + "\n"
        + json.dumps(EVENT, indent=2)
        + "\n"
        + json.dumps([EVENT, EVENT])
        + "\n"
        + json.dumps([EVENT], indent=2)
        + "\n"
    )

    events, skipped = _stream(path)

    assert events == read_event_file(path) == [EVENT] * 5
    assert skipped == []


def test_bad_values_are_reported_with_their_line_and_reading_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    broken_block = '{\n  "eventType": \n}\n'
    path.write_text(f"{json.dumps(EVENT)}\n{{oops\n42\n{broken_block}\n{json.dumps(EVENT)}\n")

    events, skipped = _stream(path)

    assert events == [EVENT, EVENT]
    assert skipped == [
        ("malformed JSON", f"{path}:2"),
        ("not a JSON object", f"{path}:3"),
        ("malformed JSON", f"{path}:4"),
    ]


def test_an_event_over_the_size_limit_is_skipped_not_loaded(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    big = dict(EVENT, payload="x" * 300_000)
    pretty_big = json.dumps(big, indent=2)
    path.write_text(
        json.dumps(big) + "\n" + json.dumps(EVENT) + "\n" + pretty_big + "\n" + json.dumps(EVENT) + "\n"
    )

    events, skipped = _stream(path, max_event_bytes=100_000)

    assert events == [EVENT, EVENT]
    reason = "event larger than 100000 characters (not loaded)"
    assert skipped == [(reason, f"{path}:1"), (reason, f"{path}:3")]


def test_memory_stays_bounded_by_one_event_not_the_file(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    line = json.dumps(dict(EVENT, payload="y" * 1000)) + "\n"
    with path.open("w") as out:
        for _ in range(20_000):  # ~20 MB
            out.write(line)
    tracemalloc.start()
    count = sum(1 for _ in stream_event_file(path, lambda *_: None))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    assert count == 20_000
    assert peak < 2 * 1024 * 1024, peak


def test_load_events_still_raises_on_bad_content_for_the_harness(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("{oops\n")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_events(path)
