"""JvmTools where the compiled combinators cannot be built: the failure is logged once at INFO, never
retried, nothing raises, and every combinator is composed by py4j calls as before."""

from __future__ import annotations

import logging
from unittest import mock

import pytest

from lineage_operators.spark.jvm.tools import JvmTools


def test_no_janino_composes_by_py4j(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="lineage_operators")
    gateway = mock.MagicMock()
    compiler = gateway.jvm.org.codehaus.janino.SimpleCompiler
    compiler.side_effect = RuntimeError("org.codehaus.janino.SimpleCompiler is not on the classpath")
    t = JvmTools(gateway)
    handle = mock.sentinel.handle
    assert t.safe(handle) is gateway.jvm.java.lang.invoke.MethodHandles.catchException.return_value
    t.text(handle)
    t.chain(("java.lang.String", "length"), handle)
    assert t.fast() is None
    assert compiler.call_count == 1  # not retried
    assert caplog.text.count("cannot compile lineage_operators.Handles") == 1
    assert "Traceback" not in caplog.text
