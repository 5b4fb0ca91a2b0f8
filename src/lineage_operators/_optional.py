"""Probes for optional dependencies that never import them at module load."""

from __future__ import annotations

import functools
import importlib.util


@functools.cache
def has_module(name: str) -> bool:
    """True when ``name`` is importable; looked up once, without importing it."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def openlineage_client_available() -> bool:
    return has_module("openlineage.client")


def openlineage_provider_available() -> bool:
    return has_module("airflow.providers.openlineage")
