"""The benchmarks' alternation: each side runs first in half of the measured rounds (no Spark)."""

from __future__ import annotations

from benchmarks.alternation import alternate, round_order


def test_the_order_turns_every_round() -> None:
    assert [round_order(("plain", "lineage"), n) for n in range(3)] == [
        ["plain", "lineage"],
        ["lineage", "plain"],
        ["plain", "lineage"],
    ]


def test_each_side_runs_first_in_half_of_the_measured_rounds_and_results_stay_per_side() -> None:
    calls: list[tuple[str, int]] = []

    def run(side: str, number: int) -> tuple[str, int]:
        calls.append((side, number))
        return side, number

    kept = alternate("test", 4, run, warmup_rounds=2, sides=("a", "b"), seconds_of=lambda _: 0.0)
    measured = [c for c in calls if c[1] >= 2]
    firsts = [measured[i][0] for i in range(0, len(measured), 2)]
    assert sorted(firsts) == ["a", "a", "b", "b"]
    assert kept == {"a": [("a", n) for n in range(2, 6)], "b": [("b", n) for n in range(2, 6)]}
