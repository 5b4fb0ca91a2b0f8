"""Measure the package's import graph: modules per folder, import floors, circles and arrows back up.

Why: the ``spark/`` restructure (issue 38) is judged by these figures, and CI keeps them from sliding back
(``tests/unit/test_import_graph.py`` fails on any circle or arrow up). Standard library ``ast`` only, so it
runs without importing the package (and so without pyspark).

How imports are counted:

* **eager**: an import statement executed when the module is imported (module level, including inside
  module-level ``try``/``if``), except under ``if TYPE_CHECKING:``.
* **lazy**: an import inside a function or method body (runs on first call).
* **typing**: an import under ``if TYPE_CHECKING:`` (never executed, but a dependency all the same: a
  circle closed through one is still a circle, issue 53).
* ``from pkg import name`` is an edge to ``pkg.name`` when that is a module of the package, else to ``pkg``.
  The implicit import of a module's parent packages is not an edge (a package's ``__init__`` is its face).

Figures:

* **floors**: the number of modules on the longest chain of imports inside the package (a module importing
  nothing of the package is floor 1). Reported for eager edges, and for eager + lazy edges; the circle-free
  condensation is used so a circle counts as one floor.
* **circles**: strongly connected components of more than one module, over eager + lazy + typing edges.
* **arrows back up**: at every folder, its direct children (sub-folders and modules) are units; each import
  (of any kind) is an edge between the units holding its two ends. Units that import each other (a circle
  between units) mean one direction points back up: the direction with fewer imports is reported as the
  arrows up.

Usage: ``python scripts/import_graph.py [src/lineage_operators] [--json]``.
"""

from __future__ import annotations

import ast
import json
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PACKAGE = ROOT / "src" / "lineage_operators"


@dataclass
class Graph:
    """Modules of one package and their eager, lazy and typing import edges (module -> imported modules)."""

    package: str
    files: dict[str, Path] = field(default_factory=dict)
    eager: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    lazy: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    typing: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def all_edges(self) -> dict[str, set[str]]:
        run = self.run_edges()
        return {m: run[m] | self.typing.get(m, set()) for m in self.files}

    def run_edges(self) -> dict[str, set[str]]:
        """The imports that run (eager and lazy), for the floors."""
        return {m: self.eager.get(m, set()) | self.lazy.get(m, set()) for m in self.files}


