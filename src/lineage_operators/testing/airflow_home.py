"""A throwaway Airflow home and metadata DB for the harness, whatever the shell has configured.

A test harness must never write to a user's real Airflow: ``run_dag`` always runs inside an
:class:`IsolatedAirflow`, a temporary directory holding the SQLite DB, dags, plugins and logs
folders, created on entry and removed on exit.  Airflow reads ``AIRFLOW_HOME`` and its config when
first imported, so two cases are handled:

- Airflow not imported yet: the environment points it at the temporary home before it loads
  (nothing is written to ``~/airflow`` or the user's ``AIRFLOW_HOME``);
- Airflow already imported (a test module imported a DAG at collection time): the environment
  variables that override the config are set and the ORM is re-created on the temporary DB, then
  pointed back on exit.

Nothing here imports Airflow at module level.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

from lineage_operators._logging import get_logger

__all__ = ["IsolatedAirflow", "active_home"]

log = get_logger(__name__)

_HOME_PREFIX = "lineage-airflow-"
_active: IsolatedAirflow | None = None


def active_home() -> Path | None:
    """The temporary home in use, or ``None`` outside :class:`IsolatedAirflow`."""
    return _active.home if _active is not None else None


def _overrides(home: Path) -> dict[str, str | None]:
    """Environment variables that win over any ``airflow.cfg``, pointing every writable path at ``home``."""
    return {
        "AIRFLOW_HOME": str(home),
        "AIRFLOW_CONFIG": str(home / "airflow.cfg"),
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{home / 'airflow.db'}",
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN_ASYNC": None,
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN_CMD": None,
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN_SECRET": None,
        "AIRFLOW__CORE__DAGS_FOLDER": str(home / "dags"),
        "AIRFLOW__CORE__PLUGINS_FOLDER": str(home / "plugins"),
        "AIRFLOW__LOGGING__BASE_LOG_FOLDER": str(home / "logs"),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
    }


def _dispose_orm(settings: Any) -> None:
    try:
        settings.dispose_orm(do_log=False)
    except TypeError:  # Airflow versions without the keyword
        settings.dispose_orm()


def _reconfigure_orm() -> None:
    """Re-read the DB URL from the environment and rebuild Airflow's engine (Airflow already imported)."""
    from airflow import settings

    _dispose_orm(settings)
    settings.configure_vars()
    settings.configure_orm()


class IsolatedAirflow:
    """Context manager: a temporary Airflow home with a migrated SQLite DB; nested uses share it."""

    def __init__(self) -> None:
        self.home = Path()
        self._saved: dict[str, str | None] = {}
        self._reconfigured = False
        self._owner = False

    def __enter__(self) -> Path:
        global _active
        if _active is not None:  # e.g. run_dag inside the pytest fixture's home
            self.home = _active.home
            return self.home
        self._owner = True
        self.home = Path(tempfile.mkdtemp(prefix=_HOME_PREFIX))
        for folder in ("dags", "plugins", "logs"):
            (self.home / folder).mkdir()
        user_home = os.environ.get("AIRFLOW_HOME")
        overrides = _overrides(self.home)
        self._saved = {name: os.environ.get(name) for name in overrides}
        for name, value in overrides.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self._reconfigured = "airflow.settings" in sys.modules
        _active = self
        try:
            if self._reconfigured:
                _reconfigure_orm()
            from airflow.utils.db import initdb

            initdb()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        untouched = f"AIRFLOW_HOME={user_home} is not touched" if user_home else "no Airflow home is touched"
        # printed, not logged: the user must see it whatever their logging setup
        print(
            f"lineage_operators.testing: Airflow runs in a temporary home {self.home} (deleted afterwards); "
            f"{untouched}",
            file=sys.stderr,
        )
        return self.home

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        global _active
        if not self._owner:
            return
        self._owner = False
        settings = sys.modules.get("airflow.settings")
        if settings is not None:
            try:
                _dispose_orm(settings)
            except Exception:  # best effort: the files are removed below anyway
                log.debug("disposing Airflow's ORM failed", exc_info=True)
        for name, value in self._saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        _active = None
        if self._reconfigured and settings is not None:
            try:
                settings.configure_vars()
                settings.configure_orm()
            except Exception:
                log.debug("pointing Airflow back at its own DB failed", exc_info=True)
        shutil.rmtree(self.home, ignore_errors=True)
