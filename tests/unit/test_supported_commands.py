"""Plan reading dispatches from its tables, and the docs' supported-commands page is generated from
them (scripts/supported_commands.py): stale page, missing entry or wrong handler fail here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from lineage_operators.spark.facts import RelationFacts, TableRef
from lineage_operators.spark.jvm import spark_classes as c
from lineage_operators.spark.plan.alter import V1_ALTERS, V2_ALTERS
from lineage_operators.spark.plan.command_table import BY_CLASS, COMMANDS
from lineage_operators.spark.plan.commands import Call
from lineage_operators.spark.plan.leaves import LEAVES, RELATIONS, InputReading
from lineage_operators.spark.plan.outputs import CatalogOutputs, CommandOutputs, build_root_reader

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
        self._delta_commits_counted = set()

    def catalog_output(self, table: TableRef, lifecycle: str | None, with_schema: bool = True) -> list[Any]:
        self.calls.append((table, lifecycle, with_schema))
        return [RelationFacts(table=table, lifecycle=lifecycle)]

    def dropped(self, table: TableRef, if_exists: bool) -> list[Any]:
        self.calls.append(("drop", table, if_exists))
        return [RelationFacts(table=table, lifecycle="DROP")]


def _outputs(reader: _Reader, cls: str, values: dict[str, str | None]) -> list[RelationFacts]:
    return reader.outputs(Call(cls, values))


def test_the_root_class_picks_its_handler() -> None:
    reader = _Reader()
    [truncated] = _outputs(reader, c.TRUNCATE, {"table.database": "db", "table.table": "t"})
    assert (truncated.lifecycle, reader.calls) == ("TRUNCATE", [(TableRef("db", "t"), "TRUNCATE", False)])
    old = {"old.database": "db", "old.table": "old", "new.database": None, "new.table": "new"}
    [renamed] = _outputs(reader, c.RENAME, {**old, "view": "false"})
    assert (renamed.table, renamed.previous_table) == (TableRef("db", "new"), TableRef("db", "old"))
    assert _outputs(reader, c.RENAME, {**old, "view": "true"}) == []  # a view
    drop = {"table.catalog": "spark_catalog", "table.namespace": "db", "table.name": "t", "if_exists": "true"}
    [dropped] = _outputs(reader, c.DROP_V2, drop)
    assert reader.calls[-1] == ("drop", TableRef("db", "t", None), True)
    assert dropped.lifecycle == "DROP"
    assert _outputs(reader, "org.apache.spark.sql.catalyst.plans.logical.Project", {}) == []


class _Anything:
    """A stand-in for the JVM tools, the plan and its nodes: every attribute and call is itself."""

    def __getattr__(self, name: str) -> Any:
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self


class _Asked(dict[str, "str | None"]):
    """Field values that record the names a handler asks for."""

    def __init__(self, values: dict[str, str | None]) -> None:
        super().__init__(values)
        self.asked: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        self.asked.add(key)
        return super().get(key, default)


class _Context:
    """A handler's context that answers every lookup with one output."""

    def __getattr__(self, name: str) -> Any:  # catalog_output, dropped, read_leaf, plan_inputs, ...
        return lambda *args, **kwargs: [RelationFacts(location="file:/t")]

    def with_stats(self, rel: RelationFacts, call: Call) -> RelationFacts:
        return rel

    def jdbc(self, *args: Any) -> RelationFacts:
        return RelationFacts(jdbc_url="jdbc:h2:mem:x")

    def default_location(self, table: TableRef) -> str:
        return "file:/wh/t"


def test_every_field_a_handler_reads_is_one_its_command_names() -> None:
    """The root reader reads each command's fields by name (the names of its entry, in order), and no
    handler asks for a name its entry does not read (which would always be None)."""
    root = build_root_reader(_Anything())  # type: ignore[arg-type]
    assert root.names[c.TRUNCATE] == ("table.database", "table.table")
    assert root.values(c.TRUNCATE, ["db"]) == {"table.database": "db", "table.table": None}
    assert root.values("no.such.Command", ["x"]) == {}
    for command in COMMANDS:
        names = root.names.get(command.cls, ())
        assert (command.fields is None) == (not names), command.cls
        for value in (None, "true", "jdbc:h2:mem:x"):
            values = _Asked(dict.fromkeys(names, value))
            command.handle(_Context(), Call(command.cls, values, plan=_Anything(), succeeded=True))  # type: ignore[arg-type]
            assert values.asked <= set(names), (command.cls, values.asked - set(names))


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
        def catalog_output(
            self, table: TableRef, lifecycle: str | None, with_schema: bool = True
        ) -> list[Any]:
            return [
                RelationFacts(location="file:/lake/t", table=table, provider="delta", lifecycle=lifecycle)
            ]

    reader = DeltaReader()
    reader._t = type("Tools", (), {"java_class": staticmethod(asked.append)})()
    table = {"table.database": "db", "table.table": "t"}
    (failed,) = reader.outputs(Call(c.TRUNCATE, table, succeeded=False))
    assert (failed.version, asked) == (None, [])
    reader.outputs(Call(c.TRUNCATE, table, succeeded=True))
    assert asked == ["org.apache.spark.sql.delta.DeltaLog"]  # asked (and, here, not answered)


def test_an_alter_is_read_with_one_catalog_lookup() -> None:
    """The task may rename the table while the ALTER is read: the output is made of the one lookup
    that found it (a second lookup raised and lost the ALTER, seen once on a loaded CI machine)."""

    class Renamed(CatalogOutputs):
        """A catalog whose table is renamed right after its first lookup."""

        def __init__(self) -> None:
            self.lookups = 0

        def _lookup(self, table: TableRef) -> tuple[TableRef | None, str | None, str | None, str | None]:
            self.lookups += 1
            if self.lookups > 1:
                raise LookupError("table or view not found")
            return table, "file:/wh/db.db/t", "parquet", "a:string"

    [altered] = Renamed().altered_session_table(TableRef("db", "t"))
    found = (altered.location, altered.schema_text, altered.lifecycle)
    assert found == ("file:/wh/db.db/t", "a:string", "ALTER")
