"""tests/support/maven_jars.py: which Iceberg runtime a line gets (None: the Iceberg tests skip with
that reason), and a jar that cannot be fetched or does not verify raising (the Iceberg tests fail on it,
never skip silently)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from tests.support import maven_jars
from tests.support.maven_jars import PINNED, REST_SERVER_NAMES, JarUnavailable, fetch, fetch_all


@pytest.mark.parametrize(
    ("version", "expected"),
    [("3.5.6", "iceberg-3.5"), ("4.0.1", "iceberg-4.0"), ("4.1.0", "iceberg-4.1"), ("4.3.0", None)],
)
def test_iceberg_runtime_name(version: str, expected: str | None) -> None:
    assert maven_jars.iceberg_runtime_name(version) == expected


def test_the_rest_server_jars_are_pinned_with_their_classifiers() -> None:
    artifacts = [PINNED[name] for name in REST_SERVER_NAMES]
    assert len(artifacts) == 35
    assert all(len(a.sha256) == 64 for a in artifacts)
    files = {a.file_name for a in artifacts}
    assert {"iceberg-open-api-1.11.0-test-fixtures.jar", "iceberg-core-1.11.0-tests.jar"} <= files
    fixtures = PINNED["iceberg-rest-open-api-test-fixtures"]
    assert fixtures.coordinates == "org.apache.iceberg:iceberg-open-api:1.11.0:jar:test-fixtures"
    assert fixtures.version == maven_jars.ICEBERG_VERSION  # the runtime's Iceberg


def _tampered(cache: Path, name: str) -> None:
    artifact = PINNED[name]
    target = cache / artifact.group / artifact.file_name
    target.parent.mkdir(parents=True)
    target.write_bytes(b"not the pinned jar")


def test_a_jar_that_does_not_verify_and_cannot_be_fetched_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LINEAGE_JAR_CACHE", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))  # no mvn
    _tampered(tmp_path, "iceberg-4.1")
    with pytest.raises(JarUnavailable, match=r"`mvn` is not installed"):
        fetch("iceberg-4.1")
    with pytest.raises(JarUnavailable, match=re.escape("iceberg-open-api:1.11.0:jar:test-fixtures")):
        fetch_all(REST_SERVER_NAMES)


def test_a_fetched_jar_with_other_bytes_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LINEAGE_JAR_CACHE", str(tmp_path))
    fetched = tmp_path / "staging.jar"
    fetched.write_bytes(b"other bytes")
    with pytest.raises(JarUnavailable, match="refusing to use it"):
        maven_jars._verify_into_cache(PINNED["iceberg-rest-core"], fetched)


def test_every_pinned_jar_goes_into_a_batch_with_one_version_of_each_jar() -> None:
    """``--all`` on a fresh machine: one pom with the three Delta lines' ``delta-storage`` copied only
    one of them, and the verification of the others failed on a missing file."""
    pinned = list(PINNED.values())
    batches = maven_jars.one_version_each(pinned)
    assert sorted(a.coordinates for b in batches for a in b) == sorted(a.coordinates for a in pinned)
    for batch in batches:
        keys = [(a.group, a.artifact, a.classifier) for a in batch]
        assert len(keys) == len(set(keys))
    storage = [a for a in pinned if a.artifact == "delta-storage"]
    assert len(storage) == len(maven_jars.DELTA_RELEASES) > 1
    versions = Counter((a.group, a.artifact, a.classifier) for a in pinned)
    assert len(batches) == max(versions.values()) >= len(storage)
