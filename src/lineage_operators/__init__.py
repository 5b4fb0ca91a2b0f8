"""Complete OpenLineage lineage for PySpark jobs run from Airflow, with no hand annotation.

Public names load on first use, so importing this package (or parsing a DAG file that uses it)
imports neither pyspark nor openlineage nor the OpenLineage provider.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lineage_operators._lazy import lazy_exports
from lineage_operators._version import __version__

if TYPE_CHECKING:
    from lineage_operators.decorators.pyspark import lineage_pyspark_task
    from lineage_operators.mixin import OpenLineageMixin
    from lineage_operators.model import DatasetName, LineageDataset
    from lineage_operators.operators.pyspark import LineageAwarePySparkOperator, SparkJobError
    from lineage_operators.recorder import LineageRecorder

_EXPORTS = {
    "OpenLineageMixin": "lineage_operators.mixin",
    "LineageAwarePySparkOperator": "lineage_operators.operators.pyspark",
    "SparkJobError": "lineage_operators.operators.pyspark",
    "LineageRecorder": "lineage_operators.recorder",
    "LineageDataset": "lineage_operators.model",
    "DatasetName": "lineage_operators.model",
    "lineage_pyspark_task": "lineage_operators.decorators.pyspark",
}

__all__ = [
    "DatasetName",
    "LineageAwarePySparkOperator",
    "LineageDataset",
    "LineageRecorder",
    "OpenLineageMixin",
    "SparkJobError",
    "__version__",
    "lineage_pyspark_task",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
