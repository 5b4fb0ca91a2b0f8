"""tests/support/jvm_launch.py: the environment the suite's JVMs start from, without starting one."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support import jvm_launch

_TEST_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(jvm_launch, "find_jdbc_jar", lambda: Path("/drivers/postgresql.jar"))
    return tmp_path


def _archive_for(environ: dict[str, str]) -> Path:
    """The archive a process of ``environ`` reads, once the suite's conftest prepared it."""
    found = jvm_launch.archive_path(_prepared(environ))
    assert found is not None, "the test environment has pyspark and java"
    return found


def _prepared(environ: dict[str, str]) -> dict[str, str]:
    prepared = {**environ, "LINEAGE_CLASS_ARCHIVE": "off"}
    jvm_launch.prepare_environment(prepared)
    return prepared


def test_the_jdbc_driver_goes_after_pysparks_jars_and_to_the_executors(home: Path) -> None:
    environ = {"PATH": "/usr/bin:/bin", "SPARK_DIST_CLASSPATH": "/opt/hadoop/*"}
    jvm_launch.prepare_environment(environ)
    assert environ["SPARK_DIST_CLASSPATH"] == "/opt/hadoop/*:/drivers/postgresql.jar"
    assert environ["PYSPARK_SUBMIT_ARGS"] == "--jars /drivers/postgresql.jar pyspark-shell"
    assert "SPARK_SUBMIT_OPTS" not in environ  # no archive made yet: nothing to read


def test_a_users_submit_arguments_are_left_alone(home: Path) -> None:
    environ = {"PATH": "/usr/bin:/bin", "PYSPARK_SUBMIT_ARGS": "--driver-memory 2g pyspark-shell"}
    jvm_launch.prepare_environment(environ)
    assert environ["PYSPARK_SUBMIT_ARGS"] == "--driver-memory 2g pyspark-shell"
    assert "SPARK_DIST_CLASSPATH" not in environ


def test_an_archive_that_is_there_is_read_quietly_after_the_users_options(home: Path) -> None:
    environ = {"PATH": "/usr/bin:/bin", "SPARK_SUBMIT_OPTS": _TEST_OPTS}
    archive = _archive_for(environ)
    assert archive.parent == home / ".cache" / "lineage-operators" / "class-archives"
    archive.parent.mkdir(parents=True)
    archive.write_bytes(b"")
    jvm_launch.prepare_environment(environ)
    assert environ["SPARK_SUBMIT_OPTS"].split() == [
        *_TEST_OPTS.split(),
        f"-XX:SharedArchiveFile={archive}",
        "-Xlog:cds=off",
        "-Xlog:cds+dynamic=off",
    ]
    again = dict(environ)
    jvm_launch.prepare_environment(again)  # a child process's conftest: the option once
    assert again["SPARK_SUBMIT_OPTS"] == environ["SPARK_SUBMIT_OPTS"]
    off = {"PATH": "/usr/bin:/bin", "SPARK_SUBMIT_OPTS": _TEST_OPTS, "LINEAGE_CLASS_ARCHIVE": "off"}
    jvm_launch.prepare_environment(off)
    assert off["SPARK_SUBMIT_OPTS"] == _TEST_OPTS


def test_the_archive_is_named_by_what_the_jvm_checks_it_against(home: Path) -> None:
    base = {"PATH": "/usr/bin:/bin", "SPARK_SUBMIT_OPTS": _TEST_OPTS}
    name = _archive_for(base).name
    assert name.startswith("spark-")
    assert name.endswith(".jsa")
    assert _archive_for({**base, "SPARK_SUBMIT_OPTS": "-XX:+UseG1GC"}).name != name
    assert _archive_for({**base, "SPARK_DIST_CLASSPATH": "/opt/more.jar"}).name != name
    reading = {**base, "SPARK_SUBMIT_OPTS": f"{_TEST_OPTS} -XX:SharedArchiveFile=/x.jsa -Xlog:cds=off"}
    assert _archive_for(reading).name == name  # the archive's own options are not part of its name


def test_without_java_there_is_no_archive(home: Path) -> None:
    environ = {"PATH": str(home)}
    jvm_launch.prepare_environment(environ)
    assert jvm_launch.archive_path(environ) is None
    assert "SPARK_SUBMIT_OPTS" not in environ


def test_jars_appended_to_the_classpath_come_once_in_their_order() -> None:
    environ = {"SPARK_DIST_CLASSPATH": "/a.jar"}
    jvm_launch.append_to_classpath(environ, ["/b.jar", Path("/a.jar"), Path("/c.jar")])
    jvm_launch.append_to_classpath(environ, ["/b.jar"])
    assert environ["SPARK_DIST_CLASSPATH"] == "/a.jar:/b.jar:/c.jar"
