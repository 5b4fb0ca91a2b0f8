"""Column-lineage switches: operator arguments (checked at DAG definition) over the Airflow config."""

from __future__ import annotations

from typing import Any

import pytest

from lineage_operators import LineageAwarePySparkOperator
from lineage_operators.column_lineage.settings import ColumnLineageSettings, resolve_settings


def make(**kwargs: Any) -> LineageAwarePySparkOperator:
    return LineageAwarePySparkOperator(task_id="t", python_callable=lambda spark: None, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"column_lineage": "yes"}, TypeError, "column_lineage must be True or False"),
        ({"column_lineage_dataset_dependencies": "rows"}, ValueError, "must be one of ('dataset', 'fields')"),
        ({"column_lineage_max_columns": 0}, ValueError, "must be a positive integer"),
        ({"column_lineage_max_columns": "10"}, ValueError, "must be a positive integer"),
        ({"column_lineage_max_columns": True}, ValueError, "must be a positive integer"),
    ],
)
def test_bad_operator_arguments_fail_at_dag_definition(kwargs: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=r"LineageAwarePySparkOperator: .*") as info:
        make(**kwargs)
    assert message in str(info.value)


def test_defaults_without_config() -> None:
    assert resolve_settings() == ColumnLineageSettings(True, "dataset", 1000)


def test_airflow_config_section(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__COLUMN_LINEAGE", "False")
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__COLUMN_LINEAGE_DATASET_DEPENDENCIES", "fields")
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__COLUMN_LINEAGE_MAX_COLUMNS", "50")
    assert resolve_settings() == ColumnLineageSettings(False, "fields", 50)
    # operator arguments win over the config
    assert resolve_settings(True, "dataset", 7) == ColumnLineageSettings(True, "dataset", 7)


def test_bad_config_values_fall_back_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__COLUMN_LINEAGE", "maybe")
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__COLUMN_LINEAGE_DATASET_DEPENDENCIES", "rows")
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__COLUMN_LINEAGE_MAX_COLUMNS", "-3")
    assert resolve_settings() == ColumnLineageSettings()
    assert caplog.text.count("invalid") == 3


def test_operator_passes_its_arguments_to_the_capture(monkeypatch: pytest.MonkeyPatch) -> None:
    from lineage_operators.spark.capture import classic as capture_module

    seen: dict[str, Any] = {}

    class FakeCapture:
        def __init__(self, spark: Any, column_lineage: Any = None, **options: Any) -> None:
            seen["settings"] = column_lineage

        def start(self) -> None:
            pass

    monkeypatch.setattr(capture_module, "SparkLineageCapture", FakeCapture)
    monkeypatch.setattr("lineage_operators.operators.pyspark.lineage_wanted", lambda task: True)
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__COLUMN_LINEAGE_MAX_COLUMNS", "50")
    op = make(column_lineage_dataset_dependencies="fields")

    class Spec:
        is_connect = False

    class Session:
        _jsparkSession = object()

    op._start_capture(Session(), Spec())  # type: ignore[arg-type]
    assert seen["settings"] == ColumnLineageSettings(True, "fields", 50)


def test_plan_leaf_column_guard_from_the_config(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    assert resolve_settings().max_plan_leaf_columns == 100_000
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__COLUMN_LINEAGE_MAX_PLAN_LEAF_COLUMNS", "250")
    assert resolve_settings() == ColumnLineageSettings(max_plan_leaf_columns=250)
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__COLUMN_LINEAGE_MAX_PLAN_LEAF_COLUMNS", "0")
    assert resolve_settings().max_plan_leaf_columns == 100_000
    assert "column_lineage_max_plan_leaf_columns = '0' (invalid)" in caplog.text


def test_capture_reader_gets_the_plan_leaf_column_guard() -> None:
    from lineage_operators.spark.capture.classic_setup import column_reader

    reader = column_reader(object(), ColumnLineageSettings(max_columns=9, max_plan_leaf_columns=42))
    assert (reader._max_columns, reader._max_leaf_columns) == (9, 42)
    assert column_reader(object(), ColumnLineageSettings(enabled=False)) is None
