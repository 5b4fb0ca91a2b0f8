"""Column-lineage switches: operator arguments over the ``[lineage_operators]`` Airflow config section.

Airflow's configuration is read lazily (at task run time, never at import or DAG parse), and only
for the switches the operator did not set. Values are checked twice: operator arguments at DAG
definition (:func:`validate`, a clear error for the DAG author) and config values at run time (a
bad value is logged and the default used: lineage never fails a task).

    [lineage_operators]
    column_lineage = True                              # read the plan's columns at all
    column_lineage_dataset_dependencies = dataset      # or: fields
    column_lineage_max_columns = 1000                  # wider outputs get no columnLineage facet
    column_lineage_max_plan_leaf_columns = 100000      # plans reading more columns are not serialized
    column_lineage_descriptions = False                # each transformation's expression text

Descriptions are off by default, as in openlineage-spark (``descriptionsEnabled``), decided from
what they cost (measured with ``benchmarks/descriptions_cost.py``, same run, off vs on): the text is
Spark's ``Expression.sql()`` of every computed output column, filter, join, grouping and sort key,
repeated in every input field and transformation it describes. On the large-plan benchmark at
scale 10 (a 50-way union of 300 columns, 15,350 leaf columns, written as read: each text is a
column's name) the event grows from 235,227 to 238,272 bytes (+1.3%) and the capture time does
not move beyond the machine's noise (under 0.3 s either way); on a write of 300 computed columns
(a ``CASE WHEN`` over casts each) the ``columnLineage`` facet grows from 128 KB to 201 KB (+57%).
Events of computed outputs grow by half, for text a backend may not show, and the example DAGs'
events stay as they are: so opt in. Off, the plan writer does no extra work and writes no extra
byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lineage_operators._logging import get_logger
from lineage_operators.capture_settings import CONFIG_SECTION

log = get_logger(__name__)

#: Dataset-wide dependencies (filters, join keys...) go to the facet's ``dataset`` list
#: (openlineage-spark's default since 1.37) ...
DATASET = "dataset"
#: ... or into every field's ``inputFields``, for backends that do not read ``dataset``.
FIELDS = "fields"
DEPENDENCY_MODES = (DATASET, FIELDS)
DEFAULT_MAX_COLUMNS = 1000
#: Plans whose leaves (scans, relations) output more columns in all are not serialized: their outputs
#: get no columnLineage facet. The compact plan writer takes ~2 s per 100,000 leaf columns.
DEFAULT_MAX_PLAN_LEAF_COLUMNS = 100_000
#: Transformation descriptions (the expression's text) off unless asked for: see the module docstring.
DEFAULT_DESCRIPTIONS = False


@dataclass(frozen=True)
class ColumnLineageSettings:
    enabled: bool = True
    dataset_dependencies: str = DATASET
    max_columns: int = DEFAULT_MAX_COLUMNS
    max_plan_leaf_columns: int = DEFAULT_MAX_PLAN_LEAF_COLUMNS
    descriptions: bool = DEFAULT_DESCRIPTIONS


def validate(
    enabled: Any = None,
    dataset_dependencies: Any = None,
    max_columns: Any = None,
    descriptions: Any = None,
    *,
    owner: str = "",
) -> None:
    """Raise ``TypeError``/``ValueError`` naming the argument for a bad operator argument (None = unset)."""
    prefix = f"{owner}: " if owner else ""
    if enabled is not None and not isinstance(enabled, bool):
        raise TypeError(f"{prefix}column_lineage must be True or False, got {enabled!r}")
    if descriptions is not None and not isinstance(descriptions, bool):
        raise TypeError(f"{prefix}column_lineage_descriptions must be True or False, got {descriptions!r}")
    if dataset_dependencies is not None and dataset_dependencies not in DEPENDENCY_MODES:
        raise ValueError(
            f"{prefix}column_lineage_dataset_dependencies must be one of {DEPENDENCY_MODES}, "
            f"got {dataset_dependencies!r}"
        )
    if max_columns is not None and (
        isinstance(max_columns, bool) or not isinstance(max_columns, int) or max_columns < 1
    ):
        raise ValueError(
            f"{prefix}column_lineage_max_columns must be a positive integer, got {max_columns!r}"
        )


def resolve_settings(
    enabled: bool | None = None,
    dataset_dependencies: str | None = None,
    max_columns: int | None = None,
    descriptions: bool | None = None,
) -> ColumnLineageSettings:
    """Operator arguments where given, else the Airflow config, else the defaults. Never raises."""
    if enabled is None:
        enabled = _config_value("column_lineage", True, _to_bool)
    if dataset_dependencies is None:
        dataset_dependencies = _config_value("column_lineage_dataset_dependencies", DATASET, _to_mode)
    if max_columns is None:
        max_columns = _config_value("column_lineage_max_columns", DEFAULT_MAX_COLUMNS, _to_count)
    max_leaf_columns = _config_value(
        "column_lineage_max_plan_leaf_columns", DEFAULT_MAX_PLAN_LEAF_COLUMNS, _to_count
    )
    if descriptions is None:
        descriptions = _config_value("column_lineage_descriptions", DEFAULT_DESCRIPTIONS, _to_bool)
    return ColumnLineageSettings(
        bool(enabled), dataset_dependencies, max_columns, max_leaf_columns, bool(descriptions)
    )


def _config_value(key: str, default: Any, convert: Any) -> Any:
    try:
        from airflow.configuration import conf

        raw = conf.get(CONFIG_SECTION, key, fallback=None)
    except Exception as exc:  # no Airflow, or its config cannot be read
        log.debug("lineage: cannot read [%s] %s: %s", CONFIG_SECTION, key, type(exc).__name__)
        return default
    if raw is None or str(raw).strip() == "":
        return default
    try:
        return convert(str(raw).strip())
    except ValueError:
        log.warning("lineage: ignoring [%s] %s = %r (invalid); using %r", CONFIG_SECTION, key, raw, default)
        return default


def _to_bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("true", "t", "1", "yes", "on"):
        return True
    if lowered in ("false", "f", "0", "no", "off"):
        return False
    raise ValueError(text)


def _to_mode(text: str) -> str:
    if text.lower() not in DEPENDENCY_MODES:
        raise ValueError(text)
    return text.lower()


def _to_count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


__all__ = [
    "CONFIG_SECTION",
    "DATASET",
    "DEFAULT_DESCRIPTIONS",
    "DEFAULT_MAX_COLUMNS",
    "DEFAULT_MAX_PLAN_LEAF_COLUMNS",
    "DEPENDENCY_MODES",
    "FIELDS",
    "ColumnLineageSettings",
    "resolve_settings",
    "validate",
]
