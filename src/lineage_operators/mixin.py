"""Lineage for any Airflow operator: record during ``execute``, report through the provider.

The provider calls the three ``get_openlineage_facets_*`` methods in a forked child with a time
limit, after (or, for ``on_start``, before) ``execute``. So they are pure over attributes set on
the operator: no SparkSession, JVM or network here, and attributes that were never set (task
skipped, failed early, deferred) are normal. OpenLineage modules are imported only inside them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

# Everything of this package the mixin uses runs in a task (the recorder, data quality, the
# redacting logger) and is imported in the methods that run it: a DAG file that imports an
# operator built on the mixin loads only this module of it (the parse benchmark, see
# operators/pyspark.py); OpenLineage and the provider load in a task only.
if TYPE_CHECKING:
    import logging

    from airflow.providers.openlineage.extractors import OperatorLineage

    from lineage_operators.model import LineageDataset
    from lineage_operators.quality.observe import QualityRun
    from lineage_operators.recorder import DatasetLike, LineageRecorder

DECLARED_FIELDS = ("inputs", "outputs")


class OpenLineageMixin:
    """Gives an operator a ``lineage`` recorder and the provider's three OpenLineage methods.

    Put it before the operator class: ``class MyOperator(OpenLineageMixin, BaseOperator)``.
    In ``execute`` call ``self.lineage.add_input("s3://bucket/key")`` (or ``add_output``,
    ``add_run_facet``, ``add_job_facet``). ``inputs=`` / ``outputs=`` declare datasets known
    before the run (templated); they and Airflow ``inlets`` / ``outlets`` are reported at start.
    """

    # Class-level defaults too: an operator may put the mixin in its bases without calling its
    # ``__init__`` (the provider's methods then find no declared dataset).
    inputs: Any = None
    outputs: Any = None
    #: ``data_quality=``: a :class:`~lineage_operators.quality.DataQuality` (checks per dataset).
    data_quality: Any = None
    _data_quality_run: QualityRun | None = None
    template_fields: Sequence[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Template ``inputs`` / ``outputs`` in every operator built on the mixin: its ``template_fields``
        tuple gets them appended, so a subclass lists only its own fields, as Airflow operators do."""
        super().__init_subclass__(**kwargs)
        fields = tuple(getattr(cls, "template_fields", ()))
        missing = tuple(name for name in DECLARED_FIELDS if name not in fields)
        if missing:
            cls.template_fields = (*fields, *missing)

    def __init__(
        self,
        *args: Any,
        inputs: DatasetLike | Sequence[DatasetLike] | None = None,
        outputs: DatasetLike | Sequence[DatasetLike] | None = None,
        data_quality: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.inputs = validate_declared(inputs, "inputs")
        self.outputs = validate_declared(outputs, "outputs")
        self.data_quality = validate_data_quality(data_quality, self) if data_quality is not None else None

    def render_template_fields(self, context: Any, jinja_env: Any = None) -> None:
        """Render as Airflow does, then register the secrets the rendered values hold with
        Airflow's masker, so the stored "Rendered Template" view shows ``***`` in their place."""
        super().render_template_fields(context, jinja_env)  # type: ignore[misc]
        mask_rendered_secrets(self)

    # -- recording -----------------------------------------------------------------------

    @property
    def lineage(self) -> LineageRecorder:
        """The recorder for the current run; created on first use."""
        recorder = self.__dict__.get("_lineage_recorder")
        if recorder is None:
            from lineage_operators.recorder import LineageRecorder

            recorder = LineageRecorder(self._lineage_label())
            self._lineage_recorder = recorder
        return recorder

    def reset_lineage(self) -> None:
        """Forget what an earlier run recorded; operators call it when ``execute`` starts."""
        from lineage_operators.recorder import LineageRecorder

        self._lineage_recorder = LineageRecorder(self._lineage_label())
        self._data_quality_run = None

    @contextlib.contextmanager
    def checking_data_quality(self, context: Any = None) -> Iterator[QualityRun | None]:
        """Evaluate the ``data_quality=`` checks on the writes of the block, in their own Spark jobs
        (``with self.checking_data_quality(context): df.write...``). The results join the task's
        lineage; with ``on_failure="fail"`` a failed check raises
        :class:`~lineage_operators.quality.report.DataQualityError` when the block ends."""
        if self.data_quality is None:
            yield None
            return
        from lineage_operators.capture_settings import capture_timeout
        from lineage_operators.quality.observe import checking
        from lineage_operators.quality.report import raise_if_failed
        from lineage_operators.quality.spec import rendered

        spec = self.data_quality
        if context is not None:  # templated like the other arguments, at run time
            spec = rendered(spec, lambda text: self.render_template(text, context))  # type: ignore[attr-defined]
        with checking(spec, capture_timeout()) as run:
            self._data_quality_run = run
            yield run
        raise_if_failed(run)

    @property
    def resolved_inputs(self) -> list[LineageDataset]:
        """Datasets this run actually read, resolved and de-duplicated, sorted."""
        return self.lineage.inputs

    @property
    def resolved_outputs(self) -> list[LineageDataset]:
        """Datasets this run actually wrote, resolved and de-duplicated, sorted."""
        return self.lineage.outputs

    # -- the provider's interface ----------------------------------------------------------

    def get_openlineage_facets_on_start(self) -> OperatorLineage | None:
        return self._operator_lineage("start", include_recorded=False)

    def get_openlineage_facets_on_complete(self, task_instance: Any) -> OperatorLineage | None:
        return self._operator_lineage("complete", include_recorded=True)

    def get_openlineage_facets_on_failure(self, task_instance: Any) -> OperatorLineage | None:
        # The provider adds the errorMessage facet itself; we report what was touched before.
        return self._operator_lineage("failure", include_recorded=True)

    def _operator_lineage(self, stage: str, *, include_recorded: bool) -> OperatorLineage | None:
        try:
            from airflow.providers.openlineage.extractors import OperatorLineage
        except ImportError:
            return None
        from lineage_operators.recorder import sorted_datasets

        label = self._lineage_label()
        try:
            declared = self._declared_lineage()
            inputs = [*declared.inputs]
            outputs = [*declared.outputs]
            run_facets: dict[str, Any] = {}
            job_facets: dict[str, Any] = {}
            recorder = self.__dict__.get("_lineage_recorder")
            if include_recorded and recorder is not None:
                from lineage_operators.quality.report import record_quality

                record_quality(recorder, self.__dict__.get("_data_quality_run"))
                inputs += recorder.inputs
                outputs += recorder.outputs
                run_facets.update(recorder.run_facets)
                job_facets.update(recorder.job_facets)
            return OperatorLineage(
                inputs=_to_openlineage(sorted_datasets(inputs), "input", label),
                outputs=_to_openlineage(sorted_datasets(outputs), "output", label),
                run_facets=run_facets,
                job_facets=job_facets,
            )
        except Exception as error:
            _log().warning(
                "Lineage of task %s: %s event lineage failed: %s", label, stage, error, exc_info=True
            )
            return OperatorLineage()

    def _declared_lineage(self) -> LineageRecorder:
        from lineage_operators.recorder import LineageRecorder

        declared = LineageRecorder(self._lineage_label())
        declared.add_inputs(_as_list(getattr(self, "inputs", None)))
        declared.add_outputs(_as_list(getattr(self, "outputs", None)))
        inlets, outlets = getattr(self, "inlets", None) or [], getattr(self, "outlets", None) or []
        if inlets or outlets:
            from airflow.providers.openlineage.extractors.manager import ExtractorManager

            for inlet in inlets:
                if (dataset := _convert_airflow_lineage(ExtractorManager, inlet)) is not None:
                    declared.add_input(dataset)
            for outlet in outlets:
                if (dataset := _convert_airflow_lineage(ExtractorManager, outlet)) is not None:
                    declared.add_output(dataset)
        return declared

    def _lineage_label(self) -> str:
        dag_id = getattr(self, "dag_id", None)
        task_id = getattr(self, "task_id", None) or type(self).__name__
        return f"{dag_id}.{task_id}" if dag_id else str(task_id)


def mask_rendered_secrets(task: Any) -> None:
    """``mask_secret`` every secret (by this library's redaction rules) in the task's template
    fields: Airflow's masker knows key names like ``password``, not ``fs.azure.account.key.*``,
    ``*.credentials`` or a password inside a JDBC URL value. Never raises."""
    try:
        from airflow.sdk.log import mask_secret
    except ImportError:
        return
    from lineage_operators.redaction import secret_values

    for field_name in getattr(task, "template_fields", ()):
        try:
            for secret in secret_values(getattr(task, field_name, None)):
                mask_secret(secret)
        except Exception as error:
            _log().warning(
                "could not mask the secrets of template field %s: %s", field_name, type(error).__name__
            )


def _convert_airflow_lineage(manager: Any, entity: Any) -> Any:
    try:
        return manager.convert_to_ol_dataset(entity)
    except Exception as error:
        _log().warning("Lineage: could not convert inlet/outlet %r: %s", entity, error)
        return None


def _log() -> logging.Logger:
    from lineage_operators._logging import get_logger

    return get_logger(__name__)


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    # a LineageDataset is not iterable: it is one dataset
    if isinstance(value, (str, Mapping)) or not isinstance(value, Iterable):
        return [value]
    if hasattr(value, "namespace"):
        return [value]
    return list(value)


def _to_openlineage(datasets: Iterable[LineageDataset], direction: str, label: str) -> list[Any]:
    """Build the provider's dataset objects one by one, so one bad facet loses one dataset only."""
    from airflow.providers.common.compat.openlineage.facet import InputDataset, OutputDataset

    is_input = direction == "input"
    dataset_class, extra = (InputDataset, "inputFacets") if is_input else (OutputDataset, "outputFacets")
    built: list[Any] = []
    for dataset in datasets:
        extra_facets = dataset.input_facets if is_input else dataset.output_facets
        try:
            built.append(
                dataset_class(
                    namespace=dataset.namespace,
                    name=dataset.name,
                    facets=dict(dataset.facets),
                    **{extra: dict(extra_facets)},
                )
            )
        except Exception as error:
            _log().warning(
                "Lineage of task %s: dropped %s dataset %s: %s", label, direction, dataset.uri, error
            )
    return built


def validate_data_quality(value: Any, task: Any) -> Any:
    """``data_quality=`` checked when the DAG is defined: a clear error naming the task."""
    from lineage_operators.quality.spec import data_quality_spec

    return data_quality_spec(value, owner=f"task {getattr(task, 'task_id', type(task).__name__)}")


def validate_declared(value: Any, argument: str) -> Any:
    """Check declared datasets when the DAG is defined, where a clear error helps most.

    Only the shape is checked here (no OpenLineage import at parse time); values are named at
    run time, after templates are rendered, where a bad value is a warning and not a failure.
    """
    for item in _as_list(value):
        # a LineageDataset passes the last check (str namespace and name) like any dataset object
        if isinstance(item, str):
            text = item.strip()
            if not text:
                raise ValueError(f"{argument}: empty dataset string")
            templated = "{{" in text or "{%" in text
            if (
                not templated
                and "://" not in text
                and ":" not in text.split("/", 1)[0]
                and not text.startswith("/")
            ):
                raise ValueError(
                    f"{argument}: {item!r} is neither an absolute path nor a URI; "
                    "use e.g. '/data/x', 's3://bucket/key', 'postgres://host:5432/db.schema.table', "
                    "or record tables with lineage.add_input(name, namespace=...)"
                )
            continue
        if isinstance(getattr(item, "namespace", None), str) and isinstance(getattr(item, "name", None), str):
            continue
        raise TypeError(
            f"{argument}: expected a path/URI string or a dataset with namespace and name, "
            f"got {type(item).__name__}: {item!r}"
        )
    return value
