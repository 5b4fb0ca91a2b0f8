"""Airflow's hook-lineage collector in a process that runs many DAGs and tasks (the harness).

Two pieces of process-wide state decide what a run's hook lineage is:

- the collector (``airflow.sdk.lineage.get_hook_lineage_collector``, cached) accumulates assets
  for the life of the process, while in production every task runs in a fresh process: it is
  cleared before every run and before every task of a run (:func:`reset_hook_lineage_collector`);
- whether the collector collects at all: Airflow makes a real one only if some plugin registers a
  hook-lineage reader, and the OpenLineage provider's plugin registers its reader only if
  OpenLineage was configured when the plugin was *imported*. A test suite that loaded Airflow's
  plugins before any run configured OpenLineage (a DAG-import test, a unit test) got a collector
  that drops every asset for the rest of the process: the provider then reports no hook lineage,
  silently. :func:`reading_hook_lineage` gives the run the reader the configured provider has.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any
from unittest import mock


def reset_hook_lineage_collector() -> None:
    """Forget hook-level lineage collected so far, as a new task process would start with none."""
    sdk_lineage = sys.modules.get("airflow.sdk.lineage")
    getter = getattr(sdk_lineage, "get_hook_lineage_collector", None)
    if getter is not None and hasattr(getter, "cache_clear"):
        getter.cache_clear()
    legacy = sys.modules.get("airflow.lineage.hook")  # Airflow < 3.2 kept a module global
    if legacy is not None and "_hook_lineage_collector" in vars(legacy):
        legacy._hook_lineage_collector = None  # type: ignore[attr-defined]


@contextlib.contextmanager
def reading_hook_lineage() -> Iterator[None]:
    """While OpenLineage is enabled (call it once the run's configuration is in place), Airflow
    sees the provider's hook-lineage reader even where the provider's plugin was imported before
    OpenLineage was configured; the collector is cleared on entry and exit, so no collector chosen
    inside outlives the run."""
    reader = _missing_reader()
    if reader is None:
        yield
        return
    from airflow.sdk import plugins_manager

    registered = plugins_manager.get_hook_lineage_readers_plugins

    def with_the_providers_reader() -> list[Any]:
        return list(registered()) or [reader]

    reset_hook_lineage_collector()
    try:
        with mock.patch.object(
            plugins_manager, "get_hook_lineage_readers_plugins", with_the_providers_reader
        ):
            yield
    finally:
        reset_hook_lineage_collector()


def _missing_reader() -> Any:
    """The provider's reader class when OpenLineage is enabled but no plugin registered a reader."""
    try:
        from airflow.providers.openlineage import conf
        from airflow.sdk import plugins_manager

        if conf.is_disabled() or plugins_manager.get_hook_lineage_readers_plugins():
            return None
        from airflow.sdk.lineage import HookLineageReader
    except (ImportError, AttributeError):  # another Airflow or provider layout: leave it as it is
        return None
    return HookLineageReader
