"""A left-to-right layered layout of a DAG, computed once in Python so the browser only draws.

Why not a JavaScript layout library: the graph is known when the HTML is written, so laying it
out here keeps the page free of third-party code and of any build step (the wheel stays pure
Python), makes the layout a pure function tested like the rest, and keeps 2,500 nodes well
under the browser's 2 s budget (dagre-style layouts of that size take seconds client-side).

Method: cycles broken by a depth-first search, longest-path layering (sources pulled next to
their first consumer), a few barycenter sweeps to order each layer, then each node placed as
close as it can to the mean height of its neighbours without overlapping the one above.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["Position", "layout"]

N = TypeVar("N", bound=Hashable)


@dataclass(frozen=True)
class Position:
    layer: int
    x: float
    y: float


def _acyclic(nodes: Sequence[N], edges: Sequence[tuple[N, N]]) -> list[tuple[N, N]]:
    """The edges minus those closing a cycle (found by an iterative depth-first search)."""
    succ: dict[N, list[N]] = {n: [] for n in nodes}
    for u, v in edges:
        if u != v:
            succ[u].append(v)
    state: dict[N, int] = {}  # 1 = on the stack, 2 = done
    back: set[tuple[N, N]] = set()
    for root in nodes:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(succ[root]))]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                back.add((node, child))
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(succ[child])))
    return [(u, v) for u, v in edges if u != v and (u, v) not in back]


def _layers(nodes: Sequence[N], edges: Sequence[tuple[N, N]]) -> dict[N, int]:
    preds: dict[N, list[N]] = {n: [] for n in nodes}
    succ: dict[N, list[N]] = {n: [] for n in nodes}
    for u, v in edges:
        preds[v].append(u)
        succ[u].append(v)
    indegree = {n: len(preds[n]) for n in nodes}
    queue = [n for n in nodes if indegree[n] == 0]
    layer = {n: 0 for n in nodes}
    order = []
    while queue:
        node = queue.pop()
        order.append(node)
        for child in succ[node]:
            layer[child] = max(layer[child], layer[node] + 1)
            indegree[child] -= 1
            if indegree[child] == 0:
                queue.append(child)
    for node in nodes:  # a source sits just left of its nearest consumer, not in column 0
        if not preds[node] and succ[node]:
            layer[node] = max(0, min(layer[c] for c in succ[node]) - 1)
    return layer


def layout(
    nodes: Sequence[N],
    edges: Sequence[tuple[N, N]],
    heights: Mapping[N, float],
    *,
    column_width: float = 300.0,
    gap: float = 16.0,
    sweeps: int = 4,
) -> dict[N, Position]:
    """Positions (top-left corners) for ``nodes``; ``edges`` go left to right where they can."""
    kept = _acyclic(nodes, edges)
    layer = _layers(nodes, kept)
    neighbours: dict[N, list[N]] = {n: [] for n in nodes}
    for u, v in kept:
        neighbours[u].append(v)
        neighbours[v].append(u)
    columns: dict[int, list[N]] = {}
    for node in nodes:
        columns.setdefault(layer[node], []).append(node)
    ordered = [columns[k] for k in sorted(columns)]
    rank = {n: float(i) for column in ordered for i, n in enumerate(column)}

    def sweep(sequence: list[list[N]]) -> None:
        for column in sequence:
            for node in column:
                near = neighbours[node]
                if near:
                    rank[node] = sum(rank[m] for m in near) / len(near)
            column.sort(key=lambda n: rank[n])
            for i, node in enumerate(column):
                rank[node] = float(i)

    for i in range(sweeps):
        sweep(ordered if i % 2 == 0 else ordered[::-1])

    positions: dict[N, Position] = {}
    for index, column in enumerate(ordered):
        bottom = 0.0
        for node in column:
            placed = [positions[m].y + heights[m] / 2 for m in neighbours[node] if m in positions]
            wanted = sum(placed) / len(placed) - heights[node] / 2 if placed else bottom
            y = max(bottom, wanted)
            positions[node] = Position(layer[node], index * column_width, y)
            bottom = y + heights[node] + gap
    return positions
