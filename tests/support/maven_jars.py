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


@dataclass(frozen=True)
class Artifact:
    """One jar: Maven coordinates and the SHA-256 its bytes must have."""

    group: str
    artifact: str
    version: str
    sha256: str

    @property
    def coordinates(self) -> str:
        return f"{self.group}:{self.artifact}:{self.version}"

    @property
    def file_name(self) -> str:
        return f"{self.artifact}-{self.version}.jar"


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


def fetch(name: str) -> Path:
    """The verified jar of ``PINNED[name]``, fetched into the cache when it is not there yet."""
    artifact = PINNED[name]
    target = cache_dir() / artifact.group / artifact.file_name
    if target.is_file() and sha256_of(target) == artifact.sha256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".fetch-") as staging:
        _mvn_copy(artifact, Path(staging))
        fetched = Path(staging) / artifact.file_name
        actual = sha256_of(fetched)
        if actual != artifact.sha256:
            raise JarUnavailable(
                f"{artifact.coordinates}: SHA-256 {actual} is not the pinned {artifact.sha256} "
                "(tests/support/maven_jars.py); refusing to use it"
            )
        os.replace(fetched, target)
    return target


def _mvn_copy(artifact: Artifact, directory: Path) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise JarUnavailable(
            f"{artifact.coordinates}: `mvn` is not installed (README: Install, Java 17 and Maven)"
        )
    command = [
        mvn,
        "--batch-mode",
        "--quiet",
        "org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy",
        f"-Dartifact={artifact.coordinates}",
        f"-DoutputDirectory={directory}",
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=directory)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise JarUnavailable(f"{artifact.coordinates}: mvn could not fetch it:\n{tail}")


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
        print(",".join(str(fetch(name)) for name in argv))
    except JarUnavailable as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
