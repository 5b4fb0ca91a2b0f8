"""The log4j2 configuration of sessions the operator launches, without a JVM: its layouts mask what
``redaction`` masks (the Java patterns applied with Python's ``re``, which reads them alike), it
keeps Spark's levels and appenders, and a user's own configuration is left alone."""

from __future__ import annotations

import logging
import re

import pytest

from lineage_operators import redaction
from lineage_operators.redaction import LOG4J_MASKS, redact_text
from lineage_operators.spark.session import log4j

CANARY = "CanaryPw7Qz9x"
LINES = [
    f"Task failed while writing rows to file:/data/x?password={CANARY}/out",
    f"Lost task 0.0: ValueError: cannot reach jdbc:postgresql://db/shop?user=u&password={CANARY}",
    f"Path s3a://AKIDEXAMPLE:{CANARY}@bucket/key does not exist",
    f"spark.hadoop.fs.azure.account.key.acct.dfs.core.windows.net={CANARY}",
    f"jdbc:oracle:thin:scott/{CANARY}@db:1521/orcl",
    f"Authorization: Bearer {CANARY}abcdef",
    f"sc://host:15002/;token={CANARY};user_id={CANARY}",
    f'{{"password": "{CANARY}", "user": "u"}}',
    f"CREATE USER u IDENTIFIED BY {CANARY}",
    f"ALTER USER u PASSWORD '{CANARY}'",
    "AKIAABCDEFGHIJKLMNOP is an access key id",
]


def apply_masks(text: str) -> str:
    for regex, replacement in LOG4J_MASKS:
        text = re.sub(regex, replacement.replace("$1", r"\g<1>"), text)
    return text


@pytest.mark.parametrize("line", LINES)
def test_the_layout_masks_what_redaction_masks(line: str):
    assert redact_text(line) != line  # the library masks it...
    masked = apply_masks(line)
    assert CANARY not in masked  # ...and so does Spark's log layout
    assert "AKIAABCDEFGHIJKLMNOP" not in masked
    assert "***" in masked


def test_ordinary_lines_stay_readable():
    line = "26/01/01 WARN TaskSetManager: Lost task 0.0 in stage 1.0 (TID 1): path=/data/out, rows: 3"
    assert apply_masks(line) == line


def test_spark_defaults_are_kept_with_every_pattern_layout_masked():
    text = log4j.masked_properties(log4j.FALLBACK_DEFAULTS)
    assert "rootLogger.level = info" in text
    assert "logger.repl.level = warn" in text
    assert "appender.console.target = SYSTEM_ERR" in text
    assert "appender.console.layout.alwaysWriteExceptions = false" in text
    pattern = next(line for line in text.splitlines() if ".layout.pattern" in line)
    assert pattern.count("%replace{") == len(LOG4J_MASKS)
    assert "%m%n%ex" in pattern  # the message and the stack trace, inside the masks
    assert "\\\\s" in pattern  # backslashes escaped for a .properties file


def test_the_stack_trace_moves_inside_the_masks():
    assert "%m%n%ex}" in log4j.masked_pattern("%d %p %c: %m%n")


def test_the_configuration_file_is_written_once_outside_the_temporary_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    first = log4j.configuration_file()
    assert first.is_relative_to(tmp_path / "cache")
    assert log4j.configuration_file() == first
    assert "%replace{" in first.read_text()


def test_a_new_task_process_finds_the_file_without_reading_the_jars_again(tmp_path, monkeypatch):
    """Reading Spark's defaults out of pyspark 3.5's spark-core jar cost every session 15-20 ms
    (~140 ms in a new task process) on the task's thread."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(log4j, "_KNOWN_FILES", {})
    reads = []
    defaults = log4j.spark_defaults

    def counted() -> str:
        reads.append(1)
        return defaults()

    monkeypatch.setattr(log4j, "spark_defaults", counted)
    first = log4j.configuration_file()
    assert log4j.configuration_file() == first  # the same process
    log4j._KNOWN_FILES.clear()  # as a new task process
    assert log4j.configuration_file() == first
    assert len(reads) == 1
    first.unlink()  # a cleaned cache: written again
    log4j._KNOWN_FILES.clear()
    assert log4j.configuration_file() == first
    assert first.exists()
    assert len(reads) == 2


def test_each_cache_folder_gets_its_own_file(tmp_path, monkeypatch):
    monkeypatch.setattr(log4j, "_KNOWN_FILES", {})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a"))
    first = log4j.configuration_file()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "b"))
    second = log4j.configuration_file()
    assert first.is_relative_to(tmp_path / "a")
    assert second.is_relative_to(tmp_path / "b")


def test_other_masks_get_another_file(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(log4j, "_KNOWN_FILES", {})
    first = log4j.configuration_file()
    monkeypatch.setattr(redaction, "LOG4J_MASKS", (*LOG4J_MASKS, ("secretword", "***")))
    second = log4j.configuration_file()
    assert second != first
    assert "secretword" in second.read_text()


def test_driver_and_executors_get_it_when_the_session_launches_the_jvm(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    conf = log4j.with_masked_logging({log4j.EXECUTOR_OPTIONS: "-Xss4m"}, {}, launches_jvm=True)
    option = f"-Dlog4j2.configurationFile={log4j.configuration_file()}"
    assert conf[log4j.DRIVER_OPTIONS] == option
    assert conf[log4j.EXECUTOR_OPTIONS] == f"-Xss4m {option}"
    later = log4j.with_masked_logging({}, {}, launches_jvm=False)  # the driver's JVM runs already
    assert set(later) == {log4j.EXECUTOR_OPTIONS}


@pytest.mark.parametrize(
    ("conf", "environ"),
    [
        ({log4j.DRIVER_OPTIONS: "-Dlog4j2.configurationFile=/etc/spark/log4j2.xml"}, {}),
        ({}, {"PYSPARK_SUBMIT_ARGS": "--driver-java-options -Dlog4j.configuration=file:/x pyspark-shell"}),
        ({}, "conf_dir"),
    ],
)
def test_a_users_own_configuration_is_left_alone_and_said_once(conf, environ, tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.INFO)
    if environ == "conf_dir":
        (tmp_path / "log4j2.properties").write_text("rootLogger.level = warn\n")
        environ = {"SPARK_CONF_DIR": str(tmp_path)}
    monkeypatch.setattr(log4j, "_said_user_config", False)
    assert log4j.with_masked_logging(conf, environ, launches_jvm=True) == conf
    assert log4j.with_masked_logging(conf, environ, launches_jvm=True) == conf
    said = [r.getMessage() for r in caplog.records if "uses your log4j2 configuration" in r.getMessage()]
    assert len(said) == 1
