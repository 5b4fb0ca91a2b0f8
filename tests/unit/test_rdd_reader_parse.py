"""The answer of the Java reader of RDD-only jobs, parsed (no Spark)."""

from __future__ import annotations

import pytest

from lineage_operators.spark.rdd.reader import FIELD, ITEM, RECORD, JobFiles, parse_drained
from lineage_operators.spark.rdd.sources import locations_of


def _drained(*records: str) -> str:
    return RECORD.join([str(len(records)), *records])


def test_records_in_queue_order() -> None:
    text = _drained(
        "-7",
        "0",
        f"19{FIELD}/in/a{ITEM}/in/b,/in/c{FIELD}/out{FIELD}",
        f"120{FIELD}{FIELD}/only/out{FIELD}",
        f"121{FIELD}/only/in{FIELD}{FIELD}",
    )
    assert parse_drained(text) == [
        JobFiles(7, ended=True),
        None,
        JobFiles(9, ("/in/a", "/in/b,/in/c"), "/out"),
        JobFiles(20, (), "/only/out"),
        JobFiles(21, ("/only/in",), None),
    ]


def test_no_jobs() -> None:
    assert parse_drained("") == []


def test_jobs_that_touched_files_carry_their_tags_and_an_unreadable_job_is_one_record() -> None:
    assert parse_drained(_drained("0", f"14{FIELD}/in{FIELD}/out{FIELD}a,b", "!5")) == [
        None,
        JobFiles(4, ("/in",), "/out", tags=frozenset({"a", "b"})),
        JobFiles(5, unreadable=True),
    ]


@pytest.mark.parametrize(
    "text",
    [
        RECORD.join(["2", "0"]),  # fewer records than the count
        RECORD.join(["1", "0", "0"]),  # more
        "x",
        _drained("x"),
        _drained(f"1{FIELD}"),
        _drained(f"14{FIELD}/in{FIELD}/out{FIELD}a{FIELD}b"),
    ],
)
def test_an_answer_of_another_shape_is_an_error(text: str) -> None:
    with pytest.raises(ValueError, match="RddJobReader answered"):
        parse_drained(text)


def test_hadoop_input_dir_values_are_split_into_locations() -> None:
    assert locations_of(["/in/a", "/in/b,/in/c", "/in/a", "/in/with\\,comma"]) == [
        "/in/a",
        "/in/b",
        "/in/c",
        "/in/with,comma",
    ]
