"""Every log line of the library is redacted and names the running task (issue 14 items 2, 10)."""

from __future__ import annotations

import logging

import pytest

from lineage_operators._logging import current_task, get_logger, task_scope

SECRET = "Pw4TheLogTest"


@pytest.fixture
def log(caplog: pytest.LogCaptureFixture) -> logging.Logger:
    caplog.set_level(logging.DEBUG, logger="lineage_operators.test_logging")
    return get_logger("lineage_operators.test_logging")


def test_arguments_and_tracebacks_are_redacted(log, caplog):
    log.warning("could not record %r", f"jdbc:mysql://u:{SECRET}@db:3306/x")
    try:
        raise RuntimeError(f"connect failed: password={SECRET}")
    except RuntimeError:
        log.warning("failed", exc_info=True)
    text = caplog.text
    assert SECRET not in text
    assert "jdbc:mysql://db:3306/x" in text
    assert "RuntimeError: connect failed: password=***" in text


def test_lines_name_the_task_once(log, caplog):
    with task_scope("secrets_dag.load"):
        assert current_task() == "secrets_dag.load"
        log.warning("drain timed out")
        log.warning("Lineage of task %s: could not record", "secrets_dag.load")
    assert current_task() is None
    log.warning("outside")
    assert [r.getMessage() for r in caplog.records] == [
        "Task secrets_dag.load: drain timed out",
        "Lineage of task secrets_dag.load: could not record",  # "secrets_dag.load: could" is no secret pair
        "outside",
    ]


def test_filter_is_attached_once():
    assert get_logger("lineage_operators.x").filters == get_logger("lineage_operators.x").filters
    assert len(get_logger("lineage_operators.x").filters) == 1


def test_quiet_here_blocks_nest_per_thread(caplog: pytest.LogCaptureFixture) -> None:
    """A quiet block inside another (a Connect lookup on the reader's thread) does not end the
    outer one when it ends."""
    from lineage_operators._logging import quiet_here

    caplog.set_level(logging.INFO)
    logger = logging.getLogger("lineage_operators.tests.quiet")
    with quiet_here([logger]):
        with quiet_here([logger]):
            logger.info("inner")
        logger.info("outer")
    logger.info("after")
    assert [r.getMessage() for r in caplog.records if r.name == logger.name] == ["after"]
