"""A B, B A, A B ...: both sides share every slow drift of a busy machine, so their ratio stays honest.

Absolute seconds on a shared 2-core machine move by tens of percent as other jobs come and go;
running the sides alternately and comparing medians cancels most of that. The order turns every
round (counterbalanced): in one JVM both sides keep getting faster for several rounds as its JIT
compiler warms up, and with a fixed order the side that always runs second would always run on a
warmer JVM (under a linear drift, each side's mean position is now the same).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from benchmarks.sides import SIDES

T = TypeVar("T")


def alternate(
    label: str,
    rounds: int,
    run: Callable[[str, int], T],
    *,
    warmup_rounds: int = 0,
    sides: Sequence[str] = SIDES,
    seconds_of: Callable[[T], float] | None = None,
    concurrent: bool = False,
    concurrent_warmup: bool = False,
) -> dict[str, list[T]]:
    """Call ``run(side, round)`` for each side in turn, ``warmup_rounds + rounds`` times, in
    ``sides`` order in even rounds and reversed in odd ones (:func:`round_order`).

    Warm-up rounds (JVM start, JIT, page cache) are run the same way and discarded.
    ``concurrent`` runs a round's sides at the same time instead (only for ``--tiny``, where
    timings mean nothing and the subprocess benchmarks would otherwise dominate the smoke test);
    ``concurrent_warmup`` does so for the warm-up rounds only.
    """
    kept: dict[str, list[T]] = {side: [] for side in sides}
    total = warmup_rounds + rounds

    def timed(side: str, number: int) -> T:
        started = time.perf_counter()
        outcome = run(side, number)
        elapsed = seconds_of(outcome) if seconds_of else time.perf_counter() - started
        tag = "warm-up" if number < warmup_rounds else f"round {number - warmup_rounds + 1}/{rounds}"
        progress(f"{label}: {tag} {side} {elapsed:.2f}s")
        return outcome

    for number in range(total):
        if concurrent or (concurrent_warmup and number < warmup_rounds):
            with ThreadPoolExecutor(max_workers=len(sides)) as pool:
                outcomes = list(pool.map(timed, sides, [number] * len(sides)))
        else:
            order = round_order(sides, number)
            by_side = {side: timed(side, number) for side in order}
            outcomes = [by_side[side] for side in sides]
        if number >= warmup_rounds:
            for side, outcome in zip(sides, outcomes, strict=True):
                kept[side].append(outcome)
    return kept


def round_order(sides: Sequence[str], number: int) -> list[str]:
    """The order of the sides in round ``number``: as given in even rounds, reversed in odd ones."""
    return list(sides) if number % 2 == 0 else list(reversed(sides))


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else float("nan")


def ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else float("nan")


def progress(message: str) -> None:
    """Progress goes to stderr so stdout holds only the figure lines."""
    print(f"  [bench] {message}", file=sys.stderr, flush=True)
