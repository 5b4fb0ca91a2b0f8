"""An OpenLineage transport that keeps a DAG run's events for its assertion task.

Configured next to the deployment's real transport, e.g. in ``[openlineage] transport``::

    {"type": "composite", "transports": {
        "marquez": {"type": "http", "url": "..."},
        "assertions": {"type": "lineage_operators.testing.EventStoreTransport",
                       "directory": "/shared/lineage-assertions"}}}

The directory must be one that the scheduler and every worker can write to. Only runs of DAGs
with an :class:`~lineage_operators.testing.assertion.AssertLineageOperator` are kept, each until
the run ends (:mod:`.event_store`). Storing never raises into the emitting task: a failure is a warning.
"""

from __future__ import annotations

import json
from typing import Any

import attr
from openlineage.client.serde import Serde
from openlineage.client.transport.transport import Config, Transport

from lineage_operators._logging import get_logger
from lineage_operators.testing.event_store import EventStore

__all__ = ["EventStoreConfig", "EventStoreTransport", "find_store_directory"]

log = get_logger(__name__)


@attr.define
class EventStoreConfig(Config):
    directory: str

    @classmethod
    def from_dict(cls, params: dict[str, Any]) -> EventStoreConfig:
        directory = params.get("directory")
        if not isinstance(directory, str) or not directory:
            raise ValueError("EventStoreTransport needs 'directory': a folder every Airflow process writes")
        return cls(directory=directory)


class EventStoreTransport(Transport):
    """An openlineage-python transport that keeps the events of the DAG runs an
    :class:`~lineage_operators.testing.AssertLineageOperator` checks, one file per run in ``directory``,
    for that task to read; other DAGs' events are never written."""

    kind = "lineage_operators_event_store"
    config_class = EventStoreConfig

    def __init__(self, config: EventStoreConfig) -> None:
        self.config = config
        self.store = EventStore(config.directory)

    def emit(self, event: Any) -> None:
        try:
            self.store.handle(json.loads(Serde.to_json(event)))
        except Exception as exc:  # lineage must never fail the task that emits it
            log.warning("could not keep an OpenLineage event in %s: %s", self.store.directory, exc)


def find_store_directory(transport: Any) -> str | None:
    """The directory of the :class:`EventStoreTransport` in ``transport`` (itself or a composite's child)."""
    if isinstance(transport, EventStoreTransport):
        return transport.config.directory
    for child in getattr(transport, "transports", None) or ():
        found = find_store_directory(child)
        if found is not None:
            return found
    return None
