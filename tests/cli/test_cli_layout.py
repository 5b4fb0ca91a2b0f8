"""The layered layout: left to right along edges, no overlap in a column, cycles survive."""

from __future__ import annotations

import itertools

import pytest

from lineage_operators.cli.layout import layout


def _check(nodes: list[str], edges: list[tuple[str, str]], heights: dict[str, float]) -> dict:
    positions = layout(nodes, edges, heights, column_width=100, gap=10)
    assert set(positions) == set(nodes)
    by_x: dict[float, list[str]] = {}
    for node, pos in positions.items():
        by_x.setdefault(pos.x, []).append(node)
    for column in by_x.values():
        column.sort(key=lambda n: positions[n].y)
        for upper, lower in itertools.pairwise(column):
            assert positions[upper].y + heights[upper] + 10 <= positions[lower].y + 1e-9, (upper, lower)
    return positions


@pytest.mark.parametrize(
    ("nodes", "edges"),
    [
        (["a", "j", "b"], [("a", "j"), ("j", "b")]),
        (["a", "b", "j1", "c", "j2", "d"], [("a", "j1"), ("b", "j1"), ("j1", "c"), ("c", "j2"), ("j2", "d")]),
        (
            ["s", "j1", "x", "j2", "y", "j3", "z"],
            [("s", "j1"), ("j1", "x"), ("x", "j2"), ("j2", "y"), ("y", "j3"), ("s", "j3"), ("j3", "z")],
        ),
    ],
)
def test_every_edge_goes_left_to_right(nodes: list[str], edges: list[tuple[str, str]]) -> None:
    positions = _check(nodes, edges, dict.fromkeys(nodes, 30.0))
    for u, v in edges:
        assert positions[u].x < positions[v].x, (u, v)


def test_a_source_sits_next_to_its_consumer_not_in_the_first_column() -> None:
    nodes = ["a", "j1", "b", "j2", "c", "late_source"]
    edges = [("a", "j1"), ("j1", "b"), ("b", "j2"), ("late_source", "j2"), ("j2", "c")]
    positions = _check(nodes, edges, dict.fromkeys(nodes, 20.0))

    assert positions["late_source"].x == positions["b"].x


def test_cycles_and_self_loops_are_laid_out() -> None:
    nodes = ["t", "job", "u"]
    edges = [("t", "job"), ("job", "t"), ("job", "job"), ("job", "u")]
    positions = _check(nodes, edges, {"t": 50, "job": 20, "u": 30})

    assert positions["job"].x < positions["u"].x


def test_many_nodes_stack_without_overlap_and_follow_their_neighbours() -> None:
    nodes = [f"d{i}" for i in range(30)] + ["j"] + [f"o{i}" for i in range(3)]
    edges = [(f"d{i}", "j") for i in range(30)] + [("j", f"o{i}") for i in range(3)]
    heights = {n: 10.0 + (i % 4) * 12 for i, n in enumerate(nodes)}
    positions = _check(nodes, edges, heights)
    sources_mid = sum(positions[f"d{i}"].y + heights[f"d{i}"] / 2 for i in range(30)) / 30

    assert abs(positions["j"].y + heights["j"] / 2 - sources_mid) < 1
