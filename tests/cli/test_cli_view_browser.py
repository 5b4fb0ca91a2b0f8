"""The HTML view in a real browser (Debian's chromium): everything drawn, columns highlighted
through column lineage across tasks, side panels, search, and no network access at all."""

from __future__ import annotations

from pathlib import Path

from tests.support.orders_events import CLEAN, DAILY, PUBLISHED, RAW, UPSTREAM_OF_REVENUE, orders_events

from lineage_operators.cli.main import main


def _label(path: str) -> str:
    return f"file://{path}"


def test_generated_pipeline_with_column_lineage(write_jsonl, tmp_path: Path, open_view) -> None:
    html_path = tmp_path / "orders.html"
    assert main(["view", str(write_jsonl(orders_events())), "-o", str(html_path)]) == 0

    view = open_view(html_path)

    assert view.drawn("job") == {
        f"orders.{t}" for t in ("ingest_orders", "clean_orders", "aggregate_daily", "publish_revenue")
    }
    assert view.drawn("dataset") == {_label(p) for p in (RAW, CLEAN, DAILY, PUBLISHED)}
    failed = set(view.page.eval_on_selector_all(".node.failed", "els => els.map(e => e.dataset.name)"))
    assert failed == {"orders.publish_revenue", _label(DAILY), _label(PUBLISHED)}

    view.click_column(_label(DAILY), "revenue")
    assert view.highlighted("col-selected") == {(_label(DAILY), "revenue")}
    assert view.highlighted("col-upstream") == {(_label(p), f) for p, f in UPSTREAM_OF_REVENUE}
    assert view.highlighted("col-indirect") == {(_label(CLEAN), "order_date"), (_label(RAW), "customer")}
    assert view.page.locator("#column-edges path").count() == 4
    panel = view.page.locator("#panel").inner_text()
    assert "DIRECT/AGGREGATION" in panel
    assert "orders.aggregate_daily" in panel
    view.screenshot("view-orders-column")

    view.click_column(_label(RAW), "amount")
    assert view.highlighted("col-downstream") == {(_label(CLEAN), "amount"), (_label(DAILY), "revenue")}
    assert view.highlighted("col-upstream") == set()

    view.click_node("orders.publish_revenue")
    panel = view.page.locator("#panel").inner_text()
    for text in ("FAIL", "publish failed: target is read-only", "42.0 s"):
        assert text in panel

    view.click_node(_label(CLEAN))
    panel = view.page.locator("#panel").inner_text()
    for text in ("OVERWRITE", "rowCount", "hive://metastore · shop.clean_orders TABLE"):
        assert text in panel
    assert "DATA QUALITY" in panel.upper()
    checks = view.page.eval_on_selector_all(
        "#panel table.checks tr[class^=check-]", "rows => rows.map(r => [r.className, r.cells[0].innerText])"
    )
    assert checks == [["check-fail", "not_null_order_id order_id"], ["check-pass", "row_count"]]
    assert '"nullCount":1' in view.page.locator("#panel table.metrics").inner_text()
    assert view.page.locator("#panel table.schema tr.clickable").count() == 4

    view.page.fill("#search", "revenue")
    view.page.wait_for_selector(".match")
    matched = set(
        view.page.eval_on_selector_all(
            ".node.match, .col.match", "els => els.map(e => e.dataset.name || e.dataset.col)"
        )
    )
    assert _label(DAILY) in matched
    assert any(m.endswith(":revenue") for m in matched)

    assert view.errors == []
    assert all(url.startswith("file://") for url in view.requests), view.requests
