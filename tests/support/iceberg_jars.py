"""Test-only: the Apache Iceberg Spark runtime for Spark 3.5 and the relocated Jackson it needs.

The runtime comes from the ``snowpark-connect-deps-iceberg`` wheel on the package registry; that
jar references a relocated Jackson (``org.apache.iceberg.shaded.com.fasterxml.jackson``) it does not
contain, so plain Jackson 2.18 (the ``snowpark-connect-deps-2`` wheel) is relocated here: entries
moved under the prefix and the class files' constant-pool UTF-8 entries rewritten, in plain Python.

Everything lands in a cache outside the repository (``$LINEAGE_ICEBERG_CACHE``, else
``~/.cache/lineage-operators/iceberg``); a second run finds the jars and returns at once.
``python -m tests.support.iceberg_jars`` prints the two jar paths (comma-joined, for ``spark.jars``).
Never a runtime dependency of the package.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

ICEBERG_WHEEL = ("snowpark-connect-deps-iceberg", "1.0.3")
JACKSON_WHEEL = ("snowpark-connect-deps-2", "3.56.7")
RUNTIME_JAR = "iceberg-spark-runtime-3.5_2.12-1.10.2.jar"
JACKSON_VERSION = "2.18.8"
JACKSON_JARS = tuple(f"jackson-{n}-{JACKSON_VERSION}.jar" for n in ("core", "databind", "annotations"))
#: Bump when the relocation changes, so a cached jar built by an older recipe is rebuilt.
RECIPE = 1
RELOCATED_JAR = f"iceberg-shaded-jackson-{JACKSON_VERSION}-r{RECIPE}.jar"

PREFIX = "org/apache/iceberg/shaded/"
_SLASH = re.compile(rb"(?<!shaded/)com/fasterxml/jackson/")
_DOT = re.compile(rb"(?<!shaded\.)com\.fasterxml\.jackson\.")
_SLASH_TO = PREFIX.encode() + b"com/fasterxml/jackson/"
_DOT_TO = PREFIX.replace("/", ".").encode() + b"com.fasterxml.jackson."

# --------------------------------------------------------------------------------------------
# pure parts: names, text and the class-file constant pool
# --------------------------------------------------------------------------------------------


def relocate_bytes(data: bytes) -> bytes:
    """Jackson's package in slash and dot form moved under the prefix (already moved ones stay)."""
    return _DOT.sub(_DOT_TO, _SLASH.sub(_SLASH_TO, data))


def relocate_entry_name(name: str) -> str | None:
    """The relocated jar's name for entry ``name``; None drops it.

    Classes and resources under ``com/fasterxml/jackson/`` move; service files are renamed;
    multi-release copies, module descriptors, signatures and the manifest are dropped (the base
    classes serve every JVM, and a rewritten class would break a signature).
    """
    if name.startswith("META-INF/versions/") or name.endswith("module-info.class"):
        return None
    if name == "META-INF/MANIFEST.MF" or name.upper().endswith((".SF", ".RSA", ".DSA")):
        return None
    if name.startswith("META-INF/services/"):
        return "META-INF/services/" + relocate_bytes(name[len("META-INF/services/") :].encode()).decode()
    if name.startswith("com/fasterxml/jackson/"):
        return PREFIX + name
    if name.startswith("META-INF/") or name.endswith("/"):
        return None
    return name


# constant-pool tag -> size of its payload in bytes (Utf8 has a length prefix instead)
_FIXED = {
    3: 4,
    4: 4,
    5: 8,
    6: 8,
    7: 2,
    8: 2,
    9: 4,
    10: 4,
    11: 4,
    12: 4,
    15: 3,
    16: 2,
    17: 4,
    18: 4,
    19: 2,
    20: 2,
}


def relocate_class(data: bytes) -> bytes:
    """A class file with every constant-pool UTF-8 entry relocated (the rest copied as is).

    Class names, descriptors, signatures and string literals all live in UTF-8 entries, so this is
    what a shading plugin's relocation does. Raises ValueError on a file that is not a class.
    """
    if data[:4] != b"\xca\xfe\xba\xbe":
        raise ValueError("not a class file")
    (count,) = struct.unpack_from(">H", data, 8)
    out = bytearray(data[:10])
    pos, index = 10, 1
    while index < count:
        tag = data[pos]
        if tag == 1:
            (length,) = struct.unpack_from(">H", data, pos + 1)
            text = relocate_bytes(data[pos + 3 : pos + 3 + length])
            if len(text) > 0xFFFF:
                raise ValueError("constant too long after relocation")
            out += bytes([1]) + struct.pack(">H", len(text)) + text
            pos += 3 + length
        elif tag in _FIXED:
            out += data[pos : pos + 1 + _FIXED[tag]]
            pos += 1 + _FIXED[tag]
        else:
            raise ValueError(f"unknown constant-pool tag {tag} at entry {index}")
        index += 2 if tag in (5, 6) else 1  # long and double take two slots
    out += data[pos:]
    return bytes(out)


