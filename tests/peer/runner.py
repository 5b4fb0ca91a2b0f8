"""Run corpus jobs in one SparkSession that has both listeners: openlineage-spark's and our capture.

Per job: its setup runs first (outside the capture, the jar's events of it forgotten), then its body
under our capture; when the capture has stopped and Spark's listener bus is empty, the jar's events
of the body are read from its transport file. Both sides become plain OpenLineage dictionaries and
:mod:`tests.peer.comparison` lists their differences. A body that raises (the corpus's failed jobs)
is compared the same way: both sides report what the failed job touched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.peer.comparison import ON_DISK, Difference, dataset_differences, dataset_views, job_differences
from tests.peer.corpus import Job, Workspace
from tests.peer.peer_events import EventFile, PeerEvents

#: The jar's namespace for its own jobs (its datasets are named by their storage, as ours are).
PEER_NAMESPACE = "peer"
BUS_WAIT_MS = 30_000


def peer_conf(jar: Path, events: Path) -> dict[str, str]:
    """The SparkSession settings that load openlineage-spark with its file transport, as its docs say."""
    return {
        "spark.jars": str(jar),
        "spark.extraListeners": "io.openlineage.spark.agent.OpenLineageSparkListener",
        "spark.openlineage.transport.type": "file",
        "spark.openlineage.transport.location": str(events),
        "spark.openlineage.namespace": PEER_NAMESPACE,
        "spark.openlineage.columnLineage.datasetLineageEnabled": "true",
    }


@dataclass
class Outcome:
    """One job's two sides, as compared, and what differed."""

    job: str
    ours: dict[str, dict[str, Any]]
    jar: dict[str, dict[str, Any]]
    differences: list[Difference]
    jar_event_types: list[str] = field(default_factory=list)
    error: str | None = None


def serialize(dataset: Any) -> dict[str, Any]:
    """A capture's ``LineageDataset`` as the OpenLineage dictionary an event would carry."""
    from openlineage.client.serde import Serde

    def facets(values: dict[str, Any]) -> dict[str, Any]:
        return {name: Serde.to_dict(facet) for name, facet in values.items()}

    return {
        "namespace": dataset.namespace,
        "name": dataset.name,
        "facets": facets(dataset.facets),
        "inputFacets": facets(dataset.input_facets),
        "outputFacets": facets(dataset.output_facets),
    }


def _our_job_facets(result: Any) -> dict[str, Any]:
    from openlineage.client.serde import Serde

    from lineage_operators.spark.facts import SPARK_ENGINE_FACET

    facets = {**result.run_facets, **result.job_facets}
    # ours is keyed spark_processingEngine: Airflow's provider emits its own processing_engine facet
    named = {"sql": facets.get("sql"), "processing_engine": facets.get(SPARK_ENGINE_FACET)}
    return {name: Serde.to_dict(facet) for name, facet in named.items() if facet is not None}


def _wait_for_bus(spark: Any) -> None:
    spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(BUS_WAIT_MS)


def run_job(spark: Any, job: Job, workspace: Workspace, events: EventFile) -> Outcome:
    from lineage_operators.spark.capture.chooser import new_capture

    job.setup(spark, workspace)
    _wait_for_bus(spark)
    events.mark()
    capture = new_capture(spark, timeout=60.0)
    capture.start()
    error = None
    try:
        job.body(spark, workspace)
    except Exception as raised:
        error = f"{type(raised).__name__}: {str(raised).splitlines()[0] if str(raised) else ''}"
    finally:
        result = capture.stop()
    _wait_for_bus(spark)
    peer = events.take()
    return compare(job.name, result, peer, error)


def data_files(path: Path) -> int:
    """Files a write left under ``path``: Spark's markers, checksums and metadata folders (``_*``, ``.*``,
    such as a stream file sink's ``_spark_metadata/<batch>``) aside."""
    if path.is_file():
        return 1
    return sum(
        1
        for f in path.rglob("*")
        if f.is_file() and not any(part.startswith(("_", ".")) for part in f.relative_to(path).parts)
    )


#: Table formats whose folder keeps every version's data files and its metadata: the files there
#: are not the write's, so their count says nothing of our ``fileCount``.
TABLE_FORMAT_LAYERS = ("delta", "iceberg")


def disk_differences(job: str, ours: dict[str, dict[str, Any]]) -> list[Difference]:
    """Our plain file outputs' ``fileCount`` against the files really there (after a job that
    succeeded); Delta and Iceberg outputs are not counted on disk (:data:`TABLE_FORMAT_LAYERS`)."""
    found = []
    for key, view in ours.items():
        direction, _, dataset = key.partition(" ")
        count = (view.get("outputStatistics") or {}).get("fileCount")
        if direction != "output" or count is None or not dataset.startswith("file:"):
            continue
        if (view.get("storage") or {}).get("storageLayer") in TABLE_FORMAT_LAYERS:
            continue
        path = Path(dataset.removeprefix("file:"))
        if path.exists() and data_files(path) != count:
            found.append(Difference(job, key, ON_DISK, count, data_files(path)))
    return found


def compare(name: str, result: Any, peer: PeerEvents, error: str | None = None) -> Outcome:
    ours = {
        **dataset_views([serialize(d) for d in result.inputs], "input"),
        **dataset_views([serialize(d) for d in result.outputs], "output"),
    }
    jar = {
        **dataset_views(peer.datasets("inputs"), "input"),
        **dataset_views(peer.datasets("outputs"), "output"),
    }
    differences = dataset_differences(name, ours, jar) + job_differences(
        name, _our_job_facets(result), peer.job_facets()
    )
    if error is None:
        differences += disk_differences(name, ours)
    return Outcome(name, ours, jar, differences, peer.event_types(), error)
