"""The lineage view at scale: ``python -m benchmarks.lineage_view [--jobs 500 --datasets 2000]``.

Figures (issue 13): the HTML size for 500 jobs / 2,000 datasets (target < 5 MB); in Debian's
chromium, the time from navigation until the graph is drawn and painted, and the time from a
click (a column; a job) or a search until the highlight is painted (targets < 2 s each, the
issue's absolute budget: the user's wait, not a ratio); and, for streaming, the peak memory of
``lineage-operators summary`` on a large events file over a file a quarter of its size
(bounded memory: about 1, where reading it whole would be about 4).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.browser import launch_chromium
from benchmarks.lineage_events import synthetic_events, write_events
from lineage_operators.cli.main import load_graph
from lineage_operators.cli.model import dataset_label

RUN_ID = re.compile(r'"runId":"([0-9a-f-]{30})')
PAINTED = (
    "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now()))))"
)


RESPONSE = """([selector, kind]) => {
  const el = document.querySelector(selector), t0 = performance.now();
  if (kind === "enter") el.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true}));
  else el.dispatchEvent(new MouseEvent("click", {bubbles: true}));
  const took = () => (performance.now() - t0) / 1000;
  const done = r => requestAnimationFrame(() => requestAnimationFrame(() => r(took())));
  return new Promise(done);
}"""


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def browser_figures(html: Path, rounds: int, name: str) -> dict[str, float]:
    """Median over ``rounds`` fresh pages; a response is measured in the page, from the event's
    dispatch until two animation frames later (the highlight painted)."""
    from playwright.sync_api import sync_playwright

    loads, columns, jobs, searches, highlighted = [], [], [], [], []
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        for _ in range(rounds):
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            started = time.perf_counter()
            page.goto(html.resolve().as_uri())
            page.wait_for_selector("body[data-ready=true]")
            page.evaluate(PAINTED)
            loads.append(time.perf_counter() - started)
            # the last dataset written is the deepest: its first column has the longest upstream
            page.fill("#search", name)
            searches.append(page.evaluate(RESPONSE, ["#search", "enter"]))
            column = f'.node.dataset[data-name="{name}"] .col[data-col]'
            page.wait_for_selector(column)
            columns.append(page.evaluate(RESPONSE, [column, "click"]))
            highlighted.append(page.locator(".col-upstream").count())
            jobs.append(page.evaluate(RESPONSE, ['.node[data-node="j0"] .box', "click"]))
            page.close()
        browser.close()
    assert min(highlighted) > 0, "clicking the column highlighted nothing upstream"
    return {
        "view_load_s": _median(loads),
        "view_search_enter_s": _median(searches),
        "view_column_click_s": _median(columns),
        "view_column_upstream_highlighted": float(_median(highlighted)),
        "view_job_click_s": _median(jobs),
    }


def _deepest_dataset(graph: Any) -> str:
    """The label of the dataset whose first column has the most upstream columns."""
    feeds: dict[tuple[Any, str], list[tuple[Any, str]]] = {}
    for edge in graph.column_edges:
        if edge.target_field is not None:
            feeds.setdefault((edge.target, edge.target_field), []).append((edge.source, edge.source_field))

    def upstream(column: tuple[Any, str]) -> int:
        seen, todo = set(), [column]
        while todo:
            for source in feeds.get(todo.pop(), []):
                if source not in seen:
                    seen.add(source)
                    todo.append(source)
        return len(seen)

    best = max(
        (ds for ds, node in graph.datasets.items() if node.fields),
        key=lambda ds: upstream((ds, next(iter(graph.datasets[ds].fields)))),
    )
    return dataset_label(best)


def _peak_rss_mib(events: Path) -> float:
    code = (
        "import resource, sys; from lineage_operators.cli.main import main; main(['summary', sys.argv[1]]);"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, file=sys.stderr)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(events)], capture_output=True, text=True, check=True
    )
    return float(proc.stderr.strip().splitlines()[-1])


def _repeat(source: Path, target: Path, megabytes: int) -> Path:
    """``source``'s events repeated with fresh run ids until ``target`` is ``megabytes`` large."""
    lines = source.read_text().splitlines()
    with target.open("w") as out:
        written, copy = 0, 0
        while written < megabytes * 1024 * 1024:
            suffix = f"{copy:06d}"
            for line in lines:
                text = RUN_ID.sub(lambda m, s=suffix: f'"runId":"{m.group(1)[:-6]}{s}', line) + "\n"
                out.write(text)
                written += len(text)
            copy += 1
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.lineage_view", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--jobs", type=int, default=500)
    parser.add_argument("--datasets", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--big-mb", type=int, default=256, help="size of the large file for the memory figure (0: skip)"
    )
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="lineage-view-bench-") as scratch:
        work = Path(scratch)
        events = write_events(work / "events.jsonl", synthetic_events(args.jobs, args.datasets))
        graph = load_graph([events])
        figures["graph"] = (
            f"{sum(j.drawn for j in graph.jobs.values())} jobs, {len(graph.datasets)} datasets, "
            f"{len(graph.column_edges)} column edges"
        )
        html = work / "lineage.html"
        started = time.perf_counter()
        subprocess.run(
            [Path(sys.executable).parent / "lineage-operators", "view", str(events), "-o", str(html)],
            check=True,
            capture_output=True,
        )
        figures["cli_view_s"] = time.perf_counter() - started
        figures["html_mib"] = html.stat().st_size / 1024 / 1024
        figures.update(browser_figures(html, args.rounds, _deepest_dataset(graph)))
        if args.big_mb:
            small = _repeat(events, work / "small.jsonl", max(1, args.big_mb // 4))
            big = _repeat(events, work / "big.jsonl", args.big_mb)
            started = time.perf_counter()
            figures["summary_peak_rss_mib_big"] = _peak_rss_mib(big)
            figures["summary_big_s"] = time.perf_counter() - started
            figures["summary_peak_rss_mib_quarter"] = _peak_rss_mib(small)
            figures["summary_rss_ratio_4x_file"] = (
                figures["summary_peak_rss_mib_big"] / figures["summary_peak_rss_mib_quarter"]
            )
            figures["big_file_mib"] = big.stat().st_size / 1024 / 1024
    print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in figures.items()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
