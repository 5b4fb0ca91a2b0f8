"""The disk cache of compiled JVM classes, without a JVM: where it lives, its key, whole writes, and that
nothing but a whole, matching, trusted file is ever read back."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from lineage_operators.spark.jvm import class_cache
from lineage_operators.spark.jvm.class_cache import CacheKey

HANDLES = b"\xca\xfe\xba\xbe" + bytes(range(256)) * 4
INNER = b"\xca\xfe\xba\xbe\x00\x00\x00=inner"
CLASSES = {"lineage_operators.Handles": HANDLES, "lineage_operators.Handles$QueryRelay": INNER}


def _key(source: str = "class Handles {}", spark: str = "4.3.0") -> CacheKey:
    return CacheKey.of("lineage_operators.Handles", source, spark, "2.13.18", "17.0.15")


def test_the_root_is_the_user_cache_unless_relocated_or_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(class_cache.sys, "platform", "linux")
    home = {"XDG_CACHE_HOME": "/xdg"}
    assert class_cache.cache_root(home) == Path("/xdg/lineage-operators/jvm-classes")
    monkeypatch.setenv("HOME", "/home/someone")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert class_cache.cache_root({}) == Path("/home/someone/.cache/lineage-operators/jvm-classes")
    assert class_cache.cache_root({class_cache.ENV_VAR: "/srv/jvm"}) == Path("/srv/jvm")
    for off in ("off", "OFF", "0", "false", " none "):
        assert class_cache.cache_root({class_cache.ENV_VAR: off}) is None


def test_the_key_changes_with_the_source_and_each_version() -> None:
    base = _key()
    assert base.source_sha256 == _key().source_sha256
    assert len(base.source_sha256) == 64
    others = [
        _key("class Handles { int x; }"),
        _key(spark="3.5.9"),
        CacheKey.of("lineage_operators.Handles", "class Handles {}", "4.3.0", "2.12.18", "17.0.15"),
        CacheKey.of("lineage_operators.Handles", "class Handles {}", "4.3.0", "2.13.18", "21.0.2"),
    ]
    paths = {class_cache.cache_path(Path("/c"), key) for key in [base, *others]}
    assert len(paths) == 5


def test_a_path_never_leaves_its_root_whatever_a_version_says() -> None:
    key = CacheKey.of("../../evil", "s", "4.3.0/../../x", "2.13", "17 beta")
    path = class_cache.cache_path(Path("/c"), key)
    assert path.parent.parent == Path("/c")
    assert "/" not in key.folder()
    assert "/" not in key.file_name()
    assert " " not in key.folder()


def test_stored_classes_load_back_equal(tmp_path: Path) -> None:
    root = tmp_path / "made" / "on" / "first" / "use"
    path = class_cache.store(root, _key(), CLASSES)
    assert path == class_cache.cache_path(root, _key())
    assert class_cache.load(root, _key()) == CLASSES
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left behind


def test_another_key_finds_nothing(tmp_path: Path) -> None:
    class_cache.store(tmp_path, _key(), CLASSES)
    assert class_cache.load(tmp_path, _key("class Handles { int changed; }")) is None
    # a file renamed to another key's name is still not that key's
    other = _key(spark="4.2.0")
    target = class_cache.cache_path(tmp_path, other)
    target.parent.mkdir(parents=True)
    class_cache.cache_path(tmp_path, _key()).rename(target)
    assert class_cache.load(tmp_path, other) is None


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # a torn write
        lambda text: b"",
        lambda text: b"not json",
        lambda text: text.replace(b'"sha256": "', b'"sha256": "0'),
        lambda text: _with_class(text, "lineage_operators.Handles", b"\xca\xfe\xba\xbe tampered"),
        lambda text: _with_class(text, "lineage_operators.Handles", b"no magic"),
        lambda text: _without(text, "lineage_operators.Handles"),
    ],
)
def test_a_damaged_file_is_ignored_never_raised(tmp_path: Path, damage) -> None:  # type: ignore[no-untyped-def]
    path = class_cache.store(tmp_path, _key(), CLASSES)
    assert path is not None
    path.write_bytes(damage(path.read_bytes()))
    assert class_cache.load(tmp_path, _key()) is None


def _with_class(text: bytes, name: str, data: bytes) -> bytes:
    """A file whose class bytes changed and whose digest was made again to match: only the magic
    check or nothing stands between it and the JVM, so the digest alone is not what is tested."""
    document = json.loads(text)
    classes = {k: base64.b64decode(v) for k, v in document["classes"].items()}
    classes[name] = data
    document["classes"][name] = base64.b64encode(data).decode()
    if data.startswith(class_cache.CLASS_MAGIC):
        return json.dumps(document).encode()  # digest left as it was: the change must be caught
    document["sha256"] = class_cache.digest(classes)
    return json.dumps(document).encode()


def _without(text: bytes, name: str) -> bytes:
    document = json.loads(text)
    del document["classes"][name]
    document["sha256"] = class_cache.digest({k: base64.b64decode(v) for k, v in document["classes"].items()})
    return json.dumps(document).encode()


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")
def test_a_file_others_can_write_is_not_loaded(tmp_path: Path) -> None:
    path = class_cache.store(tmp_path, _key(), CLASSES)
    assert path is not None
    path.chmod(0o666)
    assert class_cache.load(tmp_path, _key()) is None
    path.chmod(0o644)
    assert class_cache.load(tmp_path, _key()) == CLASSES


def test_an_unwritable_cache_only_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("the cache root cannot be a directory")
    with caplog.at_level("DEBUG", logger="lineage_operators"):
        assert class_cache.store(blocker / "root", _key(), CLASSES) is None
        assert class_cache.load(blocker / "root", _key()) is None
    assert any("cannot write compiled classes" in r.getMessage() for r in caplog.records)
    assert all(r.levelname == "DEBUG" for r in caplog.records)


def test_a_failed_write_leaves_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full_disk(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(class_cache.os, "replace", full_disk)
    assert class_cache.store(tmp_path, _key(), CLASSES) is None
    assert list(tmp_path.rglob("*")) == [tmp_path / _key().folder()]


def test_a_rewrite_replaces_the_file_whole(tmp_path: Path) -> None:
    class_cache.store(tmp_path, _key(), {"lineage_operators.Handles": INNER})
    class_cache.store(tmp_path, _key(), CLASSES)
    assert class_cache.load(tmp_path, _key()) == CLASSES


class _Compiler:
    """What classes.py asks of Janino's ``SimpleCompiler`` after a compile."""

    def __init__(self, classes: dict[str, bytes]) -> None:
        self.classes = classes

    def getClassLoader(self) -> _Loader:
        return _Loader("compiled")

    def getBytecodes(self) -> _JavaMap:
        return _JavaMap(self.classes)


