"""RESULTS.md keeps the current figures: a recorded run replaces its line's cells, never appends.

Table-tested over the Markdown text (:func:`benchmarks.results.update` is pure), plus the plot
drawn from the three-sides table and RESULTS.md as committed.
"""

from __future__ import annotations

import math
import sys
from datetime import datetime
from pathlib import Path
from xml.etree import ElementTree

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import plot  # noqa: E402
from benchmarks.figures import Figure, Target  # noqa: E402
from benchmarks.results import (  # noqa: E402
    CURRENT,
    RESULTS_FILE,
    RUNS,
    THREE_SIDES,
    Run,
    Table,
    _section,
    begin,
    end,
    record,
    spark_line,
    three_sides_key,
    three_sides_rows,
    update,
)

PROSE = "# Benchmark results\n\nIntro, never rewritten.\n"
ON_43 = Run(datetime(2026, 11, 28, 9, 30), "4.3", "2 cores", "python 3.11.7, pyspark 4.3.0")
LATER_43 = Run(datetime(2026, 11, 29, 8, 0), "4.3", "4 cores", "python 3.11.7, pyspark 4.3.1")
ON_35 = Run(datetime(2026, 11, 28, 10, 0), "3.5", "2 cores", "python 3.11.7, pyspark 3.5.9")
RATIO = Target("<=", 1.02)


def table(text: str, name: str) -> list[list[str]]:
    section = _section(text, name)
    assert section is not None, f"no {name} table"
    parsed = Table.parse(section, ())
    return [parsed.header, *parsed.rows]


def ci(value: float, low: float, high: float, name: str) -> Figure:
    return Figure(name, value, None, {"ci95": [low, high]})


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        pytest.param(
            [(ON_43, [Figure("task_overhead_ratio", 1.013, RATIO)])],
            [
                ["figure", "target", "pyspark 4.3"],
                ["`task_overhead_ratio`", "<= 1.020", "1.013 met, 2026-11-28"],
            ],
            id="first run: the table is created",
        ),
        pytest.param(
            [
                (ON_43, [Figure("task_overhead_ratio", 1.013, RATIO)]),
                (LATER_43, [Figure("task_overhead_ratio", 1.031, RATIO)]),
            ],
            [
                ["figure", "target", "pyspark 4.3"],
                ["`task_overhead_ratio`", "<= 1.020", "**1.031 missed**, 2026-11-29"],
            ],
            id="a later run on the same line replaces the cell, a miss in bold",
        ),
        pytest.param(
            [
                (
                    ON_43,
                    [Figure("task_overhead_ratio", 1.013, RATIO), Figure("parse_time_ratio", 1.04, RATIO)],
                ),
                (ON_35, [Figure("task_overhead_ratio", 1.011, RATIO)]),
            ],
            [
                ["figure", "target", "pyspark 4.3", "pyspark 3.5"],
                ["`task_overhead_ratio`", "<= 1.020", "1.013 met, 2026-11-28", "1.011 met, 2026-11-28"],
                ["`parse_time_ratio`", "<= 1.020", "**1.040 missed**, 2026-11-28", ""],
            ],
            id="another line gets its own column, the other line's cells stay",
        ),
        pytest.param(
            [
                (ON_43, [Figure("parse_time_ratio", 1.07, Target("<=", 1.05))]),
                (LATER_43, [Figure("parse_time_ratio", 1.07, Target("<=", 1.10))]),
            ],
            [
                ["figure", "target", "pyspark 4.3"],
                ["`parse_time_ratio`", "<= 1.100", "1.070 met, 2026-11-29"],
            ],
            id="a changed target is the figure's target now",
        ),
        pytest.param(
            [
                (ON_43, [Figure("a", 1.0, RATIO), Figure("b", 2.0, RATIO)]),
                (LATER_43, [Figure("b", 1.0, RATIO), Figure("c", 0.0, Target("==", 0))]),
            ],
            [
                ["figure", "target", "pyspark 4.3"],
                ["`a`", "<= 1.020", "1 met, 2026-11-28"],
                ["`b`", "<= 1.020", "1 met, 2026-11-29"],
                ["`c`", "== 0", "0 met, 2026-11-29"],
            ],
            id="rows keep their order, a new figure follows",
        ),
        pytest.param(
            [(ON_43, [Figure("task_overhead_ratio", 1.0, RATIO), Figure("task_overhead_mean_ratio", 1.2)])],
            [
                ["figure", "target", "pyspark 4.3"],
                ["`task_overhead_ratio`", "<= 1.020", "1 met, 2026-11-28"],
            ],
            id="info figures are not kept",
        ),
        pytest.param(
            [(ON_43, [Figure("task_overhead_ratio", math.nan, RATIO)])],
            [
                ["figure", "target", "pyspark 4.3"],
                ["`task_overhead_ratio`", "<= 1.020", "**nan missed**, 2026-11-28"],
            ],
            id="a figure that could not be measured misses",
        ),
    ],
)
def test_current_figures_table(runs, expected):
    text = PROSE
    for run, figures in runs:
        text = update(text, figures, run)
    assert table(text, CURRENT) == expected
    assert text.startswith(PROSE)
    assert text.count(begin(CURRENT)) == text.count(end(CURRENT)) == 1


