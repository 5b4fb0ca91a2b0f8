"""assert_events_match: it must fail where it should, and say where."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest

from lineage_operators.testing import (
    ABSENT,
    ANY,
    assert_events_match,
    compare_events,
    load_events,
    matchers,
    subset,
    unordered,
)

SAMPLE = Path(__file__).parent / "harness_fixtures" / "sample_events.jsonl"
EXTRACT = "etl.daily.extract.event.complete"
STAGING = "/tmp/lineage-base/staging/orders"
EXTRACT_INPUTS = [
    {"namespace": "file", "name": "/data/raw/orders.csv"},
    {"namespace": "s3://bucket", "name": "raw/customers"},
]


@pytest.fixture
def events() -> dict[str, list[dict[str, Any]]]:
    return load_events(SAMPLE)


def _fails(actual: Any, expected: Any, **kwargs: Any) -> str:
    with pytest.raises(AssertionError) as info:
        assert_events_match(actual, expected, **kwargs)
    return str(info.value)


def test_partial_expectation_passes(events: Any) -> None:
    assert_events_match(
        events,
        {
            EXTRACT: {
                "eventType": "COMPLETE",
                "inputs": EXTRACT_INPUTS,
                "outputs": [
                    {
                        "namespace": "file",
                        "name": STAGING,
                        "facets": {
                            "schema": {"fields": [{"name": "id"}, {"name": "amount", "type": "double"}]}
                        },
                    }
                ],
            },
            "etl.daily.event.complete": {"job": {"name": "etl.daily"}},
        },
    )


def test_dataset_lists_match_as_sets(events: Any) -> None:
    assert_events_match(events, {EXTRACT: {"inputs": list(reversed(EXTRACT_INPUTS))}})


def test_wrong_value_names_key_json_path_expected_and_actual(events: Any) -> None:
    message = _fails(
        events,
        {EXTRACT: {"outputs": [{"namespace": "file", "name": STAGING, "facets": {"schema": {"fields": [
            {"name": "id", "type": "int"}, {"name": "amount"}]}}}]}},
    )  # fmt: skip

    assert (
        f"{EXTRACT}: outputs[namespace=file,name={STAGING}].facets.schema.fields[0].type: value differs"
        in message
    )
    assert '    expected: "int"' in message
    assert '    actual:   "long"' in message


def test_missing_dataset_fails_and_lists_present_ones(events: Any) -> None:
    message = _fails(events, {EXTRACT: {"inputs": [*EXTRACT_INPUTS, {"namespace": "file", "name": "/gone"}]}})

    assert f"{EXTRACT}: inputs[namespace=file,name=/gone]: missing dataset" in message
    assert "present: file:/data/raw/orders.csv, s3://bucket:raw/customers" in message


def test_extra_dataset_fails(events: Any) -> None:
    message = _fails(events, {EXTRACT: {"inputs": EXTRACT_INPUTS[:1]}})

    assert f"{EXTRACT}: inputs[namespace=s3://bucket,name=raw/customers]: unexpected dataset" in message


def test_empty_expected_dataset_list_reports_each_extra_dataset(events: Any) -> None:
    message = _fails(events, {EXTRACT: {"inputs": []}})

    assert "inputs[namespace=file,name=/data/raw/orders.csv]: unexpected dataset" in message
    assert "inputs[namespace=s3://bucket,name=raw/customers]: unexpected dataset" in message


def test_subset_opt_in_allows_extras_in_python_and_json_form(events: Any) -> None:
    assert_events_match(events, {EXTRACT: {"inputs": subset(EXTRACT_INPUTS[:1])}})
    assert_events_match(events, {EXTRACT: {"inputs": {"$match": "subset", "items": EXTRACT_INPUTS[1:]}}})

    message = _fails(events, {EXTRACT: {"inputs": subset([{"namespace": "file", "name": "/gone"}])}})
    assert "inputs[namespace=file,name=/gone]: missing dataset" in message


def test_non_dataset_lists_match_in_order_and_length(events: Any) -> None:
    fields = [{"name": "amount"}, {"name": "id"}]
    output = {"namespace": "file", "name": STAGING, "facets": {"schema": {"fields": fields}}}
    message = _fails(events, {EXTRACT: {"outputs": [output]}})
    assert "facets.schema.fields[0].name: value differs" in message
    assert "facets.schema.fields[1].name: value differs" in message

    output["facets"] = {"schema": {"fields": [{"name": "id"}]}}
    assert "array length differs: expected 1, got 2" in _fails(events, {EXTRACT: {"outputs": [output]}})

    output["facets"] = {"schema": {"fields": unordered([{"name": "amount"}, {"name": "id"}])}}
    assert_events_match(events, {EXTRACT: {"outputs": [output]}})
    output["facets"] = {"schema": {"fields": subset([{"name": "amount"}])}}
    assert_events_match(events, {EXTRACT: {"outputs": [output]}})


def test_missing_key_lists_available_keys_and_close_matches(events: Any) -> None:
    message = _fails(events, {"etl.daily.extrakt.event.complete": {}})

    assert (
        "etl.daily.extrakt.event.complete: missing event; did you mean: etl.daily.extract.event.complete"
        in (message)
    )
    assert "available keys: etl.daily.event.complete, etl.daily.event.start," in message


def test_wrong_event_type_is_a_missing_key(events: Any) -> None:
    failed = copy.deepcopy(events[EXTRACT][0])
    failed["eventType"] = "FAIL"
    actual = {k: v for k, v in events.items() if k != EXTRACT}
    actual["etl.daily.extract.event.fail"] = [failed]

    message = _fails(actual, {EXTRACT: {"eventType": "COMPLETE"}})
    assert f"{EXTRACT}: missing event" in message
    assert "etl.daily.extract.event.fail" in message

    message = _fails(events, {EXTRACT: {"eventType": "FAIL"}})
    assert (
        f'{EXTRACT}: eventType: value differs\n      expected: "FAIL"\n      actual:   "COMPLETE"' in message
    )


def test_duplicate_events_single_expectation_means_exactly_one(events: Any) -> None:
    second = copy.deepcopy(events[EXTRACT][0])
    second["inputs"] = second["inputs"][:1]
    events[EXTRACT].append(second)

    message = _fails(events, {EXTRACT: {"eventType": "COMPLETE"}})
    assert f"{EXTRACT}: expected exactly one event under this key, got 2" in message

    assert_events_match(events, {EXTRACT: [{"inputs": EXTRACT_INPUTS}, {"inputs": EXTRACT_INPUTS[:1]}]})
    message = _fails(events, {EXTRACT: [{"inputs": EXTRACT_INPUTS[:1]}, {"inputs": EXTRACT_INPUTS}]})
    assert f"{EXTRACT}[0]: inputs[namespace=s3://bucket,name=raw/customers]: unexpected dataset" in message
    assert f"{EXTRACT}[1]: inputs[namespace=s3://bucket,name=raw/customers]: missing dataset" in message
    assert "expected 3 events under this key, got 2" in _fails(events, {EXTRACT: [{}, {}, {}]})


def test_every_mismatch_is_listed_at_once(events: Any) -> None:
    message = _fails(
        events,
        {
            EXTRACT: {"eventType": "START", "inputs": EXTRACT_INPUTS[:1], "job": {"namespace": "nope"}},
            "etl.daily.load.event.start": {"outputs": []},
            "missing.event.start": {},
        },
    )

    assert message.startswith(
        "OpenLineage events do not match the expectation: 5 mismatch(es) in 3 event key(s)"
    )
    for fragment in (
        f"{EXTRACT}: eventType: value differs",
        f"{EXTRACT}: inputs[namespace=s3://bucket,name=raw/customers]: unexpected dataset",
        f"{EXTRACT}: job.namespace: value differs",
        "etl.daily.load.event.start: outputs[namespace=postgres://db:5432,name=shop.public.orders]: unexp",
        "missing.event.start: missing event",
    ):
        assert fragment in message


def test_absent_event_key(events: Any) -> None:
    assert_events_match(events, {"etl.daily.extract.event.fail": ABSENT})
    message = _fails(events, {EXTRACT: {"$match": "absent"}})
    assert f"{EXTRACT}: unexpected event (1 emitted, expected none)" in message


def test_extra_keys_fail_only_when_asked(events: Any) -> None:
    assert_events_match(events, {EXTRACT: {}})
    message = _fails(events, {EXTRACT: {}}, allow_extra_keys=False)
    assert "etl.daily.load.event.complete: unexpected event (1 emitted, none expected)" in message


def test_no_events_at_all_says_so() -> None:
    assert "no OpenLineage event was captured at all" in _fails({}, {EXTRACT: {}})


def test_missing_key_and_type_mismatch_inside_an_event(events: Any) -> None:
    message = _fails(events, {EXTRACT: {"run": {"facets": {"nope": {}}}, "inputs": {"a": 1}}})
    assert f"{EXTRACT}: run.facets.nope: missing key" in message
    assert f"{EXTRACT}: inputs: expected an object, got array" in message


@pytest.mark.parametrize(
    ("matcher", "good", "bad"),
    [
        (matchers.uuid(), "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "not-a-uuid"),
        (
            matchers.uuid(version=7),
            "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
            "0190a1b2-c3d4-4e5f-8a9b-0c1d2e3f4a5b",
        ),
        (matchers.datetime(), "2024-01-01T10:00:00.123456+00:00", "yesterday"),
        (matchers.datetime(), "2024-01-01T10:00:00Z", 1704103200),
        (matchers.regex(r"s3://[a-z]+"), "s3://bucket", "s3://bucket/x"),
        (matchers.of_type("number"), 1.5, True),
        (ANY, None, None),
    ],
)
def test_matchers(matcher: Any, good: Any, bad: Any) -> None:
    assert_events_match({"k.event.start": [{"v": good}]}, {"k.event.start": {"v": matcher}})
    if matcher is not ANY:
        message = _fails({"k.event.start": [{"v": bad}]}, {"k.event.start": {"v": matcher}})
        assert f"k.event.start: v: {matcher.check(bad)}" in message


def test_matchers_json_form_equals_python_form(events: Any) -> None:
    for python, json_form in [
        (ANY, {"$match": "any"}),
        (ABSENT, {"$match": "absent"}),
        (matchers.uuid(capture="r"), {"$match": "uuid", "as": "r"}),
        (matchers.datetime(), {"$match": "datetime"}),
        (matchers.regex("a.*"), {"$match": "regex", "pattern": "a.*"}),
        (matchers.of_type("string"), {"$match": "type", "type": "string"}),
        (subset([1]), {"$match": "subset", "items": [1]}),
    ]:
        assert matchers.decode(json_form) == python
        assert matchers.encode(python) == json_form
    assert matchers.decode({"$placeholder": "base_dir"}) == matchers.placeholder("base_dir")
    with pytest.raises(ValueError, match="unknown matcher"):
        matchers.decode({"$match": "uuuid"})
    with pytest.raises(ValueError, match="does not take"):
        matchers.decode({"$match": "uuid", "patern": "x"})


def test_absent_matcher(events: Any) -> None:
    assert_events_match(events, {EXTRACT: {"run": {"facets": {"errorMessage": ABSENT}}}})
    message = _fails(events, {EXTRACT: {"run": {"facets": {"parent": {"$match": "absent"}}}}})
    assert f"{EXTRACT}: run.facets.parent: key should be absent" in message


def test_json_form_matchers_in_a_python_expectation(events: Any) -> None:
    assert_events_match(
        events,
        {EXTRACT: {"eventTime": {"$match": "datetime"}, "run": {"runId": {"$match": "uuid"}}}},
    )


def test_placeholders_whole_value_and_inside_strings(events: Any) -> None:
    base = {"base_dir": Path("/tmp/lineage-base")}
    for name in ("${base_dir}/staging/orders", matchers.template("${base_dir}/staging/orders")):
        assert_events_match(
            events, {EXTRACT: {"outputs": [{"namespace": "file", "name": name}]}}, placeholders=base
        )
    assert_events_match(
        {"k.event.start": [{"v": "/tmp/lineage-base"}]},
        {"k.event.start": {"v": {"$placeholder": "base_dir"}}},
        placeholders=base,
    )
    message = _fails(
        events,
        {EXTRACT: {"outputs": [{"namespace": "file", "name": "${base_dir}/staging/orders"}]}},
        placeholders={"base_dir": "/elsewhere"},
    )
    assert "outputs[namespace=file,name=/elsewhere/staging/orders]: missing dataset" in message


def test_unknown_placeholder_is_reported_with_the_known_ones() -> None:
    message = _fails(
        {"k.event.start": [{"v": "/x"}]},
        {"k.event.start": {"v": "${nope}/x"}},
        placeholders={"base_dir": "/b"},
    )
    known = "(known placeholders: base_dir, namespace)"
    assert f"k.event.start: v: unknown placeholder ${{nope}} {known}" in message


def test_placeholder_escape_and_regex_with_placeholder() -> None:
    actual = {"k.event.start": [{"literal": "${not_a_placeholder}", "path": "/b.x/part-0001.parquet"}]}
    assert_events_match(
        actual,
        {
            "k.event.start": {
                "literal": "$${not_a_placeholder}",
                "path": matchers.regex(r"${base}/part-\d+\.parquet"),
            }
        },
        placeholders={"base": "/b.x"},
    )
    # the placeholder value is escaped inside the regex: "." must not match any character
    _fails(
        {"k.event.start": [{"path": "/bXx/part-1.parquet"}]},
        {"k.event.start": {"path": matchers.regex(r"${base}/part-\d+\.parquet")}},
        placeholders={"base": "/b.x"},
    )


def test_capture_requires_the_same_value_everywhere(events: Any) -> None:
    dag_run = matchers.uuid(capture="dag")
    parent = {"run": {"facets": {"parent": {"run": {"runId": dag_run}}}}}
    assert_events_match(
        events,
        {
            "etl.daily.event.start": {"run": {"runId": dag_run}},
            EXTRACT: parent,
            "etl.daily.load.event.start": parent,
        },
    )

    events["etl.daily.load.event.start"][0]["run"]["facets"]["parent"]["run"]["runId"] = (
        "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
    )
    message = _fails(
        events,
        {
            "etl.daily.event.start": {"run": {"runId": dag_run}},
            EXTRACT: parent,
            "etl.daily.load.event.start": parent,
        },
    )
    assert re.search(
        r"etl\.daily\.load\.event\.start: run\.facets\.parent\.run\.runId: "
        r"differs from the value captured as 'dag' at etl\.daily\.event\.start: run\.runId",
        message,
    )


def test_compare_events_returns_structured_mismatches(events: Any) -> None:
    mismatches = compare_events(events, {EXTRACT: {"eventType": "START"}})
    assert [(m.key, m.path, m.expected, m.actual) for m in mismatches] == [
        (EXTRACT, "eventType", "START", "COMPLETE")
    ]


def test_actual_can_be_a_path(events: Any) -> None:
    assert_events_match(SAMPLE, {EXTRACT: {"eventType": "COMPLETE"}})
