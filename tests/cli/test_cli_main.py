"""The command line: summary, view, bad sources, skipped input reported, never a traceback."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.support.orders_events import orders_events

from lineage_operators.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def test_summary_lists_each_task_counts_and_failed_runs(write_jsonl, capsys) -> None:
    path = write_jsonl(orders_events())

    assert main(["summary", str(path)]) == 0
    out = capsys.readouterr().out

    assert out.splitlines()[0] == (
        "4 job(s), 4 dataset(s), 4 run(s), 8 event(s) read, 1 failed run(s), 9 column-lineage edge(s)"
    )
    assert (
        "orders.clean_orders\n    read:  file:///data/raw/orders\n    wrote: file:///data/clean/orders" in out
    )
    assert "orders.publish_revenue  [FAILED]" in out
    assert re.search(r"orders\.publish_revenue run [0-9a-f-]+: publish failed: target is read-only", out)
    # tasks in run order
    assert out.index("ingest_orders") < out.index("clean_orders") < out.index("aggregate_daily")


def test_view_writes_one_self_contained_file(write_jsonl, tmp_path: Path, capsys) -> None:
    path = write_jsonl(orders_events())
    html_path = tmp_path / "out" / "lineage.html"

    assert main(["view", str(path), "-o", str(html_path), "--title", "orders </script>"]) == 0

    assert f"wrote {html_path} (4 jobs, 4 datasets, 9 column edges)" in capsys.readouterr().out
    page = html_path.read_text()
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", page), "the page must load nothing"
    assert "orders &lt;/script&gt;" in page
    data = page.split('<script id="lineage-data" type="application/json">', 1)[1].split("</script>", 1)[0]
    view = json.loads(data)
    assert view["title"] == "orders </script>"
    assert {d["name"] for d in view["datasets"]} == {
        "/data/raw/orders",
        "/data/clean/orders",
        "/data/marts/daily_revenue",
        "/data/pub/revenue",
    }
    assert [j["failed"] for j in view["jobs"]] == [False, False, False, True]  # sorted by name


def test_skipped_input_is_reported_on_stderr(write_jsonl, capsys) -> None:
    path = write_jsonl([*orders_events(), "{truncated", '{"eventType": "START"}'])

    assert main(["summary", str(path)]) == 0
    err = capsys.readouterr().err

    assert "skipped 2 value(s) of 10 read:" in err
    assert f"1 malformed JSON (first at {path}:9)" in err
    assert "1 not a run event" in err


def test_missing_source_and_bad_arguments_are_usage_errors_without_traceback(tmp_path: Path) -> None:
    for args in (
        ["summary", str(tmp_path / "nope.jsonl")],
        ["diff", "--placeholder", "x", str(tmp_path), str(tmp_path)],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "lineage_operators.cli", *args],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        assert proc.returncode == 2, proc
        assert "Traceback" not in proc.stderr
        assert proc.stderr.startswith("lineage-operators: error:"), proc.stderr


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "lineage-operators"
    proc = subprocess.run([str(script), "--help"], capture_output=True, text=True, check=False)

    assert proc.returncode == 0
    assert all(command in proc.stdout for command in ("view", "diff", "summary"))


def test_view_of_500_jobs_and_2000_datasets_stays_under_5_mb(tmp_path: Path) -> None:
    from benchmarks.lineage_events import synthetic_events, write_events

    events = write_events(tmp_path / "big.jsonl", synthetic_events(jobs=500, datasets=2000))
    html_path = tmp_path / "big.html"

    assert main(["view", str(events), "-o", str(html_path)]) == 0

    page = html_path.read_text()
    assert len(page.encode()) < 5 * 1024 * 1024
    data = json.loads(page.split('type="application/json">', 1)[1].split("</script>", 1)[0])
    assert (len(data["jobs"]), len(data["datasets"])) == (500, 2000)
    for job in data["jobs"]:  # laid out left to right: inputs before the job, outputs after
        assert all(data["datasets"][d]["x"] < job["x"] for d in job["in"])
        assert all(data["datasets"][d]["x"] > job["x"] for d in job["out"])