def test_the_tables_are_rewritten_where_they_stand_and_the_prose_around_them_stays():
    tables = f"{begin(CURRENT)}\n{end(CURRENT)}\n\nText between.\n\n{begin(RUNS)}\n{end(RUNS)}"
    before = f"{PROSE}\n{tables}\n\nAfter.\n"
    text = update(before, [Figure("x", 1.0, RATIO)], ON_43)
    text = update(text, [Figure("x", 1.1, RATIO)], LATER_43)
    assert text.split(begin(CURRENT))[0] == PROSE + "\n"
    assert "\n\nText between.\n\n" in text
    assert text.endswith(f"{end(RUNS)}\n\nAfter.\n")
    assert table(text, RUNS) == [
        ["pyspark", "last recorded", "machine", "versions"],
        ["4.3", "2026-11-29 08:00", "4 cores", "python 3.11.7, pyspark 4.3.1"],
    ]
    assert table(text, CURRENT)[1] == ["`x`", "<= 1.020", "**1.100 missed**, 2026-11-29"]


def test_a_run_without_a_kept_figure_leaves_the_text_as_it_was():
    assert update(PROSE, [Figure("task_overhead_mean_ratio", 1.2)], ON_43) == PROSE


def test_three_side_ratios_per_job_fill_one_row_per_line_and_workload():
    ours_over_jar = Figure(
        "three_sides_task_lineage_over_jar_cpu", 1.04, Target("<=", 1.0), {"ci95": [0.9, 1.2]}
    )
    figures = [
        ci(0.947, 0.84, 1.07, "three_sides_task_lineage_over_plain_cpu_per_job"),
        ci(1.109, 1.0, 1.23, "three_sides_task_jar_over_plain_cpu_per_job"),
        ours_over_jar,
        ci(0.854, 0.76, 0.96, "three_sides_task_lineage_over_jar_cpu_per_job"),
        ci(1.04, math.nan, math.nan, "three_sides_task_lineage_jar_over_jar_cpu_per_job"),
        Figure("three_sides_task_plain_cpu_seconds", 11.8),
        ci(0.99, 0.96, 1.03, "three_sides_tiny_actions_lineage_over_plain_cpu_per_job"),
    ]
    text = update(PROSE, figures, ON_43)
    text = update(text, [ci(0.98, 0.9, 1.07, "three_sides_task_lineage_over_plain_cpu_per_job")], ON_35)
    assert table(text, THREE_SIDES) == [
        ["pyspark", "workload", "ours / plain", "jar / plain", "ours / jar", "ours+jar / jar", "date"],
        ["4.3", "task", "0.947 [0.84-1.07]", "1.109 [1.00-1.23]", "0.854 [0.76-0.96]", "1.040", "2026-11-28"],
        ["4.3", "tiny_actions", "0.990 [0.96-1.03]", "", "", "", "2026-11-28"],
        ["3.5", "task", "0.980 [0.90-1.07]", "", "", "", "2026-11-28"],
    ]
    assert table(text, CURRENT)[1] == [
        "`three_sides_task_lineage_over_jar_cpu`",
        "<= 1",
        "**1.040 missed**, 2026-11-28",
    ]


