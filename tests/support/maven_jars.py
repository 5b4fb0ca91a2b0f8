"""Test-only JVM artifacts, pinned and verified, fetched with ``mvn`` into a cache outside the repository.

Each artifact of :data:`PINNED` is resolved by Maven's own client (``dependency:copy``: Maven checks the
registry's checksum as it downloads), then its SHA-256 is compared with the pinned one, so a cache that
was tampered with, or a registry answer that changed, fails loudly instead of testing something else.
The cache is ``$LINEAGE_JAR_CACHE`` or ``~/.cache/lineage-operators/maven``; a second call finds the
verified jar there and returns at once (no ``mvn`` run). Nothing here is ever a dependency of the package.

``python -m tests.support.maven_jars NAME...`` fetches the named artifacts and prints their paths,
comma-joined (a ``spark.jars`` value); ``--all`` fetches every pinned one; ``--list`` prints what is pinned.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.support.hive_metastore_pins import (
    HIVE_METASTORE_DIST,
    HIVE_METASTORE_JARS,
    HIVE_METASTORE_S3A_JARS,
)
from tests.support.kafka_pins import KAFKA_BROKER_JARS, SPARK_KAFKA_JARS
from tests.support.s3_pins import S3A_JARS
from tests.support.s3proxy_pins import S3PROXY_JARS


@dataclass(frozen=True)
class Artifact:
    """One jar: Maven coordinates and the SHA-256 its bytes must have."""

    group: str
    artifact: str
    version: str
    sha256: str
    classifier: str = ""
    #: the packaging: ``jar``, or e.g. ``tar.gz`` for a server's distribution archive
    extension: str = "jar"

    @property
    def coordinates(self) -> str:
        if self.extension != "jar" or self.classifier:
            return f"{self.group}:{self.artifact}:{self.version}:{self.extension}:{self.classifier}".rstrip(
                ":"
            )
        return f"{self.group}:{self.artifact}:{self.version}"

    @property
    def file_name(self) -> str:
        tail = f"-{self.classifier}" if self.classifier else ""
        return f"{self.artifact}-{self.version}{tail}.{self.extension}"


#: The OpenLineage Spark integration (the peer): one shaded jar per Scala line. 1.53.0 is the newest
#: release the registry serves; it runs on Spark 3.5 (Scala 2.12) and 4.0-4.3 (Scala 2.13).
OPENLINEAGE_SPARK_VERSION = "1.53.0"
PINNED: dict[str, Artifact] = {
    "openlineage-spark-2.12": Artifact(
        "io.openlineage",
        "openlineage-spark_2.12",
        OPENLINEAGE_SPARK_VERSION,
        "9fe28ee2e5b2cb535cd51b6572394bddeb684bf0c58650a698cf7724ce62d94d",
    ),
    "openlineage-spark-2.13": Artifact(
        "io.openlineage",
        "openlineage-spark_2.13",
        OPENLINEAGE_SPARK_VERSION,
        "5d84b0ae7e72909b5aae7ed87df878bf06b28d9ac3005765c3529d0a66dbae6f",
    ),
}

#: Apache Iceberg's official Spark runtimes (self-contained jars): one per Spark line it supports. 1.11.0
#: is the newest release served here; none exists for Spark 4.2 or newer yet.
ICEBERG_VERSION = "1.11.0"
ICEBERG_RUNTIMES = {
    "3.5": (
        "iceberg-spark-runtime-3.5_2.12",
        "94b8e36fc329f0293d44ba9e01b784a56e9501affec1842d898144c51f6e486a",
    ),
    "4.0": (
        "iceberg-spark-runtime-4.0_2.13",
        "63c3b812549dc232c1920865ff42436df8604a9bbacd693930985c06bd97e6dc",
    ),
    "4.1": (
        "iceberg-spark-runtime-4.1_2.13",
        "d6ea6c5d099288daeb7d5a92061bd3d7d8f296492632b42378e5f2f0e3066242",
    ),
}
PINNED.update(
    {
        f"iceberg-{line}": Artifact("org.apache.iceberg", artifact, ICEBERG_VERSION, sha256)
        for line, (artifact, sha256) in ICEBERG_RUNTIMES.items()
    }
)


#: Delta Lake's Spark jars (delta-spark needs delta-storage beside it; ANTLR comes with Spark): one
#: release per Spark line. None is published for Spark 4.2 or newer yet.
DELTA_RELEASES = {
    "3.5": (
        "3.3.3",
        "delta-spark_2.12",
        "4912bf902a1c453aba3bd838ff212dedd357155212f9bb37a6b47d97f2827ebc",
        "45ad193053fd30cebe6d9ab1889873cde39b223a0f210e00ebee8b6642476901",
    ),
    "4.0": (
        "4.0.1",
        "delta-spark_2.13",
        "a1e76860b19fe1e6b205a4ea7a9099a2f9575d39bb71d49b3e679b299d0efb91",
        "ecc42c5aaa51c423312d9e4e48aa4a12b34740bf2c37de0e8f279277ec3d12e4",
    ),
    "4.1": (
        "4.1.0",
        "delta-spark_4.1_2.13",
        "9b05d7a82196ee1f1073733a45a2faae59161e52b86ae918fe6742fad6eaf036",
        "6d0520ffcc35b582369f92c23fa24e14a5bb935cf6e31ed7f47c5046ae17cb25",
    ),
}
for _line, (_version, _artifact, _spark_sha, _storage_sha) in DELTA_RELEASES.items():
    PINNED[f"delta-spark-{_line}"] = Artifact("io.delta", _artifact, _version, _spark_sha)
    PINNED[f"delta-storage-{_line}"] = Artifact("io.delta", "delta-storage", _version, _storage_sha)

#: Iceberg's REST catalog test server (``org.apache.iceberg.rest.RESTCatalogServer`` in iceberg-open-api's
#: test fixtures; its servlet and adapter are in iceberg-core's test jar) and what it runs on, as a
#: throwaway pom with ``dependency:copy-dependencies`` resolved them: iceberg-core's runtime dependencies,
#: Jetty 12.1 (12.1.14: no 12.1.0 of the compression modules the server uses was published), the servlet
#: API, SQLite for its JDBC backend. Hadoop (the server builds a Hadoop ``Configuration``) is not pinned
#: here: the server runs with the hadoop-client jars of the test's own pyspark.
#: Each: ``group:artifact:version[:classifier]`` and, below it, its SHA-256.
REST_SERVER_JARS = """
org.apache.iceberg:iceberg-open-api:1.11.0:test-fixtures
    b0aa8636d88c24976d552ac9b3075a1315dc1ccd4fa6ed95b365901842664316
