"""The Hive metastore test service's pure parts (tests/support/hive_metastore.py): its distribution archive
pinned as an archive and unpacked once, the conf it hands Spark, the S3A it gets for tables on S3, and a
metastore whose files cannot be had failing with the reason."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from tests.support import hive_metastore, maven_jars
from tests.support.hive_metastore_pins import HIVE_METASTORE_DIST_ROOT
from tests.support.maven_jars import (
    HIVE_METASTORE_DIST_NAME,
    HIVE_METASTORE_NAMES,
    HIVE_METASTORE_S3A_NAMES,
    PINNED,
)


def test_the_distribution_is_pinned_as_an_archive_and_fetched_with_the_hadoop_client() -> None:
    dist = PINNED[HIVE_METASTORE_DIST_NAME]
    assert dist.coordinates == "org.apache.hive:hive-standalone-metastore:3.1.3:tar.gz:bin"
    assert dist.file_name == "hive-standalone-metastore-3.1.3-bin.tar.gz"
    artifacts = {PINNED[name].artifact for name in HIVE_METASTORE_NAMES}
    assert {"hadoop-client-api", "hadoop-client-runtime", "slf4j-api", "commons-cli"} <= artifacts
    assert all(len(PINNED[name].sha256) == 64 for name in HIVE_METASTORE_NAMES)


def test_the_fetch_pom_asks_for_the_archive_type_and_nothing_transitive() -> None:
    pom = maven_jars._pom([PINNED[HIVE_METASTORE_DIST_NAME], PINNED["openlineage-spark-2.12"]])
    assert "<type>tar.gz</type><classifier>bin</classifier>" in pom
    assert pom.count("<exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion>") == 2
    assert pom.count("<type>") == 1  # a jar keeps Maven's default type


def _archive(path: Path) -> None:
    with tarfile.open(path, "w:gz") as tar:
        data = b"jar bytes"
        info = tarfile.TarInfo(f"{HIVE_METASTORE_DIST_ROOT}/lib/hive-standalone-metastore-3.1.3.jar")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))


def test_the_archive_is_unpacked_once_beside_it(tmp_path: Path) -> None:
    archive = tmp_path / "hive-standalone-metastore-3.1.3-bin.tar.gz"
    _archive(archive)
    target = hive_metastore._unpacked(archive)
    assert target == tmp_path / "hive-standalone-metastore-3.1.3-bin"
    jar = target / HIVE_METASTORE_DIST_ROOT / "lib" / "hive-standalone-metastore-3.1.3.jar"
    assert jar.read_bytes() == b"jar bytes"
    archive.unlink()  # a second call finds the complete folder and leaves it
    assert hive_metastore._unpacked(archive) == target
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def test_files_that_cannot_be_had_make_the_metastore_unavailable_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LINEAGE_JAR_CACHE", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))  # no mvn
    with pytest.raises(hive_metastore.MetastoreUnavailable, match=r"`mvn` is not installed"):
        hive_metastore.HiveMetastore().start()


def test_the_spark_conf_points_a_hive_session_at_the_server() -> None:
    server = hive_metastore.HiveMetastore()
    server.port, server.root = 9083, Path("/srv/hms")
    conf = hive_metastore.hive_spark_conf(server)
    assert conf["spark.sql.catalogImplementation"] == "hive"
    assert conf["spark.hadoop.hive.metastore.uris"] == "thrift://127.0.0.1:9083"
    assert conf["spark.sql.warehouse.dir"] == "/srv/hms/warehouse"
    assert server.namespace == "hive://127.0.0.1:9083"


def test_the_site_file_escapes_its_values() -> None:
    xml = hive_metastore._site_xml({"k": "a<b&c"})
    assert "<value>a&lt;b&amp;c</value>" in xml


def test_the_s3a_of_the_server_is_at_its_hadoop_clients_version_with_the_sdk_modules() -> None:
    client = {
        PINNED[name].version for name in HIVE_METASTORE_NAMES if PINNED[name].artifact == "hadoop-client-api"
    }
    s3a = {PINNED[name].artifact: PINNED[name].version for name in HIVE_METASTORE_S3A_NAMES}
    assert {s3a["hadoop-aws"]} == client
    assert {"aws-java-sdk-s3", "aws-java-sdk-core", "httpclient", "httpcore"} <= set(s3a)
    assert all(len(PINNED[name].sha256) == 64 for name in HIVE_METASTORE_S3A_NAMES)


def test_a_server_on_s3_has_sparks_s3a_conf_as_hadoop_keys_and_one_without_none() -> None:
    on_disk = hive_metastore.HiveMetastore()
    on_s3 = hive_metastore.HiveMetastore(s3_endpoint="http://127.0.0.1:9")
    for server in (on_disk, on_s3):
        server.port, server.root = 9083, Path("/srv/hms")
    assert not any(key.startswith("fs.s3a.") for key in on_disk.settings())
    settings = on_s3.settings()
    assert settings["fs.s3a.endpoint"] == "http://127.0.0.1:9"
    assert settings["fs.s3a.path.style.access"] == "true"
    assert settings["metastore.thrift.port"] == "9083"
    assert not any(key.startswith("spark.") for key in settings)
