"""The package's import graph has no circle and no arrow back up (scripts/import_graph.py, issue 38)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts" / "import_graph.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["import_graph"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "pkg"


def test_the_package_has_no_circle_and_no_arrow_up() -> None:
    script = _script()
    graph = script.build()
    assert script.circles(graph) == []
    assert script.arrows_up(graph) == []


def test_no_flat_folder_under_spark_and_every_long_module_says_why() -> None:
    """spark/ keeps at most 12 modules per folder (issue 38); a module over 400 lines states in its
    docstring (a ``Size:`` paragraph) why it is one module."""
    import ast

    script = _script()
    graph = script.build()
    figures = script.report(graph)
    crowded = {
        f: n for f, n in figures["modules_per_folder"].items() if f.startswith("lineage_operators.spark")
    }
    assert crowded
    assert max(crowded.values()) <= 12, crowded
    unexplained = [
        module
        for module in figures["over_400_lines"]
        if "\nSize: " not in "\n" + (ast.get_docstring(ast.parse(graph.files[module].read_text())) or "")
    ]
    assert unexplained == []


def test_a_circle_is_found_through_lazy_and_relative_imports(tmp_path: Path) -> None:
    script = _script()
    package = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from pkg import b\n",
            "b.py": "def f():\n    from . import a\n",
            "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n",
            "d.py": "import typing\nif typing.TYPE_CHECKING:\n    from pkg.e import E\n",
            "e.py": "from pkg import d\n",
        },
    )
    graph = script.build(package)
    # a circle closed through a type-only import is a circle too (issue 53)
    assert script.circles(graph) == [["pkg.a", "pkg.b"], ["pkg.d", "pkg.e"]]
    assert graph.eager["pkg.a"] == {"pkg.b"}
    assert graph.lazy["pkg.b"] == {"pkg.a"}
    assert "pkg.c" not in graph.eager  # type-only imports never run
    assert graph.typing["pkg.c"] == {"pkg.a"}
    assert script.floors(graph, {m: graph.eager.get(m, set()) for m in graph.files}) == 2


def test_an_arrow_up_is_the_minority_direction_between_folders(tmp_path: Path) -> None:
    script = _script()
    package = _package(
        tmp_path,
        {
            "__init__.py": "",
            "top.py": "from pkg.low import w, x\n",
            "low/__init__.py": "",
            "low/w.py": "",
            "low/x.py": "",
            "low/y.py": "def f():\n    from pkg.top import z\n",
        },
    )
    graph = script.build(package)
    assert script.circles(graph) == []  # no module circle: top -> w, x; y -> top
    assert script.arrows_up(graph) == [("pkg.low.y", "pkg.top")]
    figures = script.report(graph)
    assert figures["modules_per_folder"] == {"pkg": 1, "pkg.low": 3}


def test_classic_and_connect_sit_side_by_side() -> None:
    """The Spark Connect capture shares the contract (facts, resolve, attribution, tables' memory)
    and never imports a step of the classic capture, nor the classic capture imports it."""
    script = _script()
    graph = script.build()
    classic = ("jvm", "session", "listen", "plan", "rdd", "capture")
    edges = graph.all_edges()

    def within(module: str, *folders: str) -> bool:
        return any(module == f or module.startswith(f + ".") for f in folders)

    connect_to_classic = sorted(
        (module, target)
        for module, targets in edges.items()
        if within(module, "lineage_operators.spark.connect")
        for target in targets
        if within(target, *(f"lineage_operators.spark.{step}" for step in classic))
    )
    assert connect_to_classic == []
    classic_to_connect = sorted(
        (module, target)
        for module, targets in edges.items()
        if within(module, *(f"lineage_operators.spark.{step}" for step in classic if step != "capture"))
        for target in targets
        if within(target, "lineage_operators.spark.connect")
    )
    assert classic_to_connect == []


def _reached(edges: dict[str, set[str]], start: str) -> dict[str, str | None]:
    """Every module ``start`` imports, directly or through others: module -> the module that imports it."""
    seen: dict[str, str | None] = {start: None}
    todo = [start]
    while todo:
        module = todo.pop()
        for target in sorted(edges.get(module, ())):
            if target not in seen:
                seen[target] = module
                todo.append(target)
    return seen


def test_connect_reaches_nothing_classic_through_the_contract() -> None:
    """No Spark Connect module reaches a classic step through any chain of imports (the contract it shares
    with the classic capture, ``resolve`` first, imports none): the chain is printed when one does."""
    script = _script()
    graph = script.build()
    edges = graph.all_edges()
    classic = tuple(
        f"lineage_operators.spark.{step}" for step in ("jvm", "session", "listen", "plan", "rdd", "capture")
    )
    chains = []
    for module in sorted(m for m in graph.files if m.startswith("lineage_operators.spark.connect")):
        reached = _reached(edges, module)
        for target in sorted(reached):
            if any(target == c or target.startswith(c + ".") for c in classic):
                chain = [target]
                while reached[chain[-1]] is not None:
                    chain.append(reached[chain[-1]])  # type: ignore[arg-type]
                chains.append(" -> ".join(reversed(chain)))
    assert chains == []


def test_resolve_imports_only_the_contract_within_spark() -> None:
    """``spark/resolve.py``, the step both captures share, imports of ``spark/`` only the contract: the
    facts, the session facts, the passes over facts and the table formats' facets (outside ``spark/``:
    naming, facets, column lineage and the package's own utilities); nor do those import more of it."""
    script = _script()
    edges = script.build().all_edges()
    contract = {f"lineage_operators.spark.{m}" for m in ("facts", "session_facts", "passes", "table_facets")}
    inside_spark = {
        t for t in edges["lineage_operators.spark.resolve"] if t.startswith("lineage_operators.spark")
    }
    assert inside_spark <= contract, inside_spark - contract
    for module in contract:
        assert {t for t in edges[module] if t.startswith("lineage_operators.spark")} <= contract, module
