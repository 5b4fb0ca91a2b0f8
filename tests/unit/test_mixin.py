"""The mixin's contract with the provider: pure over attributes, never raising, deterministic."""

from __future__ import annotations

import logging
import sys

import pytest
from airflow.sdk import Asset, BaseOperator
from openlineage.client.facet_v2 import schema_dataset

from lineage_operators import LineageDataset, OpenLineageMixin


class RecordingOperator(OpenLineageMixin, BaseOperator):
    def __init__(self, *, reads=(), writes=(), **kwargs):
        super().__init__(**kwargs)
        self.reads, self.writes = list(reads), list(writes)

    def execute(self, context):
        self.reset_lineage()
        for dataset in self.reads:
            self.lineage.add_input(dataset)
        for dataset in self.writes:
            self.lineage.add_output(dataset)


def names(datasets):
    return [(d.namespace, d.name) for d in datasets]


def test_on_start_reports_declared_datasets_before_execute():
    op = RecordingOperator(task_id="t", inputs=["/data/in"], outputs="s3://bucket/out/")
    lineage = op.get_openlineage_facets_on_start()
    assert names(lineage.inputs) == [("file", "/data/in")]
    assert names(lineage.outputs) == [("s3://bucket", "out")]


def test_on_start_does_not_report_what_execute_records():
    op = RecordingOperator(task_id="t", reads=["/data/a"])
    op.execute({})
    assert op.get_openlineage_facets_on_start().inputs == []
    assert names(op.get_openlineage_facets_on_complete(None).inputs) == [("file", "/data/a")]


def test_complete_deduplicates_merges_facets_and_sorts():
    schema = schema_dataset.SchemaDatasetFacet(fields=[schema_dataset.SchemaDatasetFacetFields("id", "long")])
    op = RecordingOperator(
        task_id="t",
        reads=["/z", "file:///a/", LineageDataset("file", "/a", {"schema": schema}), "/m", "/z"],
        inputs=["/m"],
    )
    op.execute({})
    inputs = op.get_openlineage_facets_on_complete(None).inputs
    assert names(inputs) == [("file", "/a"), ("file", "/m"), ("file", "/z")]
    assert inputs[0].facets["schema"] == schema


def test_methods_tolerate_attributes_never_set():
    op = RecordingOperator(task_id="t")
    assert (op.inputs, op.outputs, op.data_quality) == (None, None, None)
    assert op.get_openlineage_facets_on_complete(None).inputs == []
    assert op.get_openlineage_facets_on_failure(None).outputs == []


def test_failure_reports_what_was_touched_before_the_error():
    class Failing(RecordingOperator):
        def execute(self, context):
            self.reset_lineage()
            self.lineage.add_input("/data/read-before-failure")
            raise RuntimeError("boom")

    op = Failing(task_id="t")
    with pytest.raises(RuntimeError):
        op.execute({})
    assert names(op.get_openlineage_facets_on_failure(None).inputs) == [("file", "/data/read-before-failure")]


def test_bad_recordings_are_warnings_naming_the_task_not_exceptions(caplog):
    op = RecordingOperator(task_id="bad_input", reads=[42, "relative/path", "/ok"])
    with caplog.at_level(logging.WARNING, logger="lineage_operators"):
        op.execute({})
    assert names(op.resolved_inputs) == [("file", "/ok")]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert all("bad_input" in message for message in warnings)


def test_exceptions_inside_lineage_methods_are_swallowed_and_logged(caplog, monkeypatch):
    op = RecordingOperator(task_id="exploding")

    def explode(self):
        raise RuntimeError("lineage bug")

    monkeypatch.setattr(RecordingOperator, "_declared_lineage", explode)
    with caplog.at_level(logging.WARNING, logger="lineage_operators"):
        lineage = op.get_openlineage_facets_on_complete(None)
    assert lineage is not None
    assert (lineage.inputs, lineage.outputs) == ([], [])
    assert any("exploding" in r.getMessage() and "lineage bug" in r.getMessage() for r in caplog.records)


def test_one_unbuildable_dataset_is_dropped_not_the_event(caplog):
    op = RecordingOperator(task_id="t", reads=["/good"])
    op.execute({})
    op.lineage.add_input(LineageDataset("file", "/bad", facets=None))  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, logger="lineage_operators"):
        inputs = op.get_openlineage_facets_on_complete(None).inputs
    assert names(inputs) == [("file", "/good")]


def test_returns_none_when_provider_is_absent(monkeypatch):
    monkeypatch.setitem(sys.modules, "airflow.providers.openlineage.extractors", None)
    op = RecordingOperator(task_id="t", inputs=["/data/in"])
    op.execute({})
    assert op.get_openlineage_facets_on_start() is None
    assert op.get_openlineage_facets_on_complete(None) is None
    assert op.get_openlineage_facets_on_failure(None) is None


def test_inlets_and_outlets_are_reported_at_start():
    op = RecordingOperator(task_id="t", inlets=[Asset("file:///data/asset-in")], outputs=["/data/out"])
    lineage = op.get_openlineage_facets_on_start()
    assert names(lineage.inputs) == [("file", "/data/asset-in")]
    assert names(lineage.outputs) == [("file", "/data/out")]


def test_declared_fields_are_templated():
    assert {"inputs", "outputs"} <= set(RecordingOperator.template_fields)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("relative/path", ValueError),
        ("   ", ValueError),
        (42, TypeError),
        ([object()], TypeError),
    ],
)
def test_bad_declarations_fail_at_dag_definition(value, error):
    with pytest.raises(error, match="inputs"):
        RecordingOperator(task_id="t", inputs=value)


def test_templated_declarations_are_checked_after_rendering():
    RecordingOperator(task_id="t", inputs=["{{ params.path }}"])


def test_recorder_warnings_never_show_the_credentials_they_quote(caplog):
    """Issue 14 item 2: canaries in declared inputs (START and COMPLETE) and in add_input."""
    from tests.support.canary import CANARY, leaked

    caplog.set_level(logging.WARNING)
    op = RecordingOperator(
        task_id="t",
        inputs=[f"jdbc:postgresql://db:5432/shop?user=u&password={CANARY}"],
        reads=[f"jdbc:mysql://u:{CANARY}@db:3306/shop", f"sc://h:15002/;token={CANARY}"],
    )
    op.get_openlineage_facets_on_start()
    op.execute({})
    lineage = op.get_openlineage_facets_on_complete(None)
    messages = [r.getMessage() for r in caplog.records]
    assert sum("could not record dataset" in m for m in messages) == 3, messages
    assert "jdbc:postgresql://db:5432/shop?user=u" in " ".join(messages)
    assert leaked(messages) == []
    assert names(lineage.inputs) == [("sc://h:15002", "/")]  # no credential in a name


def test_rendered_template_secrets_are_given_to_airflows_masker(monkeypatch):
    """Issue 14 item 3: what Airflow's masker does not know by key name is masked by value."""
    import airflow.sdk.log

    from lineage_operators.mixin import mask_rendered_secrets

    masked: list[str] = []
    monkeypatch.setattr(airflow.sdk.log, "mask_secret", lambda value, name=None: masked.append(value))
    op = RecordingOperator(task_id="t", inputs=["jdbc:postgresql://db/shop?password=PwOfTheDb9"])
    op.template_fields = (*op.template_fields, "conf")
    op.conf = {"spark.hadoop.fs.azure.account.key.a.dfs.core.windows.net": "AzureKey==", "plain": "x"}
    mask_rendered_secrets(op)
    assert sorted(masked) == ["AzureKey==", "PwOfTheDb9"]
