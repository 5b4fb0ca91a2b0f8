"""Plain data carried between recording, capture and facet building.

Nothing here imports OpenLineage: these objects live on the operator during ``execute``
and are read later by the provider in a forked child, so they must be cheap and picklable.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple


class DatasetName(NamedTuple):
    """An OpenLineage dataset identity: ``namespace`` plus ``name``."""

    namespace: str
    name: str

    @property
    def uri(self) -> str:
        """The dataset as one string, ``<namespace>/<name>`` per the naming spec (``file`` gets ``file://``)."""
        if self.namespace == "file":
            return f"file://{self.name}"
        return f"{self.namespace}/{self.name.lstrip('/')}" if self.name != "/" else self.namespace


@dataclass
class LineageDataset:
    """A resolved dataset with its facets.

    ``facets`` hold OpenLineage dataset facets (``openlineage.client.facet_v2`` objects) keyed
    by facet name; ``input_facets`` / ``output_facets`` the direction-specific ones.
    """

    namespace: str
    name: str
    facets: dict[str, Any] = field(default_factory=dict)
    input_facets: dict[str, Any] = field(default_factory=dict)
    output_facets: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> DatasetName:
        return DatasetName(self.namespace, self.name)

    @property
    def uri(self) -> str:
        return self.key.uri

    def merged_with(self, other: LineageDataset) -> LineageDataset:
        """Union of facets for two records of the same dataset; ``other`` wins on conflicts."""
        return LineageDataset(
            self.namespace,
            self.name,
            {**self.facets, **other.facets},
            {**self.input_facets, **other.input_facets},
            {**self.output_facets, **other.output_facets},
        )


def sorted_datasets(datasets: Iterable[LineageDataset]) -> list[LineageDataset]:
    """Merge duplicates by (namespace, name) and sort, so events are deterministic.

    Here, beside the type, so the classic capture merges results without importing the recorder."""
    merged: dict[tuple[str, str], LineageDataset] = {}
    for dataset in datasets:
        known = merged.get(dataset.key)
        merged[dataset.key] = known.merged_with(dataset) if known else dataset
    return [merged[key] for key in sorted(merged)]
