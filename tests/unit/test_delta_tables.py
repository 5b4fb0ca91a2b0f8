"""The pure parts of Delta support (spark/tables/delta.py): the version read or written, the schema taken
from Delta's log when the catalog has none (its log is never an input: tests/unit/test_passes.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from lineage_operators.spark.facts import RelationFacts
from lineage_operators.spark.tables import delta


def test_a_delta_read_gets_its_provider_and_version() -> None:
    facts = [RelationFacts(location="file:/t")]
    assert delta.with_read_version(facts, "3")[0].version == "3"
    assert facts[0].provider == "delta"
    plain = [RelationFacts(location="file:/p", provider="parquet")]
    assert delta.with_read_version(plain, delta.NONE)[0].version is None
    assert plain[0].provider == "parquet"


class _Tools:
    """``java_class(DeltaLog)`` answering from a dict of location -> (version, schema JSON)."""

    def __init__(self, tables: dict[str, tuple[int, str]]) -> None:
        self.tables = tables
        self.asked: list[str] = []

    def java_class(self, name: str) -> Any:
        assert name == delta.DELTA_LOG

        def for_table(jss: Any, location: str) -> Any:
            self.asked.append(location)
            if location not in self.tables:
                raise RuntimeError("not a Delta table")
            version, schema = self.tables[location]
            snapshot = SimpleNamespace(
                version=lambda: version, schema=lambda: SimpleNamespace(json=lambda: schema)
            )
            return SimpleNamespace(unsafeVolatileSnapshot=lambda: snapshot)

        return SimpleNamespace(forTable=for_table)


SCHEMA = '{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]}'
EMPTY = '{"type":"struct","fields":[]}'


def test_a_written_delta_table_gets_the_version_made_and_its_logs_schema() -> None:
    tools = _Tools({"file:/t": (4, SCHEMA), "file:/new": (-1, EMPTY)})
    outputs = [
        RelationFacts(location="file:/t", provider="delta", schema_text=EMPTY, version="2"),
        RelationFacts(location="file:/p", provider="parquet"),
        RelationFacts(location="file:/gone", provider="delta", lifecycle="DROP"),
        RelationFacts(location="file:/new", provider="delta"),
        RelationFacts(location="file:/broken", provider="delta", schema_text=SCHEMA),
    ]
    written, plain, dropped, new, broken = delta.complete_written(tools, None, outputs)
    assert (written.version, written.schema_text) == ("4", SCHEMA)
    assert (plain.version, new.version, broken.version, broken.schema_text) == (None, None, None, SCHEMA)
    assert dropped.version is None
    assert tools.asked == ["file:/t", "file:/new", "file:/broken"]  # no JVM call for other outputs


def test_a_schema_the_catalog_knows_is_kept() -> None:
    tools = _Tools({"file:/t": (1, SCHEMA)})
    known = '{"type":"struct","fields":[{"name":"kept","type":"string","nullable":true,"metadata":{}}]}'
    (rel,) = delta.complete_written(
        tools, None, [RelationFacts(location="file:/t", provider="delta", schema_text=known)]
    )
    assert (rel.version, rel.schema_text) == ("1", known)