def relocated_entries(jars: list[tuple[str, bytes]]) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of the relocated jar from the (name, bytes) of every entry of the input jars."""
    seen: set[str] = set()
    for name, data in jars:
        target = relocate_entry_name(name)
        if target is None or target in seen:
            continue
        seen.add(target)
        if name.endswith(".class"):
            yield target, relocate_class(data)
        elif name.startswith("META-INF/services/"):
            yield target, relocate_bytes(data)
        else:
            yield target, data


# --------------------------------------------------------------------------------------------
# the cache: download, extract, build
# --------------------------------------------------------------------------------------------


def cache_dir() -> Path:
    configured = os.environ.get("LINEAGE_ICEBERG_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "lineage-operators" / "iceberg"


def _pip() -> list[str]:
    """pip of this interpreter, else of the ``python3`` on PATH (uv-made environments have no pip)."""
    probe = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, check=False)
    if probe.returncode == 0:
        return [sys.executable, "-m", "pip"]
    return [shutil.which("python3") or "python3", "-m", "pip"]


def _wheel(cache: Path, package: str, version: str) -> Path:
    wheels = cache / "wheels"
    stem = package.replace("-", "_") + f"-{version}-"
    found = [p for p in wheels.glob("*.whl") if p.name.startswith(stem)] if wheels.is_dir() else []
    if not found:
        wheels.mkdir(parents=True, exist_ok=True)
        spec = f"{package}=={version}"
        subprocess.run(
            [*_pip(), "download", "--quiet", "--no-deps", "--only-binary", ":all:", "-d", str(wheels), spec],
            check=True,
        )
        found = [p for p in wheels.glob("*.whl") if p.name.startswith(stem)]
    if not found:
        raise FileNotFoundError(f"no wheel of {package} {version} in {wheels}")
    return found[0]


def _extract(wheel: Path, names: tuple[str, ...], into: Path) -> list[Path]:
    with zipfile.ZipFile(wheel) as archive:
        members = {Path(m).name: m for m in archive.namelist() if m.endswith(".jar")}
        paths = []
        for name in names:
            target = into / name
            if not target.exists():
                with (
                    archive.open(members[name]) as src,
                    tempfile.NamedTemporaryFile(dir=into, delete=False) as d,
                ):
                    shutil.copyfileobj(src, d)
                Path(d.name).chmod(0o644)
                Path(d.name).replace(target)
            paths.append(target)
    return paths


def _build_relocated(sources: list[Path], target: Path) -> None:
    def entries() -> Iterator[tuple[str, bytes]]:
        for jar in sources:
            with zipfile.ZipFile(jar) as archive:
                for info in archive.infolist():
                    if not info.is_dir():
                        yield info.filename, archive.read(info)

    with (
        tempfile.NamedTemporaryFile(dir=target.parent, suffix=".jar", delete=False) as tmp,
        zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as out,
    ):
        out.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
        for name, data in relocated_entries(list(entries())):
            out.writestr(name, data)
    Path(tmp.name).chmod(0o644)
    Path(tmp.name).replace(target)


def ensure_jars() -> list[Path]:
    """[Iceberg runtime jar, relocated Jackson jar], fetched and built once into :func:`cache_dir`."""
    cache = cache_dir()
    runtime, relocated = cache / RUNTIME_JAR, cache / RELOCATED_JAR
    if runtime.is_file() and relocated.is_file():
        return [runtime, relocated]
    cache.mkdir(parents=True, exist_ok=True)
    if not runtime.is_file():
        _extract(_wheel(cache, *ICEBERG_WHEEL), (RUNTIME_JAR,), cache)
    if not relocated.is_file():
        sources = _extract(_wheel(cache, *JACKSON_WHEEL), JACKSON_JARS, cache)
        _build_relocated(sources, relocated)
    return [runtime, relocated]


def main() -> None:
    print(",".join(str(p) for p in ensure_jars()))


if __name__ == "__main__":
    main()
