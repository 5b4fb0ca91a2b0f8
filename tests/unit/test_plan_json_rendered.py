"""The one-call read's plan part and reply file, as ``PlanJsonReader`` takes them: inline JSON, or
nothing (the reader then renders the JSON itself); a long reply read back from the capture's file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lineage_operators.spark.jvm.text import NONE
from lineage_operators.spark.plan.columns.compact import PlanJsonReader


def _reader() -> PlanJsonReader:
    return PlanJsonReader(tools=Any, max_columns=100, max_leaf_columns=10**12)  # type: ignore[arg-type]


def test_inline_json() -> None:
    assert _reader()._rendered('=[{"class":"Project"}]') == '[{"class":"Project"}]'


def test_not_rendered() -> None:
    assert _reader()._rendered(None) is None
    assert _reader()._rendered(NONE) is None


def test_a_long_reply_through_the_file() -> None:
    reader = _reader()
    limit, path = reader.batch_request()
    assert limit == 2**31 - 1  # a Java int
    assert path is not None
    Path(path).write_text("1\u0001q\u0001root", encoding="utf-8")
    try:
        assert reader.read_reply_file() == "1\u0001q\u0001root"
    finally:
        reader.close()
    assert not Path(path).exists()


def test_no_file_once_it_failed() -> None:
    reader = _reader()
    reader._file_failed("java.nio.file.AccessDeniedException: /tmp/x")
    assert reader.batch_request()[1] is None
