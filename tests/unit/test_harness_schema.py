"""validate_event(s) against the official OpenLineage schemas in the shared spec directory."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from lineage_operators.testing import (
    load_events,
    validate_event,
    validate_events,
)
from lineage_operators.testing.schema import schema_errors

SAMPLE = Path(__file__).parent / "harness_fixtures" / "sample_events.jsonl"
EXTRACT = "etl.daily.extract.event.complete"


@pytest.fixture
def event() -> dict[str, Any]:
    return copy.deepcopy(load_events(SAMPLE)[EXTRACT][0])


def _facet(**fields: Any) -> dict[str, Any]:
    return {"_producer": "https://example.com/p", "_schemaURL": "https://example.com/s#/x", **fields}


def test_real_provider_events_are_valid() -> None:
    validate_events(load_events(SAMPLE))
    validate_events(SAMPLE)


def test_missing_producer_and_bad_run_id(event: dict[str, Any]) -> None:
    del event["producer"]
    event["run"]["runId"] = "not-a-uuid"

    errors = schema_errors(event)
    assert "(event): 'producer' is a required property" in errors
    assert "run.runId: 'not-a-uuid' is not a 'uuid'" in errors


def test_known_facet_is_checked_against_its_own_schema(event: dict[str, Any]) -> None:
    event["outputs"][0]["facets"]["schema"]["fields"] = "id long"
    event["run"]["facets"]["parent"]["job"] = {"namespace": "default"}
    event["inputs"][0]["inputFacets"] = {"inputStatistics": _facet(rowCount="many")}
    event["outputs"][0]["outputFacets"] = {"outputStatistics": _facet(rowCount=3)}

    errors = schema_errors(event)
    assert "outputs[0].facets.schema.fields: 'id long' is not of type 'array'" in errors
    assert "run.facets.parent.job: 'name' is a required property" in errors
    assert "inputs[0].inputFacets.inputStatistics.rowCount: 'many' is not of type 'integer'" in errors
    assert not any(e.startswith("outputs[0].outputFacets") for e in errors)


def test_same_facet_name_is_checked_by_place(event: dict[str, Any]) -> None:
    """``ownership`` is a job facet and a dataset facet with different schemas."""
    event["job"]["facets"]["ownership"]["owners"] = [{"type": "MAINTAINER"}]
    event["inputs"][0]["facets"]["ownership"] = _facet(owners=[{"name": "team"}])

    errors = schema_errors(event)
    assert errors == ["job.facets.ownership.owners[0]: 'name' is a required property"]


def test_custom_facet_is_checked_against_the_base_facet_only(event: dict[str, Any]) -> None:
    event["run"]["facets"]["myCompany_thing"] = _facet(anything={"goes": [1, 2]})
    assert schema_errors(event) == []

    event["run"]["facets"]["myCompany_thing"] = {"anything": 1}
    errors = schema_errors(event)
    assert "run.facets.myCompany_thing: '_producer' is a required property" in errors
    assert "run.facets.myCompany_thing: '_schemaURL' is a required property" in errors


def test_validate_events_lists_every_error_with_its_event_key(event: dict[str, Any]) -> None:
    events = load_events(SAMPLE)
    del events[EXTRACT][0]["producer"]
    events["etl.daily.event.start"][0]["eventType"] = "BEGIN"

    with pytest.raises(AssertionError) as info:
        validate_events(events)
    message = str(info.value)
    assert message.startswith("2 OpenLineage schema error(s):")
    assert f"{EXTRACT}: (event): 'producer' is a required property" in message
    assert "etl.daily.event.start: eventType: 'BEGIN' is not one of" in message


def test_validate_event_raises_and_accepts(event: dict[str, Any]) -> None:
    validate_event(event)
    event["job"] = {"namespace": "x"}
    with pytest.raises(AssertionError, match="job: 'name' is a required property"):
        validate_event(event)
