"""Loading a DAG from its file path, so a test needs no ``sys.path`` or pytest ``pythonpath`` setup."""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["load_dag"]

_module_ids = itertools.count()


def load_dag(path: str | os.PathLike[str], dag_id: str | None = None) -> Any:
    """Import the DAG file at ``path`` afresh and return its DAG (the one named ``dag_id`` if several).

    Each call executes the file again under a new module name, so the DAG reads the environment
    the test has just set (``monkeypatch.setenv``).  Call it inside a test that uses ``run_dag``:
    Airflow is then imported into the harness's temporary home.
    """
    file = Path(path).resolve()
    if not file.is_file():
        raise FileNotFoundError(f"no DAG file at {file}")
    name = f"lineage_operators_dag_{file.stem}_{next(_module_ids)}"
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {file} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses, pickling and Airflow's own lookups need it registered
    spec.loader.exec_module(module)
    from airflow.sdk import DAG

    dags = {id(v): v for v in vars(module).values() if isinstance(v, DAG)}
    found = {d.dag_id: d for d in dags.values()}
    if dag_id is not None:
        if dag_id not in found:
            raise LookupError(f"{file} defines no DAG {dag_id!r} at module level; it defines {sorted(found)}")
        return found[dag_id]
    if len(found) != 1:
        raise LookupError(
            f"{file} defines {len(found)} DAGs at module level ({sorted(found)}); pass dag_id= to choose one"
        )
    return next(iter(found.values()))