org.apache.iceberg:iceberg-core:1.11.0:tests
    4284719a5f0eb7db01e9f784a0ed4ca8bacf7d6f9951924143afc083428d8be3
org.apache.iceberg:iceberg-core:1.11.0
    53b9eb7a8c34fb9958ea7d9a4d19ba5bc96f592d0f05e8625b0778c70b1f0090
org.apache.iceberg:iceberg-api:1.11.0
    f00675a12ceb6d833bb9c22024823a3e7afdedf7abcefe34719f45b0d211995a
org.apache.iceberg:iceberg-common:1.11.0
    b2835d00db7c92bdfa728123ad7cdcb488e2f2805c1c51fb9ae94e8bd203bd7d
org.apache.iceberg:iceberg-bundled-guava:1.11.0
    396d48d93ef5735f2ddef0cf9b3d6968ebd67b64b5cfe753d41c429d3f46a2a1
org.apache.avro:avro:1.12.1
    72600f057bfbe2efe35fa55433e7756d45667dc938934be38a6e2be368aca237
com.fasterxml.jackson.core:jackson-annotations:2.21
    53ca085f4a150f703f49e1aabd935bd03b43e1ea3d55d135438292af22cef56b
com.fasterxml.jackson.core:jackson-core:2.21.3
    baf8b739e9d9b93bcdb33f25046bfdb8dbd74c97de2a8698539fbe0c7eeac0bb
com.fasterxml.jackson.core:jackson-databind:2.21.3
    f397563d8e67630c10cab8c2334ca0e55af832fa3ebde160a379c2c96d43bf25
com.github.ben-manes.caffeine:caffeine:2.9.3
    1e0a7bbef1dd791653143f3f05d0e489934bf5481e58a87c9e619cd46b68729b
org.checkerframework:checker-qual:3.19.0
    a827c49183f3a632277d27a0a4673686cb341507447b9d570261094bd748aa68
com.google.errorprone:error_prone_annotations:2.10.0
    a249d4d25dfb86d41e6c82fc335df580189f0c9feeabdc53233fc1e5060724a1