def test_a_fresh_row_measured_again_keeps_no_ratio_of_the_older_run():
    old = [ci(1.247, math.nan, math.nan, "three_sides_fresh_lineage_jar_over_jar_cpu_per_job")]
    old.append(ci(1.065, math.nan, math.nan, "three_sides_fresh_lineage_over_jar_cpu_per_job"))
    text = update(PROSE, old, ON_43)
    text = update(text, [ci(0.97, 0.95, 0.99, "three_sides_fresh_lineage_over_jar_cpu")], ON_43)
    assert table(text, THREE_SIDES)[1] == ["4.3", "fresh", "", "", "0.970 [0.95-0.99]", "", "2026-11-28"]


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("three_sides_tiny_actions_jar_over_plain_cpu_per_job", ("tiny_actions", "jar / plain")),
        ("three_sides_large_plans_lineage_jar_over_jar_cpu_per_job", ("large_plans", "ours+jar / jar")),
        ("three_sides_task_lineage_over_jar_cpu_per_job", ("task", "ours / jar")),
        ("three_sides_task_lineage_over_jar_cpu", None),
        ("three_sides_task_jar_cpu_seconds", None),
        # whole fresh processes: the paired ratios as measured (no per-job form)
        ("three_sides_fresh_lineage_over_jar_cpu", ("fresh", "ours / jar")),
        ("three_sides_fresh_jar_over_plain_cpu", ("fresh", "jar / plain")),
        ("three_sides_fresh_lineage_over_jar_wall", None),
        ("three_sides_fresh_lineage_compiling_over_plain_cpu", None),
        ("three_sides_fresh_lineage_over_lineage_compiling_cpu", None),
        ("three_sides_fresh_lineage_cpu_seconds", None),
        ("task_overhead_ratio", None),
    ],
)
def test_three_sides_key(name, key):
    assert three_sides_key(name) == key


@pytest.mark.parametrize(
    ("version", "line"), [("4.3.0", "4.3"), ("3.5.9", "3.5"), ("4.1.0.dev1", "4.1"), ("absent", "absent")]
)
def test_spark_line(version, line):
    assert spark_line(version) == line


def test_record_creates_the_file_and_reports_whether_it_kept_anything(tmp_path):
    path = tmp_path / "RESULTS.md"
    assert not record(path, [Figure("info_only", 1.0)], ON_43)
    assert not path.exists()
    assert record(path, [Figure("x", 1.0, RATIO)], ON_43)
    assert table(path.read_text(), CURRENT)[1] == ["`x`", "<= 1.020", "1 met, 2026-11-28"]


@pytest.mark.parametrize(
    ("cell", "ratio"),
    [
        ("0.947 [0.84-1.07]", plot.Ratio(0.947, 0.84, 1.07)),
        ("1.024", plot.Ratio(1.024)),
        ("", None),
        ("-", None),
    ],
)
def test_plot_reads_the_cells(cell, ratio):
    assert plot.parse_ratio(cell) == ratio


def test_plot_draws_each_side_over_plain_per_workload_and_line():
    rows = [
        {
            "pyspark": "4.3",
            "workload": "task",
            "ours / plain": "0.95 [0.84-1.07]",
            "jar / plain": "1.100",
            "ours / jar": "",
            "ours+jar / jar": "1.050",
            "date": "2026-11-28",
        },
        {
            "pyspark": "3.5",
            "workload": "fresh",
            "ours / plain": "1.272",
            "jar / plain": "",
            "ours / jar": "",
            "ours+jar / jar": "1.118",
            "date": "2026-11-28",
        },
    ]
    root = ElementTree.fromstring(plot.svg(rows))
    namespace = "{http://www.w3.org/2000/svg}"
    bars = [
        float(rect.find(f"{namespace}title").text)
        for rect in root.iter(f"{namespace}rect")
        if rect.find(f"{namespace}title") is not None
    ]
    # ours, jar and ours+jar (= ours+jar / jar x jar / plain) on 4.3; only ours on 3.5 (no jar ratio)
    assert bars == pytest.approx([0.95, 1.1, 1.155, 1.272], abs=1e-3)
    texts = [text.text for text in root.iter(f"{namespace}text")]
    assert {"pyspark 4.3", "pyspark 3.5", "task", "fresh"} <= set(texts)
    assert (
        len([line for line in root.iter(f"{namespace}line") if line.get("stroke") == "black"]) == 3
    )  # 1 whisker + 2 plains


def test_the_committed_results_and_plot_agree_and_fit_one_screen():
    text = RESULTS_FILE.read_text()
    assert len(text.splitlines()) <= 80
    current = table(text, CURRENT)
    assert current[0][:2] == ["figure", "target"]
    assert all(len(row) == len(current[0]) for row in current)
    rows = three_sides_rows(text)
    assert rows, "the three-sides table is the plot's data"
    assert (RESULTS_FILE.parent / plot.SVG_FILE.name).read_text() == plot.svg(rows)
