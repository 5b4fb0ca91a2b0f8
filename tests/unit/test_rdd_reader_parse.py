"""The answer of the Java reader of RDD-only jobs, parsed (no Spark)."""

from __future__ import annotations

import pytest

from lineage_operators.spark.rdd_reader import FIELD, ITEM, RECORD, JobFiles, parse
from lineage_operators.spark.rdd_sources import locations_of


def test_records_in_queue_order() -> None:
    text = RECORD.join(
        [
            "-7",
            "0",
            f"19{FIELD}/in/a{ITEM}/in/b,/in/c{FIELD}/out",
            f"120{FIELD}{FIELD}/only/out",
            f"121{FIELD}/only/in{FIELD}",
        ]
    )
    assert parse(text, 5) == [
        JobFiles(7, ended=True),
        None,
        JobFiles(9, ("/in/a", "/in/b,/in/c"), "/out"),
        JobFiles(20, (), "/only/out"),
        JobFiles(21, ("/only/in",), None),
    ]


def test_no_jobs() -> None:
    assert parse("", 0) == []


@pytest.mark.parametrize(("text", "count"), [("0", 2), (f"0{RECORD}0", 1), ("x", 1), (f"1{FIELD}", 1)])
def test_an_answer_of_another_shape_is_an_error(text: str, count: int) -> None:
    with pytest.raises(ValueError, match="RddJobReader answered"):
        parse(text, count)


def test_hadoop_input_dir_values_are_split_into_locations() -> None:
    assert locations_of(["/in/a", "/in/b,/in/c", "/in/a", "/in/with\\,comma"]) == [
        "/in/a",
        "/in/b",
        "/in/c",
        "/in/with,comma",
    ]


def test_a_drained_answer_carries_its_count_and_the_tags_of_jobs_that_touched_files() -> None:
    from lineage_operators.spark.rdd_reader import parse_drained

    text = "3" + RECORD + RECORD.join(["0", f"14{FIELD}/in{FIELD}/out{FIELD}a,b", "!5"])
    assert parse_drained(text) == [
        None,
        JobFiles(4, ("/in",), "/out", tags=frozenset({"a", "b"})),
        JobFiles(5, unreadable=True),
    ]
    assert parse_drained("") == []
    with pytest.raises(ValueError, match="unexpected drain"):
        parse_drained("2" + RECORD + "0")
    with pytest.raises(ValueError, match="RddJobReader answered"):
        parse_drained("1" + RECORD + f"14{FIELD}/in{FIELD}/out{FIELD}a{FIELD}b")
