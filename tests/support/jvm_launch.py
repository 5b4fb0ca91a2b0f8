"""How the suite's Spark JVMs start: the JDBC driver on the classpath, Spark's classes from an archive.

Every test process, every ``airflow dags test`` and scheduler task the tests start, and every Connect
server launches a JVM through pyspark's ``spark-submit``, which reads ``PYSPARK_SUBMIT_ARGS``,
``SPARK_DIST_CLASSPATH`` and ``SPARK_SUBMIT_OPTS`` from the environment it inherits.
:func:`prepare_environment` sets them once, in the suite's ``conftest.py``:

* **The PostgreSQL JDBC driver** is appended to the driver's classpath (``SPARK_DIST_CLASSPATH``, which
  Spark's launcher puts after ``pyspark/jars``), so that ``java.sql.DriverManager`` finds it by URL,
  and shipped with ``--jars`` for a standalone cluster's executors.
* **A class-data-sharing archive** (the JDK's dynamic AppCDS: ``-XX:ArchiveClassesAtExit`` once,
  ``-XX:SharedArchiveFile`` afterwards). A JVM that opens a Spark session loads thousands of classes
  from ``pyspark/jars`` and verifies each one's bytecode; with the tests' C1-only JVMs that is about
  half of its CPU until the first job ends. From the archive they are mapped already parsed and
  verified: a session's start, a write and a read went from 15.9 to 8.7 CPU-s of the JVM (4.3,
  2026-11-30), and every task of the suite's DAG runs starts such a JVM. The JVM validates the
  archive against its classpath (the archive's must be a prefix of the JVM's: hence the driver
  *appended*), its jars' sizes and times and its own build; a JVM it does not fit (a suite that puts
  jars in front, another environment's pyspark) ignores it and runs as without it. The JVM's own
  messages about the archive are switched off (``-Xlog:cds=off``), as a JVM it does not fit would
  print one.

The first test process of an environment under ``make test`` (``LINEAGE_CLASS_ARCHIVE=make``, which
the Makefile's test targets set) makes the archive when it is missing (~30 CPU-s once per machine and
environment: a small Spark job with our capture whose JVM writes the classes it loaded at its exit;
a second process of the same environment waits for it), into ``~/.cache/lineage-operators/
class-archives`` (~190 MB a pyspark release), named by what the JVM validates, so that a changed
environment gets a new one. Without that setting a test run uses an archive that is there and makes
none; ``LINEAGE_CLASS_ARCHIVE=off`` uses none. Test-only: ``make bench`` and ``make demo`` run
JVMs without it, and a test run without the archive only runs slower.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, MutableMapping, Sequence
from pathlib import Path

from tests.support.postgres import find_jdbc_jar

_ARCHIVE_OPTION = "-XX:SharedArchiveFile="
_QUIET = ("-Xlog:cds=off", "-Xlog:cds+dynamic=off")
_WORKLOAD_TIMEOUT = 600.0
# Part of the archive's name: raise it when the workload changes, so that archives are made anew.
_WORKLOAD_VERSION = "1"


def prepare_environment(environ: MutableMapping[str, str]) -> None:
    """The JDBC driver on the classpath and the archive in the JVM options, where the user set neither.

    A failure to make the archive is printed and the tests run without it.
    """
    found = find_jdbc_jar()
    jar = None if found is None else str(found)
    if jar is not None and "PYSPARK_SUBMIT_ARGS" not in environ:
        environ["PYSPARK_SUBMIT_ARGS"] = f"--jars {jar} pyspark-shell"
        append_to_classpath(environ, [jar])
    setting = environ.get("LINEAGE_CLASS_ARCHIVE", "")
    if setting == "off" or _ARCHIVE_OPTION in environ.get("SPARK_SUBMIT_OPTS", ""):
        return
    archive = archive_path(environ)
    if archive is not None and not archive.is_file() and setting == "make":
        try:
            make_archive(environ)
        except (OSError, RuntimeError, subprocess.SubprocessError) as error:
            print(f"tests/support/jvm_launch.py: no class archive ({error})", file=sys.stderr)
    if archive is not None and archive.is_file():
        use = (*_jvm_options(environ), f"{_ARCHIVE_OPTION}{archive}", *_QUIET)
        environ["SPARK_SUBMIT_OPTS"] = " ".join(use)


def append_to_classpath(environ: MutableMapping[str, str], jars: Sequence[str | Path]) -> None:
    """``jars`` after pyspark's on the classpath of the JVMs started from ``environ`` (each once)."""
    parts = [part for part in environ.get("SPARK_DIST_CLASSPATH", "").split(os.pathsep) if part]
    parts += [str(jar) for jar in jars if str(jar) not in parts]
    environ["SPARK_DIST_CLASSPATH"] = os.pathsep.join(parts)


