"""Test harness for OpenLineage lineage emitted by Airflow DAGs (system tests).

Run a DAG, read what the OpenLineage provider's FileTransport wrote, and compare it with
expected events keyed ``<dag_id>.<task_id>.event.<type>`` / ``<dag_id>.event.<type>``::

    def test_lineage(run_dag, tmp_path):
        result = run_dag(load_dag(DAGS / "my_dag.py"), expect_state="success")
        validate_events(result)
        assert_events_match_file(result, GOLDEN / "my_dag.json", placeholders={"base_dir": tmp_path})

On a deployment, a DAG checks its own lineage with a last task, ``AssertLineageOperator``, fed by
``EventStoreTransport``; expected files may also be Airflow's own (the provider's system-test format).

Names load on first use: importing this package imports neither Airflow nor OpenLineage,
so the pytest plugin can load before Airflow's environment is set up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lineage_operators._lazy import lazy_exports

if TYPE_CHECKING:
    from lineage_operators.testing import matchers
    from lineage_operators.testing.assertion import AssertLineageOperator
    from lineage_operators.testing.backend import MarquezRun
    from lineage_operators.testing.compare import Mismatch, assert_events_match, compare_events
    from lineage_operators.testing.events import event_key, load_events
    from lineage_operators.testing.golden import (
        DEFAULT_EXCLUDE,
        assert_events_match_file,
        to_expected,
        write_expected,
    )
    from lineage_operators.testing.golden_file import load_expected
    from lineage_operators.testing.loading import load_dag
    from lineage_operators.testing.matchers import ABSENT, ANY, subset, unordered
    from lineage_operators.testing.runner import (
        DagRunResult,
        LineageTransport,
        flush_openlineage,
        reset_openlineage_state,
        run_dag,
    )
    from lineage_operators.testing.schema import (
        SpecNotFoundError,
        find_spec_dir,
        validate_event,
        validate_events,
    )
    from lineage_operators.testing.store_transport import EventStoreTransport

_EXPORTS = {
    "AssertLineageOperator": "lineage_operators.testing.assertion",
    "EventStoreTransport": "lineage_operators.testing.store_transport",
    "MarquezRun": "lineage_operators.testing.backend",
    "load_events": "lineage_operators.testing.events",
    "event_key": "lineage_operators.testing.events",
    "assert_events_match": "lineage_operators.testing.compare",
    "compare_events": "lineage_operators.testing.compare",
    "Mismatch": "lineage_operators.testing.compare",
    "assert_events_match_file": "lineage_operators.testing.golden",
    "load_expected": "lineage_operators.testing.golden_file",
    "write_expected": "lineage_operators.testing.golden",
    "to_expected": "lineage_operators.testing.golden",
    "DEFAULT_EXCLUDE": "lineage_operators.testing.golden",
    "validate_event": "lineage_operators.testing.schema",
    "validate_events": "lineage_operators.testing.schema",
    "find_spec_dir": "lineage_operators.testing.schema",
    "SpecNotFoundError": "lineage_operators.testing.schema",
    "run_dag": "lineage_operators.testing.runner",
    "load_dag": "lineage_operators.testing.loading",
    "DagRunResult": "lineage_operators.testing.runner",
    "LineageTransport": "lineage_operators.testing.runner",
    "flush_openlineage": "lineage_operators.testing.runner",
    "reset_openlineage_state": "lineage_operators.testing.runner",
    "ANY": "lineage_operators.testing.matchers",
    "ABSENT": "lineage_operators.testing.matchers",
    "subset": "lineage_operators.testing.matchers",
    "unordered": "lineage_operators.testing.matchers",
}

__all__ = [
    "ABSENT",
    "ANY",
    "DEFAULT_EXCLUDE",
    "AssertLineageOperator",
    "DagRunResult",
    "EventStoreTransport",
    "LineageTransport",
    "MarquezRun",
    "Mismatch",
    "SpecNotFoundError",
    "assert_events_match",
    "assert_events_match_file",
    "compare_events",
    "event_key",
    "find_spec_dir",
    "flush_openlineage",
    "load_dag",
    "load_events",
    "load_expected",
    "matchers",
    "reset_openlineage_state",
    "run_dag",
    "subset",
    "to_expected",
    "unordered",
    "validate_event",
    "validate_events",
    "write_expected",
]


__getattr__, __dir__ = lazy_exports(
    __name__, {**_EXPORTS, "matchers": "lineage_operators.testing.matchers"}, __all__
)
