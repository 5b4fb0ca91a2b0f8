"""System tests: real Airflow (`dag.test()`), the real OpenLineage provider and listener, real
PySpark, real files and a real PostgreSQL. They run the project's example DAGs through the
library's own harness and compare with golden files in tests/system/golden/."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import itertools
import json
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from tests.support.browser import chromium  # noqa: F401  (fixture: Marquez's UI in test_marquez.py)
from tests.support.marquez_web import marquez_web  # noqa: F401  (fixture)
from tests.support.postgres import postgres  # noqa: F401  (fixture)

from lineage_operators.cli.main import main as cli_main
from lineage_operators.testing import DagRunResult, assert_events_match_file, validate_events, write_expected

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_DAGS = ROOT / "example_dags"
GOLDEN = Path(__file__).parent / "golden"
_module_ids = itertools.count()
#: What a user names in ``[openlineage] extractors`` for unmodified tasks.
EXTRACTOR = "lineage_operators.extractor.SparkCaptureExtractor"
# A fixed logical date keeps templated paths ({{ ds_nodash }}) and nominal times stable.
LOGICAL_DATE = datetime(2026, 1, 1, tzinfo=timezone.utc)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.system)


@pytest.fixture(autouse=True)
def _no_spark_session_outlives_its_test() -> Iterator[None]:
    """Stop the classic SparkContext a test's tasks left running.

    Unmodified tasks build sessions they never stop, as user code does: harmless in a task's own
    process, but in this one the next test's operators would ``getOrCreate`` that session, its
    master and the app name the JVM was launched with.
    """
    yield
    import sys

    if "pyspark" not in sys.modules:
        return
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    session = SparkSession._instantiatedSession
    if session is not None and session._sc._jsc is not None:
        # stops its context and forgets the session: while pyspark remembers a classic session,
        # ``SparkSession.builder.remote(...)`` refuses to start (SESSION_ALREADY_EXIST)
        session.stop()
    context = SparkContext._active_spark_context
    if context is not None:
        context.stop()


def load_example_dag(name: str) -> Any:
    """Import an example DAG file afresh, so it reads the environment this test set."""
    return load_dag_file(EXAMPLE_DAGS / f"{name}.py")


def load_dag_file(path: Path, attribute: str = "dag") -> Any:
    spec = importlib.util.spec_from_file_location(f"dag_{path.stem}_{next(_module_ids)}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, attribute)


@pytest.fixture
def base_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("LINEAGE_EXAMPLE_BASE_DIR", str(data))
    return data


@pytest.fixture
def run_example(
    run_dag: Callable[..., DagRunResult], base_dir: Path
) -> Iterator[Callable[..., DagRunResult]]:
    """Run an example DAG; its events are schema-validated before the test sees them."""

    def run(name: str, **kwargs: Any) -> DagRunResult:
        kwargs.setdefault("logical_date", LOGICAL_DATE)
        result = run_dag(load_example_dag(name), **kwargs)
        validate_events(result)
        return result

    return run


def assert_matches_golden(result: DagRunResult, name: str, base_dir: Path, **placeholders: Any) -> None:
    """The run's events match the example's golden file; and ``lineage-operators diff`` finds nothing
    between those events and that golden file, nor a golden file of their lineage alone written from
    them (the harness's default form, without job and run facets), read either way round: a golden
    file and the run it describes are one lineage (placeholders inferred, as a user's diff does)."""
    golden = GOLDEN / f"{name}.json"
    bound = {"base_dir": base_dir, **placeholders}
    assert_events_match_file(result, golden, placeholders=bound)
    events = Path(result.events_path)
    lineage_only = events.with_name(f"golden-{name}.json")
    write_expected(lineage_only, events, placeholders=bound, preserve=False, full=False)
    for written in (golden, lineage_only):
        for sides in ([written, events], [events, written]):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                status = cli_main(["diff", *map(str, sides)])
            assert status == 0, f"lineage-operators diff {' '.join(map(str, sides))}:\n{out.getvalue()}"


def final_event(result: DagRunResult, dag_id: str, task_id: str) -> dict[str, Any]:
    for event_type in ("complete", "fail"):
        events = result.get(f"{dag_id}.{task_id}.event.{event_type}")
        if events:
            return events[-1]
    raise AssertionError(f"no final event for {dag_id}.{task_id}; keys: {sorted(result)}")


def dataset_ids(datasets: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return sorted((d["namespace"], d["name"]) for d in datasets)


def all_text(result: DagRunResult) -> str:
    return json.dumps(dict(result))


def rebuild_extractors() -> None:
    """The provider's listener is a process-wide singleton: rebuild its extractor table from the
    current ``[openlineage] extractors``, as a new task process would."""
    from airflow.providers.openlineage.extractors.manager import ExtractorManager
    from airflow.providers.openlineage.plugins.listener import get_openlineage_listener

    get_openlineage_listener().extractor_manager = ExtractorManager()
