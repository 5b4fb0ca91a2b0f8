"""Checks of the operator's arguments: one clear sentence naming the argument, the (redacted)
value and what is expected, raised where the value is known -- at DAG definition, or for templated
values and connections at the start of ``execute``, before Spark starts. Pure; no Spark imported."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

SPARK_CONN_TYPES = ("spark", "spark_connect")

_MASTER_PATTERN = (
    r"^(local(\[(\*|\d+)(,\s*\d+)?\])?"
    r"|local-cluster\[\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\]"
    r"|yarn"
    r"|(spark|k8s|mesos|sc)://[^\s/]+.*)$"
)
_EXPECTED_MASTER = (
    "a Spark master URL (local, local[4], local[*], spark://host:7077, yarn, k8s://https://host) "
    "or a Spark Connect URL (sc://host:15002)"
)


@functools.cache
def _master_re() -> re.Pattern[str]:
    """Compiled on the first master given (~0.3 ms): a DAG file whose tasks leave ``master`` unset
    never pays for it, one that sets it pays once."""
    return re.compile(_MASTER_PATTERN, re.IGNORECASE)


def _shown(value: Any) -> str:
    # here, not at the top: a DAG parse runs these checks, and redaction compiles its patterns when
    # imported (~20 ms); only a bad value, about to be raised, is shown
    from lineage_operators.redaction import redact_text, redact_url

    text = value if isinstance(value, str) else repr(value)
    return repr(redact_url(text) if "://" in text else redact_text(text))


def is_templated(value: Any) -> bool:
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def check_master(value: Any, *, where: str = "master") -> None:
    """``None`` (local[*]) or a master / Spark Connect URL Spark accepts."""
    if value is None or is_templated(value):
        return
    if not isinstance(value, str):
        raise TypeError(
            f"{where} must be a string: {_EXPECTED_MASTER}; got {type(value).__name__} {_shown(value)}"
        )
    if not _master_re().match(value.strip()):
        raise ValueError(f"{where} {_shown(value)} is not {_EXPECTED_MASTER}")


def check_capture_lineage(value: Any) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"capture_lineage must be True or False, got {type(value).__name__} {_shown(value)}")


def check_connection(conn_id: str, conn_type: Any, host: Any, extra: Mapping[str, Any] | None) -> None:
    """A ``spark`` or ``spark_connect`` connection whose ``spark_conf`` extra is a mapping."""
    if conn_type not in SPARK_CONN_TYPES:
        raise ValueError(
            f"conn_id {conn_id!r} is a connection of type {conn_type or '(none)'!r}, expected a 'spark' "
            "(master URL in host/port) or 'spark_connect' connection; in a connection URI the type is "
            "written with '-' (spark-connect://host:15002), an unparseable URI gives no type"
        )
    spark_conf = (extra or {}).get("spark_conf")
    if spark_conf is not None and not isinstance(spark_conf, Mapping):
        raise ValueError(
            f"conn_id {conn_id!r}: extra 'spark_conf' must be a JSON object of Spark conf, "
            f"got {type(spark_conf).__name__} {_shown(spark_conf)}"
        )
    if conn_type == "spark" and host:
        check_master(str(host), where=f"conn_id {conn_id!r} host")
