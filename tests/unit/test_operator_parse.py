"""What the DAG processor does with the operator: build it at parse, serialize it, render it.

Airflow's own ``__init__`` chain builds the operator (``apply_defaults`` at each class level), so
these tests pin what the DAG author sees: bad values fail at DAG definition, each check runs once,
``default_args`` reach the operator's own arguments, given values and templates survive
serialization and rendering, and a DAG file that imports the operator loads nothing that reads
Spark.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pendulum
import pytest
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator

ROOT = Path(__file__).resolve().parents[2]
OWN_ARGUMENTS = {
    "conn_id": None,
    "master": None,
    "config_kwargs": None,
    "capture_lineage": True,
    "column_lineage": None,
    "column_lineage_dataset_dependencies": None,
    "column_lineage_max_columns": None,
    "column_lineage_descriptions": None,
    "inputs": None,
    "outputs": None,
}


def job(spark=None):
    return 1


def make_dag(**dag_kwargs):
    return DAG(
        dag_id="parse_test", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"), **dag_kwargs
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"master": "locl[2]"}, ValueError, "is not a Spark master URL"),
        ({"master": 7077}, TypeError, "master must be a string"),
        ({"capture_lineage": "yes"}, TypeError, "capture_lineage must be True or False"),
        ({"capture_lineage": None}, TypeError, "capture_lineage must be True or False"),
        ({"column_lineage": "yes"}, TypeError, "column_lineage must be True or False"),
        ({"column_lineage_dataset_dependencies": "rows"}, ValueError, "must be one of"),
        ({"column_lineage_max_columns": 0}, ValueError, "must be a positive integer"),
        (
            {"column_lineage_descriptions": "on"},
            TypeError,
            "column_lineage_descriptions must be True or False",
        ),
        ({"outputs": "relative/path"}, ValueError, "outputs: 'relative/path' is neither"),
        ({"inputs": [3]}, TypeError, "inputs: expected a path/URI string"),
    ],
)
def test_every_bad_argument_still_fails_at_dag_definition(kwargs, error, message):
    with make_dag(), pytest.raises(error, match=message):
        LineageAwarePySparkOperator(task_id="t", python_callable=job, **kwargs)


def test_every_argument_is_an_attribute_of_the_task():
    with make_dag():
        default = LineageAwarePySparkOperator(task_id="default", python_callable=job)
        given = LineageAwarePySparkOperator(
            task_id="given",
            python_callable=job,
            master="local[1]",
            config_kwargs={"spark.x": "1"},
            capture_lineage=False,
            column_lineage=False,
            column_lineage_dataset_dependencies="fields",
            column_lineage_max_columns=5,
            column_lineage_descriptions=True,
            inputs="/in",
            outputs=["/out"],
        )
    assert {name: getattr(default, name) for name in OWN_ARGUMENTS} == OWN_ARGUMENTS
    assert {name: getattr(given, name) for name in OWN_ARGUMENTS} == {
        "conn_id": None,
        "master": "local[1]",
        "config_kwargs": {"spark.x": "1"},
        "capture_lineage": False,
        "column_lineage": False,
        "column_lineage_dataset_dependencies": "fields",
        "column_lineage_max_columns": 5,
        "column_lineage_descriptions": True,
        "inputs": "/in",
        "outputs": ["/out"],
    }


def test_the_mixins_checks_run_once_per_task(monkeypatch):
    """The operator hands ``inputs`` / ``outputs`` / ``data_quality`` to the mixin, which checks each once."""
    from lineage_operators import mixin

    checked: list[str] = []
    validate_declared = mixin.validate_declared

    def counting(value, argument):
        checked.append(argument)
        return validate_declared(value, argument)

    monkeypatch.setattr(mixin, "validate_declared", counting)
    with make_dag():
        LineageAwarePySparkOperator(task_id="t", python_callable=job, inputs="/in", outputs=["/out"])
    assert checked == ["inputs", "outputs"]


def test_default_args_reach_the_operators_own_arguments():
    with make_dag(default_args={"conn_id": "spark_batch", "column_lineage_max_columns": 50}):
        op = LineageAwarePySparkOperator(task_id="t", python_callable=job)
    assert op.conn_id == "spark_batch"
    assert op.column_lineage_max_columns == 50


def test_bad_default_args_fail_at_dag_definition_too():
    with make_dag(default_args={"master": "nowhere"}), pytest.raises(ValueError, match="master 'nowhere'"):
        LineageAwarePySparkOperator(task_id="t", python_callable=job)


def test_serialization_keeps_given_values_and_omits_defaults():
    from airflow.serialization.serialized_objects import DagSerialization

    with make_dag() as dag:
        LineageAwarePySparkOperator(task_id="default", python_callable=job)
        LineageAwarePySparkOperator(
            task_id="given", python_callable=job, master="{{ var.value.master }}", outputs="/out/{{ ds }}"
        )
    tasks = {
        task["__var"]["task_id"]: task["__var"] for task in DagSerialization.to_dict(dag)["dag"]["tasks"]
    }
    assert tasks["given"]["master"] == "{{ var.value.master }}"
    assert tasks["given"]["outputs"] == "/out/{{ ds }}"
    for name in ("conn_id", "master", "config_kwargs", "inputs", "outputs"):
        assert name not in tasks["default"]
    # every task lists every templated field, as any Airflow operator's ordinary tuple does
    every = [
        "templates_dict",
        "op_args",
        "op_kwargs",
        "conn_id",
        "master",
        "config_kwargs",
        "inputs",
        "outputs",
    ]
    assert tasks["default"]["template_fields"] == tasks["given"]["template_fields"] == every
    restored = DagSerialization.from_dict(DagSerialization.to_dict(dag))
    assert restored.get_task("given").master == "{{ var.value.master }}"


def test_templates_in_class_default_fields_render_onto_the_task():
    with make_dag():
        op = LineageAwarePySparkOperator(
            task_id="t", python_callable=job, master="{{ params.master }}", config_kwargs={"a": "{{ ds }}"}
        )
        plain = LineageAwarePySparkOperator(task_id="plain", python_callable=job)
    op.render_template_fields({"params": {"master": "local[3]"}, "ds": "2026-01-02"})
    plain.render_template_fields({"ds": "2026-01-02"})
    assert op.master == "local[3]"
    assert op.config_kwargs == {"a": "2026-01-02"}
    assert plain.master is None


def test_a_dag_file_with_the_operator_loads_only_its_module_and_the_mixin():
    """The session, the capture and everything that reads Spark load when a task runs, the argument checks
    when a task gives a value to check (the parse benchmark measured the difference: operators/pyspark.py)."""
    script = (
        "import sys, json\n"
        "import airflow.sdk, airflow.providers.standard.operators.python\n"
        "import lineage_operators\n"
        "before = set(sys.modules)\n"
        f"import runpy; runpy.run_path({str(ROOT / 'tests/unit/dags/operator_parse_dag.py')!r})\n"
        "new = set(sys.modules) - before\n"
        "print(json.dumps(sorted(m for m in new if m.startswith('lineage_operators'))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [
        "lineage_operators.mixin",
        "lineage_operators.operators",
        "lineage_operators.operators.pyspark",
    ]


def test_every_template_field_is_listed_and_a_value_given_later_is_templated():
    """``template_fields`` is an ordinary tuple: the class and each task list PythonOperator's
    fields, the operator's and the mixin's, whatever they hold."""
    from airflow.providers.standard.operators.python import PythonOperator

    every = (*PythonOperator.template_fields, "conn_id", "master", "config_kwargs", "inputs", "outputs")
    assert tuple(LineageAwarePySparkOperator.template_fields) == every
    with make_dag():
        upstream = LineageAwarePySparkOperator(task_id="up", python_callable=job)
        op = LineageAwarePySparkOperator(task_id="t", python_callable=job, inputs="/in/{{ ds }}")
    assert op.template_fields == every
    op.master = "{{ params.master }}"  # given after __init__: templated all the same
    op.outputs = upstream.output  # an XComArg: sets the upstream as for any template field
    assert op.template_fields == every
    assert op.upstream_task_ids == {"up"}
    op.outputs = None
    op.render_template_fields({"params": {"master": "local[2]"}, "ds": "2026-01-02"})
    assert (op.master, op.inputs) == ("local[2]", "/in/2026-01-02")


def test_a_subclass_value_is_templated():
    class Internal(LineageAwarePySparkOperator):
        def __init__(self, **kwargs):
            super().__init__(master="{{ params.master }}", **kwargs)

        def run_spark(self, spark, context):
            return None

    op = Internal(task_id="t")
    assert "master" in op.template_fields
    op.render_template_fields({"params": {"master": "local[1]"}})
    assert op.master == "local[1]"


def test_default_args_reach_python_operator_arguments():
    default_args = {
        "op_kwargs": {"day": "{{ ds }}"},
        "op_args": [1],
        "templates_dict": {"k": "v"},
        "show_return_value_in_logs": False,
        "python_callable": job,
    }
    with make_dag(default_args=default_args):
        op = LineageAwarePySparkOperator(task_id="t")
    assert (op.op_kwargs, list(op.op_args), op.templates_dict) == ({"day": "{{ ds }}"}, [1], {"k": "v"})
    assert op.show_return_value_in_logs is False
    assert op.python_callable is job


def test_default_args_reach_every_level_and_the_mixin_still_checks():
    with make_dag(default_args={"show_return_value_in_logs": False, "conn_id": "spark_batch"}):
        op = LineageAwarePySparkOperator(task_id="t", python_callable=job, outputs="/out")
    assert (op.show_return_value_in_logs, op.conn_id, op.outputs) == (False, "spark_batch", "/out")
    with make_dag(), pytest.raises(ValueError, match="outputs: 'relative' is neither"):
        LineageAwarePySparkOperator(task_id="u", python_callable=job, outputs="relative")