org.roaringbitmap:RoaringBitmap:1.6.14
    78ae7a6261b5b03f53b8db991047d06959cfadbd0b08af54bd95dda40af9acba
io.airlift:aircompressor:2.0.3
    b86bb66f610079e0bf790d62e2ff68853eb0dc4748a6d68ae28bce92b68094aa
commons-codec:commons-codec:1.19.0
    5c3881e4f556855e9c532927ee0c9dfde94cc66760d5805c031a59887070af5f
org.apache.commons:commons-compress:1.28.0
    e1522945218456f3649a39bc4afd70ce4bd466221519dba7d378f2141a4642ca
commons-io:commons-io:2.20.0
    df90bba0fe3cb586b7f164e78fe8f8f4da3f2dd5c27fa645f888100ccc25dd72
org.apache.commons:commons-lang3:3.18.0
    4eeeae8d20c078abb64b015ec158add383ac581571cddc45c68f0c9ae0230720
org.apache.httpcomponents.client5:httpclient5:5.6.1
    1e3d8444c3c27772e4b9d42a790f06b3345a8ece4fd16d00981f2f2460e1e772
org.apache.httpcomponents.core5:httpcore5:5.4
    cec2981fa7f520efb63f0787c24f10af2679e31f9f75c448c4dde40a3ae8100d
org.apache.httpcomponents.core5:httpcore5-h2:5.4
    2e0f4ace15db2d1609c2b06eca6012e7582afe4a99ad8d15073f62dd8edb3460
org.slf4j:slf4j-api:2.0.17
    7b751d952061954d5abfed7181c1f645d336091b679891591d63329c622eb832
jakarta.servlet:jakarta.servlet-api:6.0.0
    c034eb1afb158987dbb53a5fea0cadf611c8dae8daadd59c44d9d5ab70129cef
org.xerial:sqlite-jdbc:3.50.3.0
    a3f53a2aa15ae9425a9e793bbe9c8e5288febeb4b65ef5c1a4e80d4c2045cf08
org.eclipse.jetty:jetty-server:12.1.14
    62a2c691ecb3b60178e7b1a64d498261d31bcef76dd19147b89dcb2c6f784f30
org.eclipse.jetty:jetty-http:12.1.14
    a898f3dad99c2505409047d849cac7f652eced5853f9dad711395a26cd681e13
org.eclipse.jetty:jetty-io:12.1.14
    9a41452f362f5bd96e017f16d6b66d19d2d60a5981eafd3729367c1d535eb5e9
org.eclipse.jetty:jetty-util:12.1.14
    deb2a47bb9659c69076da1020d058c0ededba61dcd1aebccf83fce4719164adc
org.eclipse.jetty:jetty-security:12.1.14
    62d4a246b978adee64d081025546466a05ee7b57b1dd6293d93953a80ba4cbe7
org.eclipse.jetty:jetty-session:12.1.14
    5b091e6132ba30a56ce872e07cdc0de263163e46f88d5dea99310d3a6d00899a
org.eclipse.jetty.ee10:jetty-ee10-servlet:12.1.14
    cfea6fa831b8bf119ab97a73271fb61194a678c9ffca0661aaecefde53368eda
org.eclipse.jetty.compression:jetty-compression-common:12.1.14
    121a28a3aad2a036c9f97073ddc37f11cb3e9f3da13425f2c08c380ead93a6db
org.eclipse.jetty.compression:jetty-compression-gzip:12.1.14
    d0994b3a821d2946c1d1c881be4b3997e95a05d7381328d79b7c1b7b042e9186
org.eclipse.jetty.compression:jetty-compression-server:12.1.14
    91c6078fe3aa46b8777cca8da923bae42623cceaa3415f9a80f7d7b6a713233f
