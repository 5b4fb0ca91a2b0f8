"""Spark's own log lines, masked: a log4j2 configuration for the JVMs the operator launches.

Spark's log4j lines quote paths and user exception messages verbatim (``Executor`` and
``TaskSetManager`` print a UDF's error, ``FileFormatWriter`` a path with credentials), and Spark's
``spark.redaction.*`` settings do not apply to them. When the operator starts the driver's JVM it
knows the JVM's options: it passes ``-Dlog4j2.configurationFile`` pointing at Spark's own default
configuration (read from the pyspark jars, so levels and appenders stay Spark's) whose layout
patterns are wrapped in log4j2's ``%replace{...}{regex}{...}`` with
:data:`lineage_operators.redaction.LOG4J_MASKS`; executors get the same option through
``spark.executor.extraJavaOptions``. Levels set at run time (``setLogLevel``) work as before.

A user's own log4j2 configuration (``-Dlog4j2.configurationFile`` in the driver's Java options,
``log4j2.*`` in ``SPARK_CONF_DIR``) is left alone, with one log line saying so.

The file lives in the user's cache directory under a name derived from its content: written once,
shared by every session and process, never left in the temporary directory.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import re
import zipfile
from collections.abc import Mapping
from pathlib import Path

from lineage_operators import redaction
from lineage_operators._logging import get_logger

log = get_logger(__name__)

DRIVER_OPTIONS = "spark.driver.extraJavaOptions"
EXECUTOR_OPTIONS = "spark.executor.extraJavaOptions"
_PROPERTY = "log4j2.configurationFile"
_USER_PROPERTY_RE = re.compile(r"-Dlog4j2?\.configuration(?:File)?=(\S+)")
_DEFAULTS_RESOURCE = "org/apache/spark/log4j2-defaults.properties"
#: Spark's defaults (4.x), for where the jars cannot be read (a pyspark without jars).
FALLBACK_DEFAULTS = """\
rootLogger.level = info
rootLogger.appenderRef.stdout.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.jetty.name = org.sparkproject.jetty
logger.jetty.level = warn
logger.repl.name = org.apache.spark.repl.Main
logger.repl.level = warn
"""
_PATTERN_RE = re.compile(r"^(?P<key>\s*appender\.(?P<name>[^.\s]+)\.layout\.pattern\s*[=:]\s*)(?P<value>.*)$")
_said_user_config = False


def masked_pattern(pattern: str) -> str:
    """Pure: a PatternLayout pattern whose whole output (message and stack trace) is masked."""
    masked = pattern if "%ex" in pattern or "%throwable" in pattern else f"{pattern}%ex"
    for regex, replacement in redaction.LOG4J_MASKS:
        masked = f"%replace{{{masked}}}{{{regex}}}{{{replacement}}}"
    return masked


def masked_properties(text: str) -> str:
    """Pure: a log4j2 properties configuration with every pattern layout masked.

    The stack trace moves inside the masked pattern, so the layout must not append its own
    (``alwaysWriteExceptions = false``). Backslashes are escaped as ``.properties`` files need.
    """
    lines: list[str] = []
    for line in text.splitlines():
        match = _PATTERN_RE.match(line)
        if match is None:
            lines.append(line)
            continue
        value = masked_pattern(match.group("value").strip()).replace("\\", "\\\\")
        lines.append(f"{match.group('key')}{value}")
        lines.append(f"appender.{match.group('name')}.layout.alwaysWriteExceptions = false")
    return "\n".join(lines) + "\n"


def user_configuration(conf: Mapping[str, str], environ: Mapping[str, str]) -> str | None:
    """Pure: where the user's own log4j2 configuration comes from, or None."""
    for source in (
        conf.get(DRIVER_OPTIONS, ""),
        environ.get("PYSPARK_SUBMIT_ARGS", ""),
        environ.get("JAVA_TOOL_OPTIONS", ""),
        environ.get("_JAVA_OPTIONS", ""),
    ):
        found = _USER_PROPERTY_RE.search(source or "")
        if found:
            return found.group(1)
    conf_dir = environ.get("SPARK_CONF_DIR") or (
        os.path.join(environ["SPARK_HOME"], "conf") if environ.get("SPARK_HOME") else None
    )
    if conf_dir:
        for name in ("log4j2.properties", "log4j2.xml", "log4j2.yaml", "log4j2.yml", "log4j2.json"):
            path = os.path.join(conf_dir, name)
            if os.path.isfile(path):
                return path
    return None


