"""Plan reading dispatches from its tables, and the docs' supported-commands page is generated from
them (scripts/supported_commands.py): stale page, missing entry or wrong handler fail here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from lineage_operators.spark.facts import RelationFacts, TableRef
from lineage_operators.spark.plan import classes as c
from lineage_operators.spark.plan.alter import V1_ALTERS, V2_ALTERS
from lineage_operators.spark.plan.command_table import BY_CLASS, COMMANDS
from lineage_operators.spark.plan.commands import CommandOutputs
from lineage_operators.spark.plan.leaves import LEAVES, RELATIONS, InputReading

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "supported_commands", ROOT / "scripts" / "supported_commands.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["supported_commands"] = module
    spec.loader.exec_module(module)
    return module


def test_the_checked_in_page_is_the_generated_one() -> None:
    script = _script()
    assert script.PAGE.read_text(encoding="utf-8") == script.render(), (
        "run python scripts/supported_commands.py"
    )
    assert script.main(["--check"]) == 0


def test_every_command_class_has_one_entry_and_a_row() -> None:
    classes = [command.cls for command in COMMANDS]
    assert len(classes) == len(set(classes))
    expected = {c.INSERT_HADOOP, c.SAVE_INTO, c.RENAME, c.DROP_V1, c.DROP_V2, *c.V2_WRITES, *c.V2_CREATES}
    assert expected | set(V1_ALTERS) | set(V2_ALTERS) <= set(BY_CLASS)
    page = _script().render()
    for cls in [*classes, *LEAVES, *RELATIONS]:
        assert f"| `{cls.rsplit('.', 1)[1]}` | `{cls.rsplit('.', 1)[0]}` |" in page


class _Reader(CommandOutputs):
    """The catalog side of a reader, recorded instead of asked."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self._t, self._jss = None, None  # no JVM: no output here is a Delta table

    def _catalog_output(self, table: TableRef, lifecycle: str | None, with_schema: bool = True) -> list[Any]:
        self.calls.append((table, lifecycle, with_schema))
        return [RelationFacts(table=table, lifecycle=lifecycle)]

    def _dropped(self, table: TableRef, if_exists: bool) -> list[Any]:
        self.calls.append(("drop", table, if_exists))
        return [RelationFacts(table=table, lifecycle="DROP")]


def _outputs(reader: _Reader, cls: str, fields: list[str | None]) -> list[RelationFacts]:
    return reader._outputs(cls, fields, None, None, succeeded=True, inputs=[])


def test_the_root_class_picks_its_handler() -> None:
    reader = _Reader()
    [truncated] = _outputs(reader, c.TRUNCATE, ["db", "t"])
    assert (truncated.lifecycle, reader.calls) == ("TRUNCATE", [(TableRef("db", "t"), "TRUNCATE", False)])
    [renamed] = _outputs(reader, c.RENAME, ["db", "old", None, "new", "false"])
    assert (renamed.table, renamed.previous_table) == (TableRef("db", "new"), TableRef("db", "old"))
    assert _outputs(reader, c.RENAME, ["db", "v", None, "v2", "true"]) == []  # a view
    [dropped] = _outputs(reader, c.DROP_V2, ["spark_catalog", "db", "t", "true"])
    assert reader.calls[-1] == ("drop", TableRef("db", "t", None), True)
    assert dropped.lifecycle == "DROP"
    assert _outputs(reader, "org.apache.spark.sql.catalyst.plans.logical.Project", []) == []


def test_the_leaf_class_picks_its_parser() -> None:
    class Reading(InputReading):
        _redact_url = staticmethod(lambda url: url.split("?")[0])

    files = [c.HFR, "parquet", "file:/d/a.parquet\x1efile:/d/b.parquet", "file:/d", None, None, None]
    record = [c.LR, *files, None, "42"]
    [read] = Reading()._parse_leaf_datasets(record)
    assert (read.location, read.file_format, read.relation_id) == ("file:/d", "parquet", "42")
    jdbc = [c.LR, c.JDBC_REL, None, None, None, None, None, "jdbc:postgresql://h/db?password=x\x1cpublic.t"]
    [table] = Reading()._parse_leaf_datasets(jdbc)
    assert (table.jdbc_url, table.jdbc_table) == ("jdbc:postgresql://h/db", "public.t")
    assert Reading()._parse_leaf_datasets(["org.apache.spark.sql.catalyst.plans.logical.Range"]) == []


def test_a_failed_delta_write_is_not_given_the_tables_current_version() -> None:
    """Delta's version of a written table is read only after a write that succeeded."""
    asked: list[str] = []

    class DeltaReader(_Reader):
        def _catalog_output(
            self, table: TableRef, lifecycle: str | None, with_schema: bool = True
        ) -> list[Any]:
            return [
                RelationFacts(location="file:/lake/t", table=table, provider="delta", lifecycle=lifecycle)
            ]

    reader = DeltaReader()
    reader._t = type("Tools", (), {"java_class": staticmethod(asked.append)})()
    (failed,) = reader._outputs(c.TRUNCATE, ["db", "t"], None, None, succeeded=False, inputs=[])
    assert (failed.version, asked) == (None, [])
    reader._outputs(c.TRUNCATE, ["db", "t"], None, None, succeeded=True, inputs=[])
    assert asked == ["org.apache.spark.sql.delta.DeltaLog"]  # asked (and, here, not answered)
