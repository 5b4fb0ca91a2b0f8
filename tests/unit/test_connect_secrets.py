"""Spark Connect URLs carry tokens: none reaches a log line or an event."""

from __future__ import annotations

import pytest

from lineage_operators.redaction import redact_text, redact_url

TOKEN = "dapi-0123456789abcdef"


@pytest.mark.parametrize(
    "url",
    [
        f"sc://host:443/;token={TOKEN}",
        f"sc://host:443/;user_id=alice;token={TOKEN};use_ssl=true",
        f"sc://host/;session_id=abc;x-databricks-cluster-id=c1;token={TOKEN}",
    ],
)
def test_connect_url_tokens_are_redacted(url: str) -> None:
    assert TOKEN not in redact_url(url)
    assert redact_url(url).startswith("sc://host")
    assert TOKEN not in redact_text(f"cannot reach {url}: UNAVAILABLE")


def test_spark_connect_connection_token_stays_out_of_logged_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    """The URL built from a connection holds the token; an error quoting it is rewritten."""
    import json

    from lineage_operators.operators.pyspark import _holds_secret, _without_secrets
    from lineage_operators.spark.session.task_session import spec_from_connection

    connection = {"conn_type": "spark_connect", "host": "sc://cluster", "port": 443, "password": TOKEN}
    monkeypatch.setenv("AIRFLOW_CONN_SECRET_CONNECT", json.dumps(connection))
    spec = spec_from_connection("secret_connect")
    assert spec.remote is not None
    assert TOKEN in spec.remote  # pyspark needs it
    error = RuntimeError(f"[CONNECT_URL_NOT_VALID] {spec.remote}")
    assert _holds_secret(error)
    assert TOKEN not in str(_without_secrets(error))