def archive_path(environ: MutableMapping[str, str]) -> Path | None:
    """This environment's archive: named by the JDK, pyspark's jars, the classpath and the JVM options."""
    jars = _pyspark_jars()
    java = shutil.which("java", path=environ.get("PATH"))
    if jars is None or java is None:
        return None
    java_binary = Path(java).resolve()
    digest = hashlib.sha256()
    for part in (
        str(java_binary),
        str(java_binary.stat().st_mtime_ns),
        str(jars),
        environ.get("SPARK_DIST_CLASSPATH", ""),
        " ".join(_jvm_options(environ)),
        _WORKLOAD_VERSION,
    ):
        digest.update(part.encode() + b"\0")
    cores = sorted(jars.glob("spark-core_*.jar"))
    for jar in sorted(jars.glob("*.jar")):
        stat = jar.stat()
        digest.update(f"{jar.name}:{stat.st_size}:{stat.st_mtime_ns}\0".encode())
    release = cores[0].stem.rsplit("-", 1)[1] if cores else "unknown"
    return archive_dir() / f"spark-{release}-{digest.hexdigest()[:16]}.jsa"


def archive_dir() -> Path:
    return Path.home() / ".cache" / "lineage-operators" / "class-archives"


def make_archive(environ: MutableMapping[str, str]) -> Path | None:
    """This environment's archive, written by a small Spark job's JVM at its exit when not there yet."""
    archive = archive_path(environ)
    if archive is None:
        return None
    archive.parent.mkdir(parents=True, exist_ok=True)
    with _locked(archive.with_suffix(".lock")):
        if archive.is_file():
            return archive
        partial = archive.with_suffix(f".{os.getpid()}.partial")
        dump = (*_jvm_options(environ), f"-XX:ArchiveClassesAtExit={partial}", *_QUIET)
        env = {**environ, "SPARK_SUBMIT_OPTS": " ".join(dump)}
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
        with tempfile.TemporaryDirectory(prefix="class-archive-") as work:
            done = subprocess.run(
                [sys.executable, "-m", "tests.support.jvm_launch", "--workload", work],
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                timeout=_WORKLOAD_TIMEOUT,
                check=False,
            )
        if done.returncode != 0:
            raise RuntimeError(
                f"the class archive's Spark job failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
            )
        pid = re.search(r"jvm-pid=(\d+)", done.stdout)
        if pid is None:
            raise RuntimeError(f"the class archive's Spark job named no JVM:\n{done.stdout[-2000:]}")
        _wait_for_exit(int(pid[1]))
        if not partial.is_file():
            raise RuntimeError(f"the JVM wrote no class archive at {partial}")
        partial.replace(archive)
    return archive


def _workload(work: Path) -> None:
    """What most of the suite's JVMs do: a session, our capture, files written and read, SQL, a table."""
    from pyspark.sql import SparkSession

    from lineage_operators.spark import new_capture

    spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()
    capture = new_capture(spark)
    capture.start()
    frame = spark.range(1000).selectExpr("id", "id % 7 AS k", "CAST(id AS STRING) AS v")
    frame.write.mode("overwrite").parquet(f"{work}/parquet")
    frame.write.mode("overwrite").option("header", True).csv(f"{work}/csv")
    frame.write.mode("overwrite").json(f"{work}/json")
    spark.read.parquet(f"{work}/parquet").createOrReplaceTempView("t")
    spark.sql(
        f"CREATE TABLE w USING parquet LOCATION '{work}/w' AS "
        "SELECT k, count(*) AS n, sum(id) AS s, max(v) AS m FROM t GROUP BY k"
    )
    spark.sql(
        "SELECT a.k, b.n, rank() OVER (PARTITION BY a.k ORDER BY a.id) AS r FROM t a JOIN w b ON a.k = b.k"
    ).write.mode("overwrite").orc(f"{work}/orc")
    csv = spark.read.option("header", True).csv(f"{work}/csv")
    csv.union(spark.read.json(f"{work}/json").select("id", "k", "v")).distinct().count()
    spark.sql("INSERT INTO w SELECT k, 1, 2, 'x' FROM t LIMIT 3")
    capture.stop()
    pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()  # type: ignore[union-attr]
    spark.stop()
    print(f"jvm-pid={pid}", flush=True)


def _pyspark_jars() -> Path | None:
    spec = importlib.util.find_spec("pyspark")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    jars = Path(next(iter(spec.submodule_search_locations))) / "jars"
    return jars if jars.is_dir() else None


def _jvm_options(environ: MutableMapping[str, str]) -> list[str]:
    """``SPARK_SUBMIT_OPTS`` without the archive's own options."""
    archive = ("-XX:SharedArchiveFile=", "-XX:ArchiveClassesAtExit=")
    options = environ.get("SPARK_SUBMIT_OPTS", "").split()
    return [option for option in options if not option.startswith(archive) and option not in _QUIET]


def _wait_for_exit(pid: int) -> None:
    """The JVM writes the archive after its Python process has gone: wait for it to end."""
    deadline = time.monotonic() + _WORKLOAD_TIMEOUT
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.2)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def main(argv: list[str]) -> int:
    """``--workload DIR``: the archive's Spark job; without arguments: make this environment's archive."""
    if argv[:1] == ["--workload"]:
        _workload(Path(argv[1]))
        return 0
    environ = {**os.environ, "LINEAGE_CLASS_ARCHIVE": "off"}
    prepare_environment(environ)
    print(make_archive(environ) or "no pyspark or no java: no class archive")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
