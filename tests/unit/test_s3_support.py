"""The S3 test service's pure parts (tests/support/s3_server.py): the S3A conf it hands Spark keeps its
credentials under keys our redaction treats as secret, and a pyspark line without pinned S3A jars fails
with the reason instead of testing without them."""

from __future__ import annotations

import pytest
from tests.support import s3_server
from tests.support.canary import S3_ACCESS_KEY, S3_SECRET_KEY
from tests.support.maven_jars import PINNED, S3A_NAMES

from lineage_operators.redaction import is_secret_key


def test_the_s3a_conf_holds_its_credentials_under_secret_keys_only() -> None:
    conf = s3_server.s3a_conf("http://127.0.0.1:9")
    holding = {key for key, value in conf.items() if value in (S3_ACCESS_KEY, S3_SECRET_KEY)}
    assert holding == {"spark.hadoop.fs.s3a.access.key", "spark.hadoop.fs.s3a.secret.key"}
    assert all(is_secret_key(key) for key in holding)
    assert conf["spark.hadoop.fs.s3a.path.style.access"] == "true"
    assert conf["spark.hadoop.fs.s3a.endpoint"] == "http://127.0.0.1:9"


def test_a_hadoop_without_pinned_s3a_jars_is_unavailable_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(s3_server, "pyspark_hadoop_version", lambda: "3.4.1")
    with pytest.raises(s3_server.S3Unavailable, match=r"no S3A jars are pinned for Hadoop 3\.4\.1"):
        s3_server.s3a_jars()


def test_each_pinned_s3a_line_has_hadoop_aws_of_its_own_version() -> None:
    for hadoop, names in S3A_NAMES.items():
        aws = [PINNED[name] for name in names if PINNED[name].artifact == "hadoop-aws"]
        assert [a.version for a in aws] == [hadoop]


def test_the_signature_is_aws_v4_for_the_test_identity() -> None:
    headers = s3_server.signed_headers("PUT", "127.0.0.1:9", "/raw", b"")
    assert headers["Authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={S3_ACCESS_KEY}/")
    assert "SignedHeaders=host;x-amz-content-sha256;x-amz-date," in headers["Authorization"]
    assert S3_SECRET_KEY not in str(headers)


def test_only_the_filesystem_backend_has_keys_to_read() -> None:
    server = s3_server.S3Server(backend="transient")
    with pytest.raises(s3_server.S3Unavailable, match="transient backend keeps no folder"):
        server.keys("lake")
