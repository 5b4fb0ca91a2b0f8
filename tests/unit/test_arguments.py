"""Operator arguments: one clear sentence at the user's boundary (issue 14 item 12)."""

from __future__ import annotations

import pytest

from lineage_operators.spark.session.arguments import check_capture_lineage, check_connection, check_master


@pytest.mark.parametrize(
    "master",
    [
        None,
        "local",
        "local[4]",
        "local[*]",
        "local[2, 3]",
        "local-cluster[2,1,1024]",
        "yarn",
        "spark://h:7077",
        "spark://h1:7077,h2:7077",
        "k8s://https://h:443",
        "sc://h:15002",
        "{{ var.value.m }}",
    ],
)
def test_accepted_masters(master):
    check_master(master)


@pytest.mark.parametrize(
    ("master", "error"),
    [
        (7077, "master must be a string"),
        ("nonsense://", "master 'nonsense://' is not a Spark master URL"),
        ("spark://", "master 'spark://' is not"),
        ("local[x]", "master 'local[x]' is not"),
        ("h:7077", "master 'h:7077' is not"),
    ],
)
def test_rejected_masters(master, error):
    with pytest.raises((TypeError, ValueError), match="master") as raised:
        check_master(master)
    assert error in str(raised.value)


def test_capture_lineage_must_be_a_bool():
    check_capture_lineage(False)
    with pytest.raises(TypeError, match="capture_lineage must be True or False, got str 'no'"):
        check_capture_lineage("no")


def test_connections():
    check_connection("c", "spark", "local[2]", {"spark_conf": {"a": "b"}})
    check_connection("c", "spark_connect", "h", None)
    with pytest.raises(ValueError, match="conn_id 'c' is a connection of type 'postgres'"):
        check_connection("c", "postgres", "h", None)
    with pytest.raises(ValueError, match=r"type '\(none\)'"):
        check_connection("c", "", "", None)
    with pytest.raises(ValueError, match="extra 'spark_conf' must be a JSON object"):
        check_connection("c", "spark", "local", {"spark_conf": "a=b"})
    with pytest.raises(ValueError, match="conn_id 'c' host 'nonsense' is not"):
        check_connection("c", "spark", "nonsense", None)


def test_values_in_messages_are_redacted():
    with pytest.raises(ValueError, match="is not a Spark master URL") as raised:
        check_master("bogus://u:Pw4Masters@h")
    assert "Pw4Masters" not in str(raised.value)