class _JavaMap:
    def __init__(self, classes: dict[str, bytes]) -> None:
        self.classes = classes

    def keySet(self) -> list[str]:
        return list(self.classes)

    def get(self, name: str) -> bytearray:
        return bytearray(self.classes[name])


class _Loader:
    def __init__(self, origin: str) -> None:
        self.origin = origin

    def loadClass(self, name: str) -> tuple[str, str]:
        return (self.origin, name)


class _Tools:
    """A JVM whose line and Java version are known; the JVM calls themselves are patched out."""

    class line:
        spark_version, scala_version = "4.3.0", "2.13.18"

    def cached(self, key: str, build: object) -> object:
        return "17.0.15"


@pytest.fixture
def jvm_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[object]]:
    from lineage_operators.spark.jvm import classes

    calls: dict[str, list[object]] = {"compile": [], "define": []}
    monkeypatch.setenv(class_cache.ENV_VAR, str(tmp_path))

    def compile_(tools: object, source: str) -> _Compiler:
        calls["compile"].append(source)
        return _Compiler(CLASSES)

    def define(tools: object, found: dict[str, bytes]) -> _Loader:
        calls["define"].append(found)
        return _Loader("cached")

    monkeypatch.setattr(classes, "_compile", compile_)
    monkeypatch.setattr(classes, "_define", define)
    monkeypatch.setattr(classes, "_instantiate", lambda tools, cls: cls)
    return calls


def test_the_first_jvm_compiles_and_stores_the_next_defines_from_bytes(
    jvm_calls: dict[str, list[object]],
) -> None:
    from lineage_operators.spark.jvm import classes

    name = "lineage_operators.Handles"
    assert classes._cached_or_compiled(_Tools(), "class Handles {}", name) == ("compiled", name)
    assert len(jvm_calls["compile"]) == 1
    assert jvm_calls["define"] == []
    assert classes._cached_or_compiled(_Tools(), "class Handles {}", name) == ("cached", name)
    assert len(jvm_calls["compile"]) == 1
    assert jvm_calls["define"] == [CLASSES]
    # another source text is another key: compiled
    assert classes._cached_or_compiled(_Tools(), "class Handles { }", name) == ("compiled", name)
    assert len(jvm_calls["compile"]) == 2


def test_bytes_that_do_not_load_are_compiled_instead(
    jvm_calls: dict[str, list[object]], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from lineage_operators.spark.jvm import classes

    name = "lineage_operators.Handles"
    classes._cached_or_compiled(_Tools(), "class Handles {}", name)

    def refused(tools: object, found: dict[str, bytes]) -> _Loader:
        raise RuntimeError("java.lang.ClassFormatError: Truncated class file")

    monkeypatch.setattr(classes, "_define", refused)
    with caplog.at_level("INFO", logger="lineage_operators"):
        assert classes._cached_or_compiled(_Tools(), "class Handles {}", name) == ("compiled", name)
    assert len(jvm_calls["compile"]) == 2
    assert any("did not load" in r.getMessage() for r in caplog.records)


def test_turned_off_nothing_is_read_or_written(
    jvm_calls: dict[str, list[object]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lineage_operators.spark.jvm import classes

    monkeypatch.setenv(class_cache.ENV_VAR, "off")
    for _ in range(2):
        classes._cached_or_compiled(_Tools(), "class Handles {}", "lineage_operators.Handles")
    assert len(jvm_calls["compile"]) == 2
    assert jvm_calls["define"] == []
    assert list(tmp_path.iterdir()) == []