def module_name(package_dir: Path, path: Path) -> str:
    parts = [package_dir.name, *path.relative_to(package_dir).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(tree: ast.AST, kind: str = "eager") -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
    """Yield each import statement with its kind: eager, lazy (inside a function) or typing (under
    ``if TYPE_CHECKING:``)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, kind
        elif isinstance(node, ast.If) and is_type_checking(node.test):
            yield from imports(ast.Module(body=node.body, type_ignores=[]), "typing")
            yield from imports(ast.Module(body=node.orelse, type_ignores=[]), kind)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from imports(node, "typing" if kind == "typing" else "lazy")
        else:
            yield from imports(node, kind)


def targets(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: set[str]
) -> Iterable[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name
        return
    base = node.module or ""
    if node.level:
        anchor = module.split(".")
        anchor = anchor if is_package else anchor[:-1]
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, base]) if base else ".".join(anchor)
    for alias in node.names:
        full = f"{base}.{alias.name}"
        yield full if full in known else base


def build(package_dir: Path = DEFAULT_PACKAGE) -> Graph:
    graph = Graph(package=package_dir.name)
    for path in sorted(package_dir.rglob("*.py")):
        graph.files[module_name(package_dir, path)] = path
    known = set(graph.files)
    for module, path in graph.files.items():
        tree = ast.parse(path.read_text(), str(path))
        edges = {"eager": graph.eager, "lazy": graph.lazy, "typing": graph.typing}
        for node, kind in imports(tree):
            for name in targets(node, module, path.name == "__init__.py", known):
                target = name
                while target not in known and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in known and target != module:
                    edges[kind][module].add(target)
    for module in list(graph.lazy):
        graph.lazy[module] -= graph.eager.get(module, set())
    for module in list(graph.typing):
        graph.typing[module] -= graph.eager.get(module, set()) | graph.lazy.get(module, set())
    return graph


def components(nodes: Iterable[str], edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components (Tarjan, iterative), each sorted; singletons included."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    result: list[list[str]] = []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                result.append(sorted(members))
    return result


def circles(graph: Graph) -> list[list[str]]:
    return sorted(c for c in components(graph.files, graph.all_edges()) if len(c) > 1)


def floors(graph: Graph, edges: dict[str, set[str]]) -> int:
    """Longest chain (in modules) over the condensation, so a circle counts once."""
    comps = components(graph.files, edges)
    owner = {m: i for i, comp in enumerate(comps) for m in comp}
    depth: dict[int, int] = {}
    for i, comp in enumerate(comps):  # Tarjan emits a component after everything it reaches
        below = [depth[owner[t]] for m in comp for t in edges.get(m, ()) if owner[t] != i]
        depth[i] = 1 + max(below, default=0)
    return max(depth.values(), default=0)


def unit(module: str, folder: str) -> str | None:
    """The direct child of ``folder`` that holds ``module`` (None when outside or the folder's face)."""
    if not module.startswith(folder + "."):
        return None
    return folder + "." + module[len(folder) + 1 :].split(".", 1)[0]


def folders(graph: Graph) -> list[str]:
    return sorted(m for m, p in graph.files.items() if p.name == "__init__.py")


def arrows_up(graph: Graph) -> list[tuple[str, str]]:
    """Import edges (module -> module) that point back up: the minority direction between two units."""
    edges = graph.all_edges()
    found: list[tuple[str, str]] = []
    for folder in folders(graph):
        between: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
        for source, imported in edges.items():
            for target in imported:
                a, b = unit(source, folder), unit(target, folder)
                if a and b and a != b:
                    between[(a, b)].append((source, target))
        unit_edges: dict[str, set[str]] = defaultdict(set)
        for a, b in between:
            unit_edges[a].add(b)
        units = {u for pair in between for u in pair}
        for comp in components(units, unit_edges):
            if len(comp) < 2:
                continue
            members = set(comp)
            inside = {
                pair: edges for pair, edges in between.items() if pair[0] in members and pair[1] in members
            }
            two_way = [(a, b) for (a, b) in inside if a < b and (b, a) in inside]
            for a, b in two_way:
                there, back = inside[(a, b)], inside[(b, a)]
                found.extend(there if len(there) < len(back) else back)
            if not two_way:  # a longer circle between units (a->b->c->a): every edge on it
                found.extend(p for edges in inside.values() for p in edges)
    return sorted(set(found))


def lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def report(graph: Graph) -> dict[str, object]:
    per_folder = {
        f: sum(1 for m, p in graph.files.items() if p.name != "__init__.py" and m.rsplit(".", 1)[0] == f)
        for f in folders(graph)
    }
    return {
        "modules": len(graph.files),
        "folders": len(per_folder),
        "modules_per_folder": per_folder,
        "floors_eager": floors(graph, {m: graph.eager.get(m, set()) for m in graph.files}),
        "floors_eager_and_lazy": floors(graph, graph.run_edges()),
        "circles": circles(graph),
        "arrows_up": [list(edge) for edge in arrows_up(graph)],
        "over_400_lines": {m: lines(p) for m, p in sorted(graph.files.items()) if lines(p) > 400},
    }


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    graph = build(Path(args[0]).resolve() if args else DEFAULT_PACKAGE)
    figures = report(graph)
    if "--json" in argv:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"modules: {figures['modules']}  folders: {figures['folders']}")
    for folder, count in figures["modules_per_folder"].items():  # type: ignore[attr-defined]
        print(f"  {folder}: {count}")
    print(f"floors: eager {figures['floors_eager']}, eager+lazy {figures['floors_eager_and_lazy']}")
    print(f"circles: {len(figures['circles'])}")  # type: ignore[arg-type]
    for circle in figures["circles"]:  # type: ignore[attr-defined]
        print("  " + " <-> ".join(circle))
    print(f"arrows up: {len(figures['arrows_up'])}")  # type: ignore[arg-type]
    for source, target in figures["arrows_up"]:  # type: ignore[attr-defined]
        print(f"  {source} -> {target}")
    print("modules over 400 lines:")
    for module, count in figures["over_400_lines"].items():  # type: ignore[attr-defined]
        print(f"  {module}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