"""


def pin_list(block: str, prefix: str, strip: str = "") -> list[str]:
    """Register a block of ``group:artifact:version[:classifier]`` lines, each followed by its SHA-256, in
    :data:`PINNED` as ``<prefix><artifact without strip>[-<classifier>]``; return those names in order."""
    names = []
    tokens = block.split()
    for coordinates, sha256 in zip(tokens[::2], tokens[1::2], strict=True):
        group, artifact, version, *classifier = coordinates.split(":")
        name = prefix + artifact.removeprefix(strip) + "".join("-" + c for c in classifier)
        PINNED[name] = Artifact(group, artifact, version, sha256, "".join(classifier))
        names.append(name)
    return names


#: The names of the REST server's jars in :data:`PINNED` (``fetch_all`` them: one ``mvn`` run).
REST_SERVER_NAMES = pin_list(REST_SERVER_JARS, "iceberg-rest-", strip="iceberg-")

#: S3Proxy and its dependencies (tests/support/s3proxy_pins.py); the S3A connector per Hadoop version
#: (tests/support/s3_pins.py): the S3 tests (tests/s3) fetch them with :func:`fetch_all`.
S3PROXY_NAMES = pin_list(S3PROXY_JARS, "s3proxy-")
S3A_NAMES = {hadoop: pin_list(block, f"s3a-{hadoop}-") for hadoop, block in S3A_JARS.items()}

#: The Hive standalone metastore (tests/support/hive_metastore_pins.py): its distribution archive (the
#: server's own lib/ and the schema tool's SQL scripts) and the jars it expects from a Hadoop install.
HIVE_METASTORE_DIST_NAME = "hive-metastore-dist"
PINNED[HIVE_METASTORE_DIST_NAME] = Artifact(*HIVE_METASTORE_DIST)
HIVE_METASTORE_NAMES = [HIVE_METASTORE_DIST_NAME, *pin_list(HIVE_METASTORE_JARS, "hive-metastore-")]
#: S3A for the server, for databases and tables on S3 (tests/hive)
HIVE_METASTORE_S3A_NAMES = pin_list(HIVE_METASTORE_S3A_JARS, "hive-metastore-s3a-")

#: Kafka's broker and Spark's Kafka connector per pyspark line (tests/support/kafka_pins.py): the Kafka tests
#: (tests/kafka) fetch them with :func:`fetch_all`.
KAFKA_BROKER_NAMES = pin_list(KAFKA_BROKER_JARS, "kafka-broker-")
SPARK_KAFKA_NAMES = {
    line: pin_list(block, f"spark-kafka-{line}-") for line, block in SPARK_KAFKA_JARS.items()
}


class JarUnavailable(RuntimeError):
    """A pinned jar could not be fetched or did not verify: the message says which and why."""


def cache_dir() -> Path:
    return Path(os.environ.get("LINEAGE_JAR_CACHE") or Path.home() / ".cache" / "lineage-operators" / "maven")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def openlineage_spark_jar_name(spark_version: str) -> str:
    """The pinned peer jar for a Spark version: Scala 2.12 before Spark 4, 2.13 from 4."""
    major = int(spark_version.split(".", maxsplit=1)[0])
    return "openlineage-spark-2.12" if major < 4 else "openlineage-spark-2.13"


def spark_line(spark_version: str) -> str:
    """``"4.0"`` for ``"4.0.1"``."""
    return ".".join(spark_version.split(".")[:2])


def iceberg_runtime_name(spark_version: str) -> str | None:
    """The pinned Iceberg runtime for a Spark version, or None where Iceberg publishes none."""
    line = spark_line(spark_version)
    return f"iceberg-{line}" if line in ICEBERG_RUNTIMES else None


def delta_jar_names(spark_version: str) -> list[str]:
    """The pinned Delta jars (delta-spark, delta-storage) for a Spark version, [] where none exists."""
    line = spark_line(spark_version)
    return [f"delta-spark-{line}", f"delta-storage-{line}"] if line in DELTA_RELEASES else []


def _target(artifact: Artifact) -> Path:
    return cache_dir() / artifact.group / artifact.file_name


def _cached(artifact: Artifact) -> Path | None:
    target = _target(artifact)
    return target if target.is_file() and sha256_of(target) == artifact.sha256 else None


def _verify_into_cache(artifact: Artifact, fetched: Path) -> Path:
    actual = sha256_of(fetched)
    if actual != artifact.sha256:
        raise JarUnavailable(
            f"{artifact.coordinates}: SHA-256 {actual} is not the pinned {artifact.sha256} "
            "(tests/support/maven_jars.py); refusing to use it"
        )
    target = _target(artifact)
    os.replace(fetched, target)
    return target


def fetch(name: str) -> Path:
    """The verified jar of ``PINNED[name]``, fetched into the cache when it is not there yet."""
    artifact = PINNED[name]
    found = _cached(artifact)
    if found is not None:
        return found
    _target(artifact).parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=_target(artifact).parent, prefix=".fetch-") as staging:
        _mvn_copy(artifact, Path(staging))
        return _verify_into_cache(artifact, Path(staging) / artifact.file_name)


def fetch_all(names: list[str]) -> list[Path]:
    """The verified jars of ``names``, in order; the missing ones resolved by as few ``mvn`` runs as
    :func:`one_version_each` allows (a throwaway pom listing exactly them, nothing transitive), then
    verified one by one."""
    artifacts = [PINNED[name] for name in names]
    missing = list(dict.fromkeys(a for a in artifacts if _cached(a) is None))
    if missing:
        cache_dir().mkdir(parents=True, exist_ok=True)
    for batch in one_version_each(missing):
        with tempfile.TemporaryDirectory(dir=cache_dir(), prefix=".fetch-") as staging:
            _mvn_copy_many(batch, Path(staging))
            for artifact in batch:
                _target(artifact).parent.mkdir(parents=True, exist_ok=True)
                _verify_into_cache(artifact, Path(staging) / "jars" / artifact.file_name)
    return [_target(a) for a in artifacts]


def one_version_each(artifacts: list[Artifact]) -> list[list[Artifact]]:
    """``artifacts`` in batches holding at most one version of each jar: a pom's dependencies keep one
    version per group, artifact and classifier (Maven's nearest-wins mediation), so one pom listing
    ``delta-storage`` 3.3.3 and 4.0.1 copies only one of them."""
    batches: list[list[Artifact]] = []
    for artifact in artifacts:
        key = (artifact.group, artifact.artifact, artifact.classifier)
        batch = next((b for b in batches if all((a.group, a.artifact, a.classifier) != key for a in b)), None)
        if batch is None:
            batch = []
            batches.append(batch)
        batch.append(artifact)
    return batches


#: Every pinned jar is listed itself: Maven need not resolve what each depends on (some poms' graphs hold
#: a ``system`` dependency on a JDK 8 ``tools.jar`` that fails the whole resolution on a newer JDK).
_NOTHING_TRANSITIVE = (
    "<exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>"
)


def _pom(artifacts: list[Artifact]) -> str:
    def dependency(a: Artifact) -> str:
        classifier = f"<classifier>{a.classifier}</classifier>" if a.classifier else ""
        packaging = f"<type>{a.extension}</type>" if a.extension != "jar" else ""
        return (
            f"<dependency><groupId>{a.group}</groupId><artifactId>{a.artifact}</artifactId>"
            f"<version>{a.version}</version>{packaging}{classifier}{_NOTHING_TRANSITIVE}</dependency>"
        )

    return (
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        "<groupId>lineage-operators.tests</groupId><artifactId>fetch</artifactId><version>0</version>"
        f"<dependencies>{''.join(dependency(a) for a in artifacts)}</dependencies></project>"
    )


def _run_mvn(arguments: list[str], directory: Path, what: str) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise JarUnavailable(f"{what}: `mvn` is not installed (README: Install, Java 17 and Maven)")
    done = subprocess.run(
        [mvn, "--batch-mode", "--quiet", *arguments],
        capture_output=True,
        text=True,
        check=False,
        cwd=directory,
    )
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise JarUnavailable(f"{what}: mvn could not fetch it:\n{tail}")


def _mvn_copy_many(artifacts: list[Artifact], directory: Path) -> None:
    (directory / "pom.xml").write_text(_pom(artifacts))
    goal = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies"
    what = ", ".join(a.coordinates for a in artifacts)
    _run_mvn([goal, "-DexcludeTransitive=true", f"-DoutputDirectory={directory / 'jars'}"], directory, what)


def _mvn_copy(artifact: Artifact, directory: Path) -> None:
    goal = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy"
    arguments = [goal, f"-Dartifact={artifact.coordinates}", f"-DoutputDirectory={directory}"]
    _run_mvn(arguments, directory, artifact.coordinates)


def main(argv: list[str]) -> int:
    if argv == ["--all"]:
        argv = list(PINNED)
    if argv == ["--list"]:
        for name, artifact in PINNED.items():
            print(f"{name}\t{artifact.coordinates}\t{artifact.sha256}")
        return 0
    unknown = [name for name in argv if name not in PINNED]
    if not argv or unknown:
        print(
            "usage: python -m tests.support.maven_jars NAME... | --all | --list "
            f"(names: {', '.join(PINNED)})",
            file=sys.stderr,
        )
        return 2
    try:
        print(",".join(str(path) for path in fetch_all(argv)))
    except JarUnavailable as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
