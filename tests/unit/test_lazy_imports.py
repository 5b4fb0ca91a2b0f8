"""Importing the package or parsing a DAG that uses it must not load Spark or OpenLineage."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY_PREFIXES = ("pyspark", "py4j", "openlineage", "airflow.providers.openlineage")

REPORT = (
    f"import json, sys; print(json.dumps(sorted(m for m in sys.modules if m.startswith({HEAVY_PREFIXES!r}))))"
)


def heavy_modules(statement: str) -> set[str]:
    result = subprocess.run(
        [sys.executable, "-c", f"{statement}\n{REPORT}"], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return set(json.loads(result.stdout.strip().splitlines()[-1]))


def parse(dag_file: str) -> set[str]:
    return heavy_modules(f"import runpy; runpy.run_path({dag_file!r})")


def test_importing_the_package_loads_nothing_heavy():
    assert heavy_modules("import lineage_operators") == set()


def test_public_names_load_no_more_than_airflow_python_operator():
    baseline = heavy_modules("from airflow.providers.standard.operators.python import PythonOperator")
    loaded = heavy_modules(
        "from lineage_operators import LineageAwarePySparkOperator, OpenLineageMixin, LineageRecorder"
    )
    # Airflow's provider discovery imports every installed provider's get_provider_info: baseline.
    assert loaded <= baseline


def test_importtime_confirms_no_heavy_module():
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import lineage_operators"],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = [line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if "|" in line]
    assert "lineage_operators" in imported
    assert [m for m in imported if m.startswith(HEAVY_PREFIXES)] == []


def test_the_data_quality_checks_a_dag_file_imports_load_nothing_heavy():
    assert heavy_modules("from lineage_operators.quality import DataQuality, not_null, unique") == set()


def test_the_capture_plugin_and_provider_info_load_nothing_heavy():
    assert heavy_modules("import lineage_operators.plugin, lineage_operators.provider_info") <= heavy_modules(
        "from airflow.providers.standard.operators.python import PythonOperator"
    )
    assert not [
        m for m in heavy_modules("import lineage_operators.plugin") if m.startswith(("pyspark", "py4j"))
    ]


@pytest.mark.parametrize("dag_file", ["example_dags/file_pipeline.py", "tests/unit/dags/decorator_dag.py"])
def test_parsing_a_dag_loads_no_more_than_a_plain_python_operator_dag(dag_file):
    baseline = parse("tests/unit/dags/plain_python_dag.py")
    with_operator = parse(dag_file)
    # Airflow's own provider discovery imports each provider's get_provider_info; that is the
    # baseline. Nothing of Spark or the OpenLineage client may be added by our operator.
    assert with_operator <= baseline
    assert not [m for m in with_operator if m.startswith(("pyspark", "py4j", "openlineage"))]