def with_masked_logging(
    conf: Mapping[str, str], environ: Mapping[str, str], *, launches_jvm: bool
) -> dict[str, str]:
    """``conf`` with the masked configuration in the driver's (when this session launches the
    JVM) and the executors' Java options; unchanged when the user configures log4j2. Never raises."""
    global _said_user_config
    values = dict(conf)
    try:
        own = user_configuration(values, environ)
        if own is not None:
            if not _said_user_config:
                _said_user_config = True
                log.info(
                    "Spark uses your log4j2 configuration (%s): its log lines are not masked by "
                    "lineage-operators; mask secrets in its layouts yourself",
                    own,
                )
            return values
        option = f"-D{_PROPERTY}={configuration_file()}"
        keys = (DRIVER_OPTIONS, EXECUTOR_OPTIONS) if launches_jvm else (EXECUTOR_OPTIONS,)
        for key in keys:
            existing = values.get(key, "").strip()
            if _PROPERTY not in existing:
                values[key] = f"{existing} {option}".strip()
    except Exception as error:
        log.warning("Spark's own log lines are not masked: %s", error)
        return dict(conf)
    return values


def configuration_file() -> Path:
    """The masked configuration on disk (written once; its name is its content's hash).

    Every session the operator creates asks for it (the executors' options carry it), and reading
    Spark's defaults out of the jars is the costly part: on pyspark 3.5 they sit in the 15 MB
    ``spark-core`` jar, whose zip directory takes 15-20 ms to read warm and ~140 ms in a new task
    process. So the file found for this pyspark and these masks is remembered, in this process and,
    through a small pointer file beside it, for the next task processes.
    """
    cache, source = _cache_dir(), _source_key()
    known = _KNOWN_FILES.get((cache, source))
    if known is not None and known.exists():
        return known
    pointer = cache / f"log4j2-masked-for-{source}.path"
    with contextlib.suppress(OSError, ValueError):
        path = Path(pointer.read_text(encoding="utf-8").strip())
        if path.parent == cache and path.name.startswith("log4j2-masked-") and path.exists():
            _KNOWN_FILES[cache, source] = path
            return path
    text = masked_properties(spark_defaults())
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = cache / f"log4j2-masked-{digest}.properties"
    if not path.exists():
        _write_atomically(path, text)
    _write_atomically(pointer, str(path))
    _KNOWN_FILES[cache, source] = path
    return path


#: (cache folder, source key of :func:`_source_key`) -> the masked configuration file found for it
#: in this process
_KNOWN_FILES: dict[tuple[Path, str], Path] = {}


def _source_key() -> str:
    """What the file's content depends on: this pyspark's jars (its location and version) and the
    masks (the library's rules)."""
    import pyspark

    identity = repr((os.path.dirname(pyspark.__file__), pyspark.__version__, redaction.LOG4J_MASKS, _FORMAT))
    return hashlib.sha256(identity.encode()).hexdigest()[:16]


#: bumped when :func:`masked_properties` changes what it writes for the same masks
_FORMAT = 1


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def spark_defaults() -> str:
    """Spark's own default log4j2 configuration, from the jars pyspark ships."""
    try:
        import pyspark

        jars = os.path.join(os.path.dirname(pyspark.__file__), "jars")
        for jar in sorted(glob.glob(os.path.join(jars, "spark-common-utils*.jar"))) + sorted(
            glob.glob(os.path.join(jars, "spark-core_*.jar"))
        ):
            with zipfile.ZipFile(jar) as archive:
                if _DEFAULTS_RESOURCE in archive.namelist():
                    return archive.read(_DEFAULTS_RESOURCE).decode("utf-8")
    except Exception as error:
        log.debug("Spark's default log4j2 configuration not found in the jars: %s", error)
    return FALLBACK_DEFAULTS


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lineage-operators"


__all__ = [
    "configuration_file",
    "masked_pattern",
    "masked_properties",
    "user_configuration",
    "with_masked_logging",
]
