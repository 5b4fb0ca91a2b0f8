"""The parse benchmark's verdicts: time within 10% of PythonOperator's, and no heavy import at all."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.parse_cost import ParseRun, figures  # noqa: E402
from benchmarks.sides import LINEAGE, PLAIN  # noqa: E402


def _runs(plain_cpu: float, lineage_cpu: float, heavy: list[str] | None = None) -> dict:
    def side(cpu: float, modules: list[str]) -> list[ParseRun]:
        return [ParseRun(cpu * 1.5, cpu, 50, modules) for _ in range(3)]

    runs = {PLAIN: side(plain_cpu, ["airflow.providers.openlineage.get_provider_info"])}
    runs[LINEAGE] = side(lineage_cpu, [*runs[PLAIN][0].heavy_modules, *(heavy or [])])
    return {"cold": runs, "preimported": runs}


@pytest.mark.parametrize(("lineage_cpu", "met"), [(1.0, True), (1.08, True), (1.10, True), (1.11, False)])
def test_the_parse_time_target_is_a_ratio_of_at_most_1_10(lineage_cpu, met):
    found = {figure.name: figure for figure in figures(_runs(1.0, lineage_cpu))}
    for name in ("parse_time_ratio", "parse_time_ratio_preimported"):
        assert found[name].value == pytest.approx(lineage_cpu)
        assert found[name].met is met


@pytest.mark.parametrize(
    ("heavy", "beyond", "spark_or_client"),
    [
        ([], 0, 0),
        (["airflow.providers.openlineage.plugins.adapter"], 1, 0),
        (["pyspark", "py4j.java_gateway"], 2, 2),
    ],
)
def test_a_heavy_import_misses_whatever_the_time(heavy, beyond, spark_or_client):
    found = {figure.name: figure for figure in figures(_runs(1.0, 0.9, heavy))}
    assert found["parse_time_ratio"].met
    assert found["parse_heavy_modules_beyond_baseline"].value == beyond
    assert found["parse_heavy_modules_beyond_baseline"].met is (beyond == 0)
    assert found["parse_spark_or_openlineage_client_modules"].value == spark_or_client
    assert found["parse_spark_or_openlineage_client_modules"].met is (spark_or_client == 0)
