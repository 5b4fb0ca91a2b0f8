"""The `lineage-operators` console script as a user gets it: from the built wheel, outside the checkout."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.orders_events import orders_events
from tests.wheel.conftest import WheelEnv


def test_console_script_views_summarises_and_diffs(wheel_env: WheelEnv, tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text("".join(json.dumps(e) + "\n" for e in orders_events()))
    changed = tmp_path / "changed.jsonl"
    changed.write_text(events.read_text().replace("daily_revenue", "daily_v2"))
    script = str(wheel_env.python.parent / "lineage-operators")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        env = wheel_env.user_env()
        return subprocess.run(
            [script, *args], check=False, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )

    html = tmp_path / "lineage.html"
    viewed = run("view", str(events), "-o", str(html))
    assert viewed.returncode == 0, viewed.stderr
    page = html.read_text()
    assert "daily_revenue" in page
    assert "<script src=" not in page  # self-contained: the view's script is inlined
    summary = run("summary", str(events))
    assert summary.returncode == 0, summary.stderr
    assert "daily_revenue" in summary.stdout
    same, different = run("diff", str(events), str(events)), run("diff", str(events), str(changed))
    assert (same.returncode, different.returncode) == (0, 1), different.stderr
    assert "daily_v2" in different.stdout
    assert "Traceback" not in viewed.stderr + summary.stderr + different.stderr
