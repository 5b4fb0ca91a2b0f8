"""OpenLineage extractor for tasks captured by this package's plugin.

Name it in ``[openlineage] extractors``: it then handles :data:`DEFAULT_OPERATORS` plus
``[lineage_operators] capture_operators``. Keyed by class name, it wins over the operator's own
``get_openlineage_facets_*`` methods and over the provider's built-in extractors, so it delegates
to what the provider would have used (``PythonExtractor`` for ``PythonOperator``: the source code
facet; the operator's own methods otherwise) and adds what the plugin captured.

It runs in the provider's forked child with a time limit: it only reads the captured result that
the plugin stored in the task process (:mod:`lineage_operators.plugin.store`).
"""

from __future__ import annotations

from typing import Any

from airflow.providers.openlineage.extractors.base import BaseExtractor, DefaultExtractor, OperatorLineage

from lineage_operators.mixin import _to_openlineage
from lineage_operators.plugin import settings, store

#: The provider's run facet saying the data lineage is unknown; dropped once Spark told us.
UNKNOWN_SOURCE_FACET = "unknownSourceAttribute"


class SparkCaptureExtractor(BaseExtractor):
    """Provider's lineage for the task, plus the Spark datasets and facets captured during it."""

    @classmethod
    def get_operator_classnames(cls) -> list[str]:
        return sorted(settings.DEFAULT_OPERATORS | settings.configured_operators())

    def _execute_extraction(self) -> OperatorLineage | None:
        base = self._base_extractor()
        return (base.extract() if base is not None else None) or OperatorLineage()

    def extract_on_complete(self, task_instance: Any) -> OperatorLineage | None:
        base = self._base_extractor()
        lineage = base.extract_on_complete(task_instance) if base is not None else None
        return self._with_captured(lineage, task_instance)

    def extract_on_failure(self, task_instance: Any) -> OperatorLineage | None:
        base = self._base_extractor()
        lineage = base.extract_on_failure(task_instance) if base is not None else None
        return self._with_captured(lineage, task_instance)

    def _base_extractor(self) -> BaseExtractor | None:
        """The extractor the provider picks for this operator when this one is not configured."""
        from airflow.providers.openlineage.extractors.bash import BashExtractor
        from airflow.providers.openlineage.extractors.python import PythonExtractor

        task_type = getattr(self.operator, "task_type", None)
        for extractor_class in (PythonExtractor, BashExtractor):
            if task_type in extractor_class.get_operator_classnames():
                return self._configured(extractor_class(self.operator))
        if any(
            callable(getattr(self.operator, method, None))
            for method in ("get_openlineage_facets_on_start", "get_openlineage_facets_on_complete")
        ):
            return self._configured(DefaultExtractor(self.operator))
        return None

    def _configured(self, extractor: BaseExtractor) -> BaseExtractor:
        extractor.source_code_enabled = self.source_code_enabled
        return extractor

    def _with_captured(self, lineage: OperatorLineage | None, task_instance: Any) -> OperatorLineage | None:
        captured = store.get(task_instance)
        if captured is None:
            return lineage
        label = f"{getattr(self.operator, 'dag_id', '?')}.{getattr(self.operator, 'task_id', '?')}"
        lineage = lineage or OperatorLineage()
        inputs = _to_openlineage(captured.inputs, "input", label)
        outputs = _to_openlineage(captured.outputs, "output", label)
        run_facets = {**(lineage.run_facets or {}), **captured.run_facets}
        if inputs or outputs:
            run_facets.pop(UNKNOWN_SOURCE_FACET, None)
        return OperatorLineage(
            inputs=[*(lineage.inputs or []), *inputs],
            outputs=[*(lineage.outputs or []), *outputs],
            run_facets=run_facets,
            job_facets={**(lineage.job_facets or {}), **captured.job_facets},
        )
