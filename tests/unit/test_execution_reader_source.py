"""``jvm/java/ExecutionReader.java`` keeps no rule of its own that Python keeps too: its separators are
the capture's (``jvm/text.py``), and the plan-walk rules, limits and the execution key come from Python
(``ExecutionReader.configure``), so none of their values is written in the Java source."""

from __future__ import annotations

import re

from lineage_operators.spark.jvm import text
from lineage_operators.spark.jvm.classes import java_source
from lineage_operators.spark.plan import batch, execution, statistics


def _constants(source: str) -> dict[str, str]:
    found = re.findall(r'static final String (\w+) = "((?:\\u[0-9a-f]{4}|[^"\\])*)";', source)
    return {name: value.encode().decode("unicode_escape") for name, value in found}


def test_the_reply_separators_are_the_capture_s() -> None:
    constants = _constants(java_source(batch.SOURCE))
    assert constants == {
        "PART": text.PART,
        "RSEP": text.RSEP,
        "SEP": text.SEP,
        "NONE": text.NONE,
        "FILE": batch.REPLY_IN_FILE,
    }


def test_the_rules_python_keeps_are_not_written_in_the_java() -> None:
    source = java_source(batch.SOURCE)
    rules = [*execution.KEEPS_ROWS, *execution.OVER_READ]
    assert [name for name in rules if f'"{name}"' in source] == []
    # the Java's own limits only (py4j's segment, its caches); the walk's and the write's are given
    assert set(re.findall(r"static final int (\w+)", source)) == {
        "INLINE_BYTES",
        "MAX_CACHED_SCHEMAS",
        "MAX_CLONES",
    }
    assert not re.search(r"depth > \d", source)
    assert (execution.MAX_DEPTH, statistics.MAX_WRAPPERS) == (200, 6)  # given at configure time
    assert '"qe:' not in source  # the execution's key is made in Python (listen.execution_ids.key_of)
