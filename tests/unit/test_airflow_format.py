"""Airflow's expected-event files: the helpers, the matching rules as pure functions, and files in the
provider's own format (written for these tests) loaded unchanged through the pytest harness."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from lineage_operators.testing import assert_events_match_file
from lineage_operators.testing.airflow_compare import compare_airflow_events, match_value
from lineage_operators.testing.airflow_format import (
    FILTERS,
    HELPERS,
    Absent,
    expected_key,
    group_expected,
    jinja_environment,
    load_airflow_expected,
)
from lineage_operators.testing.events import group_events
from lineage_operators.testing.expected_file import read_expected_file

FILES = Path(__file__).parent / "airflow_expected"
UUID = "019b76da-a800-711e-9eac-faf9db95b822"
PRODUCER = "https://github.com/apache/airflow/tree/providers-openlineage/2.20.3"
ENV = jinja_environment()


@pytest.mark.parametrize(
    ("helper", "args", "expected"),
    [
        ("is_datetime", ("2026-01-01T00:00:00+00:00",), "true"),
        ("is_datetime", ("2026-01-01",), "true"),
        ("is_datetime", ("not a date",), "false"),
        ("is_datetime", (None,), "false"),
        ("is_uuid", (UUID,), "true"),
        ("is_uuid", (UUID.replace("-", ""),), "true"),  # uuid.UUID's forms, as in the provider
        ("is_uuid", ("not-a-uuid",), "false"),
        ("is_uuid", (42,), "false"),
        ("is_numeric", ("3.5",), "true"),
        ("is_numeric", (7,), "true"),
        ("is_numeric", ("seven",), "false"),
        ("is_numeric", (None,), "false"),
        ("regex_match", ("providers-openlineage/2.20.3", r"providers-\w+"), "true"),
        ("regex_match", ("x providers-openlineage", r"providers"), "false"),  # anchored at the start
        ("regex_match", (None, r".*"), "false"),
        ("not_match", ("s3://bucket/key", "password"), "true"),
        ("any", ({"a": 1},), {"a": 1}),
    ],
)
def test_helpers(helper: str, args: tuple[Any, ...], expected: Any):
    assert HELPERS[helper](*args) == expected


def test_not_match_raises_when_the_substring_is_there():
    with pytest.raises(ValueError, match="secret"):
        HELPERS["not_match"]("user:secret@host", "secret")


def test_env_var(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("LINEAGE_TEST_VAR", "value")
    monkeypatch.delenv("LINEAGE_TEST_UNSET", raising=False)
    assert HELPERS["env_var"]("LINEAGE_TEST_VAR") == "value"
    assert HELPERS["env_var"]("LINEAGE_TEST_UNSET", "fallback") == "fallback"
    with pytest.raises(ValueError, match="LINEAGE_TEST_UNSET"):
        HELPERS["env_var"]("LINEAGE_TEST_UNSET")


@pytest.mark.parametrize(
    ("url", "scheme_authority", "path"),
    [("s3://bucket/warehouse/t", "s3://bucket", "/warehouse/t"), ("file:///tmp/x", "file://", "/tmp/x")],
)
def test_filters(url: str, scheme_authority: str, path: str):
    assert FILTERS["url_scheme_authority"](url) == scheme_authority
    assert FILTERS["url_path"](url) == path


def _paths(expected: Any, actual: Any) -> list[tuple[str, str]]:
    return [(m.path, m.message) for m in match_value(expected, actual, ENV)]


@pytest.mark.parametrize(
    ("expected", "actual", "differences"),
    [
        # dicts are partial; null means the key must be absent
        ({"a": 1}, {"a": 1, "b": 2}, []),
        ({"a": None}, {"b": 2}, []),
        ({"a": None}, {"a": 1}, [("a", "key should be absent (null in the file)")]),
        ({"a": 1}, {"b": 1}, [("a", "missing key")]),
        ({"a": {"b": 1}}, {"a": [1]}, [("a", "expected an object, got array")]),
        # $optional: skipped when absent or an empty list, else checked
        ({"a": {"$optional": "why", "b": 1}}, {}, []),
        ({"a": {"$optional": "why", "b": 1}}, {"a": []}, []),
        ({"a": {"$optional": "why", "b": 1}}, {"a": {"b": 1, "c": 2}}, []),
        ({"a": {"$optional": "why", "b": 1}}, {"a": {"b": 2}}, [("a.b", "value differs")]),
        ({"a": {"$optional": "why", "$value": [1]}}, {"a": []}, []),
        ({"a": {"$optional": "why", "$value": [1]}}, {"a": [2]}, [("a[0]", "value differs")]),
        # lists are exact: length and order
        ([1, 2], [1, 2], []),
        ([1, 2], [2, 1], [("[0]", "value differs"), ("[1]", "value differs")]),
        ([1], [1, 2], [("", "array length differs: expected 1, got 2")]),
        ([{"name": "a"}], [{"name": "a", "type": "int"}], []),  # partial dicts inside lists
        ([], {}, [("", "expected an array, got object")]),
        # plain values compare with ==, as Python does
        ("x", "x", []),
        ("x", "y", [("", "value differs")]),
        (1, 1.0, []),
        (True, 1, []),
        (3, 4, [("", "value differs")]),
        # Jinja: "true" (any case) or the actual value itself passes
        ("{{ is_uuid(result) }}", UUID, []),
        (
            "{{ is_uuid(result) }}",
            "nope",
            [("", "template rendered 'false', neither 'true' nor the actual value")],
        ),
        ("{{ result == true }}", True, []),  # renders "True"
        ("{{ result is number }}", 3, []),
        (
            "{{ result is string }}",
            3,
            [("", "template rendered 'False', neither 'true' nor the actual value")],
        ),
        ("{{ any(result) }}", "whatever", []),
        ("{{ any(result) }}", 5, [("", "template rendered '5', neither 'true' nor the actual value")]),
        ("{{ 'a' }}-{{ 'b' }}", "a-b", []),  # rendered text equal to the actual value
        (
            "{{ result | url_path }}",
            "s3://b/k",
            [("", "template rendered '/k', neither 'true' nor the actual value")],
        ),
        ("{{ (result | url_path) == '/k' }}", "s3://b/k", []),
        ("{{ result.split(', ') | sort == ['a', 'b'] }}", "b, a", []),
    ],
)
def test_matching_rules(expected: Any, actual: Any, differences: list[tuple[str, str]]):
    assert _paths(expected, actual) == differences


@pytest.mark.parametrize(
    ("template", "actual", "error"),
    [
        ("{{ not_match(result, 'secret') }}", "has secret", "ValueError: found 'secret'"),
        ("{{ env_var('LINEAGE_TEST_SURELY_UNSET') }}", "x", "ValueError: environment variable"),
        ("{{ no_such_helper(result) }}", "x", "UndefinedError"),
        ("{{ result.endswith('x') }}", 5, "UndefinedError"),  # an int has no endswith
        ("{{ result[1:-1] }}", 5, "TypeError"),
        ("{{ unclosed ", "x", "TemplateSyntaxError"),
    ],
)
def test_a_template_that_cannot_render_is_a_mismatch(template: str, actual: Any, error: str):
    (mismatch,) = match_value(template, actual, ENV)
    assert mismatch.message.startswith("template could not be rendered: ")
    assert error in mismatch.message


def test_keys_and_grouping_follow_the_file_order():
    events = [
        {"eventType": "START", "job": {"name": "d.t"}, "run": {"n": 1}},
        {"eventType": "Complete", "job": {"name": "d.t"}},
        {"eventType": "START", "job": {"name": "d.t"}, "run": {"n": 2}},
        {"eventType": "START", "job": {"name": "d.u"}, "$absent": "skipped"},
    ]
    grouped = group_expected(events)
    assert list(grouped) == ["d.t.event.start", "d.t.event.complete", "d.u.event.start"]
    assert [e["run"] for e in grouped["d.t.event.start"]] == [{"n": 1}, {"n": 2}]  # type: ignore[index]
    assert grouped["d.u.event.start"] == Absent("skipped")
    with pytest.raises(ValueError, match=r"job\.name and eventType"):
        expected_key({"eventType": "START"})


def _event(name: str, event_type: str, time: str = "2026-01-01T00:00:01+00:00", **fields: Any) -> dict:
    """A provider-like event of job ``name``; ``fields`` replace whole top-level parts."""
    event = {"eventType": event_type, "eventTime": time, "job": {"namespace": "default", "name": name}}
    event["run"] = {"runId": UUID}
    return {**event, **fields}


def test_event_level_rules():
    events = group_events(
        [
            _event("d.t", "START", run={"runId": UUID}),
            _event("d.t", "COMPLETE", "2026-01-01T00:00:02+00:00", run={"runId": "first"}),
            _event("d.t", "COMPLETE", "2026-01-01T00:00:03+00:00", run={"runId": UUID}),
            _event("d.u", "START"),
        ]
    )
    expected = {
        "d.t.event.start": {"run": {"runId": "{{ is_uuid(result) }}"}},
        # one expectation: exactly one event, compared with the last
        "d.t.event.complete": {"run": {"runId": "{{ is_uuid(result) }}"}},
        "d.u.event.start": Absent("u is silenced"),
        "d.v.event.start": {"eventType": "START"},
    }
    found = [(m.key, m.message) for m in compare_airflow_events(events, expected)]
    assert found == [
        ("d.t.event.complete", "expected exactly one event under this key, got 2 (compared with the last)"),
        ("d.u.event.start", "unexpected event (1 emitted, expected none: u is silenced)"),
        (
            "d.v.event.start",
            "missing event; did you mean: d.u.event.start, d.t.event.start, d.t.event.complete; "
            "available keys: d.t.event.complete, d.t.event.start, d.u.event.start",
        ),
    ]
    # a list: that many events, pairwise in emission order
    in_order = {"d.t.event.complete": [{"run": {"runId": "first"}}, {"run": {"runId": UUID}}]}
    assert compare_airflow_events(events, in_order) == []
    swapped = {"d.t.event.complete": [{"run": {"runId": UUID}}, {"run": {"runId": "first"}}]}
    assert [(m.key, m.path) for m in compare_airflow_events(events, swapped)] == [
        ("d.t.event.complete[0]", "run.runId"),
        ("d.t.event.complete[1]", "run.runId"),
    ]
    too_many = {"d.t.event.complete": [{}, {}, {}]}
    assert [m.message for m in compare_airflow_events(events, too_many)] == [
        "expected 3 events under this key, got 2"
    ]


# --- files in the provider's format, loaded unchanged ---------------------------------------------


def _simple_dag_events() -> list[dict[str, Any]]:
    dag_run = {"conf": {}, "dag_id": "simple_dag", "data_interval_end": "2026-01-01T00:00:00+00:00"}
    dag_run |= {"logical_date": "2026-01-01T00:00:00+00:00", "run_id": "manual__2026", "run_type": "manual"}
    task = {"downstream_task_ids": "['check_events']", "owners": "data-team, airflow", "retries": 0}
    return [
        _event(
            "simple_dag",
            "START",
            "2026-01-01T00:00:00+00:00",
            producer=PRODUCER,
            schemaURL="https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
            inputs=[],
            outputs=[],
            run={
                "runId": UUID,
                "facets": {
                    "airflowDagRun": {
                        "dag": {
                            "dag_id": "simple_dag",
                            "fileloc": "/opt/dags/simple_dag.py",
                            "owner": "airflow",
                        }
                        | {"tags": "[]"},
                        "dagRun": dag_run,
                    },
                    "processing_engine": {"name": "Airflow", "version": "3.3.2"},
                },
            },
            job={
                "namespace": "default",
                "name": "simple_dag",
                "facets": {
                    "jobType": {"integration": "AIRFLOW", "jobType": "DAG", "processingType": "BATCH"},
                    "airflow": {
                        "tasks": {
                            "do_nothing_task": {
                                "downstream_task_ids": ["check_events"],
                                "emits_ol_events": True,
                                "operator": "airflow.providers.standard.operators.python.PythonOperator",
                            }
                        }
                    },
                },
            },
        ),
        _event(
            "simple_dag.do_nothing_task",
            "START",
            inputs=[],
            outputs=[],
            run={
                "runId": UUID,
                "facets": {
                    "parent": {"job": {"namespace": "default", "name": "simple_dag"}, "run": {"runId": UUID}},
                    "airflow": {
                        "taskInstance": {"try_number": 1},
                        "task": {**task, "task_id": "do_nothing_task"},
                        "dagRun": dag_run,
                    },
                },
            },
            job={
                "namespace": "default",
                "name": "simple_dag.do_nothing_task",
                "facets": {
                    "sourceCode": {"language": "python", "sourceCode": "def do_nothing():\n    pass\n"}
                },
            },
        ),
        _event(
            "simple_dag.do_nothing_task",
            "COMPLETE",
            "2026-01-01T00:00:02+00:00",
            run={"runId": UUID, "facets": {"airflow": {"task": {"task_id": "do_nothing_task"}}}},
        ),
    ]


@pytest.fixture
def simple_dag_file(tmp_path: Path) -> Path:
    copied = tmp_path / "simple_dag.json"
    shutil.copy(FILES / "simple_dag.json", copied)
    return copied


def test_a_provider_format_file_passes_through_the_harness_unchanged(simple_dag_file: Path):
    before = simple_dag_file.read_text()
    assert_events_match_file(_simple_dag_events(), simple_dag_file)
    assert_events_match_file(_simple_dag_events(), simple_dag_file, update=True)  # never rewritten
    assert simple_dag_file.read_text() == before


@pytest.mark.parametrize(
    ("change", "where", "message"),
    [
        (
            lambda events: events[1]["run"]["facets"]["airflow"]["task"].update(owners="airflow"),
            "simple_dag.do_nothing_task.event.start: run.facets.airflow.task.owners",
            "template rendered 'False'",
        ),
        (
            lambda events: events[2]["run"]["facets"].update(errorMessage={"message": "boom"}),
            "simple_dag.do_nothing_task.event.complete: run.facets.errorMessage",
            "key should be absent (null in the file)",
        ),
        (
            lambda events: events[0]["job"]["facets"]["airflow"]["tasks"]["do_nothing_task"].update(
                downstream_task_ids=[]
            ),
            "simple_dag.event.start: job.facets.airflow.tasks.do_nothing_task.downstream_task_ids",
            "array length differs: expected 1, got 0",
        ),
        (
            lambda events: events[0]["run"].update(runId="not-a-uuid"),
            "simple_dag.event.start: run.runId",
            "template rendered 'false'",
        ),
    ],
)
def test_a_changed_event_fails_with_where_and_what(
    simple_dag_file: Path, change: Any, where: str, message: str
):
    events = _simple_dag_events()
    change(events)
    with pytest.raises(AssertionError) as failure:
        assert_events_match_file(events, simple_dag_file)
    text = str(failure.value)
    assert text.startswith(f"OpenLineage events do not match Airflow expected-events file {simple_dag_file}")
    assert f"  {where}: {message}" in text
    assert "lineage-operators diff" not in text  # the CLI reads golden files, not Jinja checks


def test_absent_events_of_a_provider_file():
    events = [_event("emit_false_dag.task_emits", kind) for kind in ("START", "COMPLETE")]
    assert_events_match_file(events, FILES / "emit_false_dag.json")
    events.append(_event("emit_false_dag.task_silenced", "COMPLETE"))
    with pytest.raises(AssertionError, match=r"task_silenced.event.complete: unexpected event \(1 emitted, "):
        assert_events_match_file(events, FILES / "emit_false_dag.json")


def test_null_keys_of_a_provider_file():
    edges = {"task_2": {"label": "follow-up", "extra": 1}}
    task = {"downstream_task_ids": ["task_2", "task_3"], "downstream_task_edges": edges}
    event = _event("edge_labels_dag", "START", job={"name": "edge_labels_dag"})
    event["job"]["facets"] = {"airflow": {"tasks": {"task_1": task}}}
    assert_events_match_file([event], FILES / "edge_labels_dag.json")
    edges["task_3"] = {}
    with pytest.raises(AssertionError, match=r"downstream_task_edges.task_3: key should be absent"):
        assert_events_match_file([event], FILES / "edge_labels_dag.json")


def test_repeated_keys_and_optional_lists_of_a_provider_file():
    def complete(index: int, outputs: list[dict[str, Any]]) -> dict[str, Any]:
        run = {"facets": {"airflow": {"taskInstance": {"map_index": index}}}}
        return _event(
            "mapped_dag.add_one", "COMPLETE", f"2026-01-01T00:00:0{index + 1}+00:00", run=run, outputs=outputs
        )

    first = [
        {
            "namespace": "s3://bucket",
            "name": "/out/0",
            "facets": {"dataSource": {"uri": "s3://bucket/warehouse"}},
        }
    ]
    assert_events_match_file([complete(0, first), complete(1, [])], FILES / "mapped_dag.json")
    second = [{"namespace": "s3://bucket", "name": "/out/1"}]
    assert_events_match_file([complete(0, first), complete(1, second)], FILES / "mapped_dag.json")
    wrong = copy.deepcopy(second)
    wrong[0]["name"] = "/out/2"
    with pytest.raises(
        AssertionError, match=r"mapped_dag.add_one.event.complete\[1\]: outputs\[0\].name: value"
    ):
        assert_events_match_file([complete(0, first), complete(1, wrong)], FILES / "mapped_dag.json")
    with pytest.raises(AssertionError, match=r"expected 2 events under this key, got 1"):
        assert_events_match_file([complete(0, first)], FILES / "mapped_dag.json")


def test_the_format_is_told_by_the_content(tmp_path: Path):
    airflow = read_expected_file(FILES / "emit_false_dag.json")
    assert airflow.airflow
    assert airflow.required_counts() == {
        "emit_false_dag.task_emits.event.start": 1,
        "emit_false_dag.task_emits.event.complete": 1,
    }
    golden = tmp_path / "golden.json"
    golden.write_text(json.dumps({"d.t.event.start": {"job": {"name": "d.t"}}}))
    assert not read_expected_file(golden).airflow
    assert load_airflow_expected(FILES / "emit_false_dag.json") == airflow.expectations
    with pytest.raises(ValueError, match="not Airflow's format"):
        load_airflow_expected(golden)
