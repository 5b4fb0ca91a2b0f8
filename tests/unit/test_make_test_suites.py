"""`make test` runs every suite the Makefile defines per Spark line, each once, the main suite first.

The suites are listed one by one in SUITES (longest first, so that make starts them in that order); a line
added to SPARK_LINES, ICEBERG_LINES, DELTA_LINES, a peer's, S3's, Hive's or Kafka's test lines must be added
there too, or CI would silently stop running it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_PRINT = """
print-%:
\t@echo $($*)
"""


def _variable(tmp_path: Path, name: str) -> list[str]:
    extra = tmp_path / "print.mk"
    extra.write_text(_PRINT)
    done = subprocess.run(
        ["make", "--no-print-directory", "-s", "-f", "Makefile", "-f", str(extra), f"print-{name}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.split()


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_suites_lists_every_line_suite_once_the_main_suite_first(tmp_path: Path) -> None:
    suites = _variable(tmp_path, "SUITES")
    expected = {"test-main", "test-benchmarks", "test-lowest", "test-lowest-spark"}
    for kind, lines in (
        ("spark", "SPARK_LINES"),
        ("iceberg", "ICEBERG_LINES"),
        ("delta", "DELTA_LINES"),
        ("peer", "PEER_TEST_LINES"),
        ("peer-lakehouse", "LAKEHOUSE_PEER_TEST_LINES"),
        ("s3", "S3_TEST_LINES"),
        ("hive", "HIVE_TEST_LINES"),
        ("kafka", "KAFKA_TEST_LINES"),
    ):
        expected |= {f"test-{kind}-{line}" for line in _variable(tmp_path, lines)}
    assert suites[0] == "test-main"
    assert len(suites) == len(set(suites))
    assert set(suites) == expected


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_test_runs_the_suites_without_a_phony_prerequisite(tmp_path: Path) -> None:
    """A suite waiting on the phony `services` or `jars` lets make start the others before it (see the
    Makefile); the environments are built before, in `make test-envs`."""
    done = subprocess.run(["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert "make test-envs" in done.stdout.replace("/usr/bin/make", "make")
    recipe = [line for line in done.stdout.splitlines() if "--output-sync=target" in line]
    assert recipe, done.stdout[-2000:]
    assert "SERVICES= JARS= " in recipe[-1]
    assert recipe[-1].split("SERVICES= JARS= ", 1)[1].split() == _variable(tmp_path, "SUITES")


def _dry_run(target: str) -> str:
    done = subprocess.run(
        ["make", "-n", target, "SERVICES="], cwd=ROOT, capture_output=True, text=True, check=False
    )
    return done.stdout.replace("\\\n", " ")  # a recipe's continued lines as one


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_benchmarks_smoke_test_runs_in_its_own_suite_only() -> None:
    """Beside the main suite, not in it: the main suite is the longest and starts first."""
    smoke = "tests/unit/test_benchmarks_smoke.py"
    main = [line for line in _dry_run("test-main").splitlines() if "-m pytest" in line]
    benchmarks = [line for line in _dry_run("test-benchmarks").splitlines() if "-m pytest" in line]
    assert main
    assert f"--ignore={smoke}" in main[-1]
    assert benchmarks
    assert benchmarks[-1].split()[-1] == smoke


def _probe(tmp_path: Path, target: str, recipe: str, **env: str) -> str:
    """What ``recipe`` prints when run by ``make`` as ``test-probe`` (a test target) or ``bench-probe``."""
    extra = tmp_path / "probe.mk"
    extra.write_text(f"test-probe bench-probe:\n\t{recipe}\n")
    done = subprocess.run(
        ["make", "--no-print-directory", "-s", "-f", "Makefile", "-f", str(extra), target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **env},
    )
    return done.stdout.strip()


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_test_jvms_get_the_short_lived_flags_and_benchmarks_do_not(tmp_path: Path) -> None:
    """SPARK_SUBMIT_OPTS (read by spark-submit for the driver's JVM) holds TEST_JAVA_OPTS in the test
    targets, added to the user's own options once, and is left alone by `make bench`."""
    recipe = "@echo [$$SPARK_SUBMIT_OPTS]"
    flags = " ".join(_variable(tmp_path, "TEST_JAVA_OPTS"))
    assert "-XX:TieredStopAtLevel=1" in flags

    def probe(target: str, user: str) -> str:
        return _probe(tmp_path, target, recipe, SPARK_SUBMIT_OPTS=user)

    assert probe("test-probe", "") == f"[{flags}]"
    assert probe("test-probe", f"-Dmine=1 {flags}") == f"[-Dmine=1 {flags}]"
    assert probe("bench-probe", "-Dmine=1") == "[-Dmine=1]"


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_test_processes_keep_their_bytecode_where_the_shell_forbids_it(tmp_path: Path) -> None:
    """A shell's PYTHONDONTWRITEBYTECODE=1 made every test process compile Airflow and pyspark from source
    again; the test targets let Python keep its bytecode, the other targets leave the shell's setting."""
    recipe = '@python3 -c "import sys; print(sys.dont_write_bytecode)"'

    def dont_write_bytecode(target: str) -> str:
        return _probe(tmp_path, target, recipe, PYTHONDONTWRITEBYTECODE="1")

    assert dont_write_bytecode("test-probe") == "False"
    assert dont_write_bytecode("bench-probe") == "True"


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_every_deselected_test_exists(tmp_path: Path) -> None:
    """pytest ignores a ``--deselect`` that matches nothing: a renamed test would then run twice, or a
    parameter's id gone would silently stop the diagonal."""
    names = ("LOWEST_TESTS", "DAG_TEST_ELSEWHERE", "LOG_MASKING_ELSEWHERE", "FORKS_DAG_TEST_ELSEWHERE")
    deselected = {
        word.removeprefix("--deselect=")
        for name in names
        for word in _variable(tmp_path, name)
        if word.startswith("--deselect=")
    }
    assert len(deselected) >= 5, deselected
    for node in deselected:
        path, _, test = node.partition("::")
        function, _, param = test.partition("[")
        source = (ROOT / path).read_text(encoding="utf-8")
        assert f"def {function}(" in source, node
        if param:
            assert f'"{param.removesuffix("]")}"' in source, node


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_data_systems_fault_tests_run_on_spark_3_5_and_the_newest_line_once_each(tmp_path: Path) -> None:
    """Issue 52's faults: S3's and Kafka's in their suites (every S3 and Kafka test line, 3.5 and newest
    among them), the Hive metastore's in the main suite (newest) and `make test-lowest-spark` (3.5), not in
    `make test-lowest` (4.0.0)."""
    hive = "tests/system/test_hive_faults.py"
    assert _variable(tmp_path, "FAULT_SYSTEM_TESTS") == [hive]
    for kind in ("S3", "KAFKA"):
        assert {"3.5", "newest"} <= set(_variable(tmp_path, f"{kind}_TEST_LINES"))
    for target, directory in (("test-s3-3.5", "tests/s3"), ("test-kafka-newest", "tests/kafka")):
        (line,) = [line for line in _dry_run(target).splitlines() if "-m pytest" in line]
        assert line.split()[-1] == directory, line
    main = [line for line in _dry_run("test-main").splitlines() if "-m pytest" in line][-1]
    lowest_spark = [line for line in _dry_run("test-lowest-spark").splitlines() if "-m pytest" in line][-1]
    lowest = [line for line in _dry_run("test-lowest").splitlines() if "-m pytest" in line][-1]
    ignored = [word.split("=", 1)[1] for word in main.split() if word.startswith("--ignore=")]
    assert not any(hive.startswith(path) for path in ignored), main
    assert hive in lowest_spark.split()
    assert f"--ignore={hive}" in lowest.split()
