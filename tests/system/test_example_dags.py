"""Every example DAG, end to end, against golden events; plus the properties golden files
cannot express on their own: the graph connects, nothing secret leaks, failures keep lineage."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.spark_lines import CREATE_TABLE_KEEPS_SQL_TEXT, is_schema_only_create
from tests.system.conftest import all_text, assert_matches_golden, dataset_ids, final_event


def test_file_pipeline_lineage_connects_task_to_task(run_example, base_dir: Path):
    result = run_example("file_pipeline")
    assert result.state == "success", result.task_states
    assert_matches_golden(result, "file_pipeline", base_dir)

    dag_id = "example_file_pipeline"
    ingest, clean, aggregate = (
        final_event(result, dag_id, task) for task in ("ingest_orders", "clean_orders", "aggregate_daily")
    )
    assert dataset_ids(ingest["outputs"]) == [("file", f"{base_dir}/raw/orders")]
    assert dataset_ids(clean["inputs"]) == dataset_ids(ingest["outputs"])
    assert dataset_ids(clean["outputs"]) == [("file", f"{base_dir}/clean/orders")]
    assert dataset_ids(aggregate["inputs"]) == dataset_ids(clean["outputs"])
    assert dataset_ids(aggregate["outputs"]) == [("file", f"{base_dir}/marts/daily_revenue")]


def test_catalog_tables_report_locations_with_table_symlinks(run_example, base_dir: Path):
    result = run_example("catalog_tables")
    assert result.state == "success", result.task_states
    _without_schema_only_creates(result)
    assert_matches_golden(result, "catalog_tables", base_dir)


def _without_schema_only_creates(result: dict) -> None:
    """Spark before 4.1 keeps the SQL text of a schema-only ``CREATE TABLE`` (the golden file is
    4.1+'s, without it): on those lines, check the texts are there, then drop them."""
    found = []
    for events in result.values():
        for event in events:
            sql = event.get("job", {}).get("facets", {}).get("sql")
            if not sql:
                continue
            statements = sql["query"].split(";\n")
            found += [s for s in statements if is_schema_only_create(s)]
            sql["query"] = ";\n".join(s for s in statements if not is_schema_only_create(s))
    assert bool(found) == CREATE_TABLE_KEEPS_SQL_TEXT, found


def test_internal_operator_and_failing_task(run_example, base_dir: Path):
    result = run_example("internal_operator")
    assert result.task_states == {
        "seed_events": "success",
        "snapshot_events": "success",
        "publish_snapshot": "failed",
    }
    assert_matches_golden(result, "internal_operator", base_dir)

    failed = final_event(result, "example_internal_operator", "publish_snapshot")
    assert failed["eventType"] == "FAIL"
    assert "snapshot check failed" in failed["run"]["facets"]["errorMessage"]["message"]
    assert dataset_ids(failed["inputs"]) == [("file", f"{base_dir}/events")]
    assert dataset_ids(failed["outputs"]) == [("file", f"{base_dir}/published/events")]


@pytest.fixture
def jdbc_env(postgres, monkeypatch):
    postgres.execute(
        "DROP TABLE IF EXISTS public.customers, public.customer_country_summary;"
        "CREATE TABLE public.customers (id INT PRIMARY KEY, name TEXT, country TEXT);"
        "INSERT INTO public.customers VALUES (1, 'alice', 'FR'), (2, 'bob', 'DE'), (3, 'carol', 'FR');"
    )
    monkeypatch.setenv("LINEAGE_EXAMPLE_JDBC_URL", postgres.jdbc_url)
    monkeypatch.setenv("LINEAGE_EXAMPLE_JDBC_USER", postgres.user)
    monkeypatch.setenv("LINEAGE_EXAMPLE_JDBC_PASSWORD", postgres.password)
    monkeypatch.setenv("LINEAGE_EXAMPLE_JDBC_JAR", str(postgres.jdbc_jar))
    return postgres


def test_jdbc_from_real_postgres_names_tables_and_leaks_no_credentials(
    run_example, base_dir: Path, jdbc_env, capfd
):
    result = run_example("jdbc_to_parquet")
    assert result.state == "success", result.task_states
    assert_matches_golden(result, "jdbc_to_parquet", base_dir, postgres_port=str(jdbc_env.port))
    assert jdbc_env.query("SELECT count(*) FROM public.customer_country_summary") == [("2",)]

    summary = final_event(result, "example_jdbc_to_parquet", "load_country_summary")
    (written,) = summary["outputs"]
    assert (
        written["outputFacets"]["outputStatistics"]["rowCount"] == 2
    )  # the rows the JDBC write's tasks wrote

    export = final_event(result, "example_jdbc_to_parquet", "export_customers")
    assert dataset_ids(export["inputs"]) == [
        (f"postgres://127.0.0.1:{jdbc_env.port}", "lineage.public.customers")
    ]

    output = capfd.readouterr()
    for text in (all_text(result), output.out, output.err):
        assert jdbc_env.password not in text
