"""Which tasks the plugin captures, from Airflow configuration.

* ``[openlineage] extractors`` naming :class:`lineage_operators.extractor.SparkCaptureExtractor`
  arms capture for :data:`DEFAULT_OPERATORS`;
* ``[lineage_operators] capture_operators`` adds operator class names (``task_type``); it alone
  (no extractor) is the hook-lineage fallback.
"""

from __future__ import annotations

from lineage_operators.capture_settings import CONFIG_SECTION

#: ``task_type`` of the usual PySpark carriers: ``PythonOperator``, ``@task``, ``@task.pyspark``,
#: and the Spark provider's ``PySparkOperator``.
DEFAULT_OPERATORS = frozenset(
    {"PythonOperator", "_PythonDecoratedOperator", "_PySparkDecoratedOperator", "PySparkOperator"}
)
EXTRACTOR_MODULE = "lineage_operators.extractor"


def split_names(text: str | None) -> frozenset[str]:
    return frozenset(name.strip() for name in (text or "").replace(";", ",").split(",") if name.strip())


def names_our_extractor(extractors: str | None) -> bool:
    return any(path.startswith(f"{EXTRACTOR_MODULE}.") for path in split_names(extractors))


def operators_to_capture(extractors: str | None, capture_operators: str | None) -> frozenset[str]:
    """Pure: the task types to capture, given the two configuration values."""
    defaults = DEFAULT_OPERATORS if names_our_extractor(extractors) else frozenset()
    return defaults | split_names(capture_operators)


def configured_operators() -> frozenset[str]:
    """Read per task (configuration can differ between task processes); costs two config look-ups."""
    return operators_to_capture(
        _read("openlineage", "extractors"), _read(CONFIG_SECTION, "capture_operators")
    )


def extractor_configured() -> bool:
    """Whether ``[openlineage] extractors`` names this package's extractor: it then reports every
    captured task, and Airflow's hook-lineage collector is not the channel."""
    return names_our_extractor(_read("openlineage", "extractors"))


def _read(section: str, key: str) -> str | None:
    try:
        from airflow.sdk.configuration import conf

        return conf.get(section, key, fallback=None)
    except Exception:
        return None
