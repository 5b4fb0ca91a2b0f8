"""The relocation of Jackson for the Iceberg test jars (tests/support/iceberg_jars.py), over plain data."""

from __future__ import annotations

import struct

import pytest
from tests.support.iceberg_jars import relocate_bytes, relocate_class, relocate_entry_name, relocated_entries

P = "org/apache/iceberg/shaded/"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            b"com/fasterxml/jackson/core/JsonFactory",
            b"org/apache/iceberg/shaded/com/fasterxml/jackson/core/JsonFactory",
        ),
        (b"Lcom/fasterxml/jackson/a/B;", b"Lorg/apache/iceberg/shaded/com/fasterxml/jackson/a/B;"),
        (
            b"com.fasterxml.jackson.databind.Module",
            b"org.apache.iceberg.shaded.com.fasterxml.jackson.databind.Module",
        ),
        (
            b"org/apache/iceberg/shaded/com/fasterxml/jackson/x",
            b"org/apache/iceberg/shaded/com/fasterxml/jackson/x",
        ),
        (
            b"org.apache.iceberg.shaded.com.fasterxml.jackson.x",
            b"org.apache.iceberg.shaded.com.fasterxml.jackson.x",
        ),
        (b"java/lang/String", b"java/lang/String"),
        (b"com/fasterxml/jacksonx", b"com/fasterxml/jacksonx"),  # not the package
    ],
)
def test_relocate_bytes(text: bytes, expected: bytes) -> None:
    assert relocate_bytes(text) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("com/fasterxml/jackson/core/JsonFactory.class", P + "com/fasterxml/jackson/core/JsonFactory.class"),
        ("com/fasterxml/jackson/core/json/VERSION.txt", P + "com/fasterxml/jackson/core/json/VERSION.txt"),
        (
            "META-INF/services/com.fasterxml.jackson.core.JsonFactory",
            "META-INF/services/org.apache.iceberg.shaded.com.fasterxml.jackson.core.JsonFactory",
        ),
        ("META-INF/versions/9/module-info.class", None),
        ("META-INF/versions/17/com/fasterxml/jackson/core/io/X.class", None),
        ("module-info.class", None),
        ("META-INF/MANIFEST.MF", None),
        ("META-INF/LICENSE", None),
        ("META-INF/SIGNER.SF", None),
    ],
)
def test_relocate_entry_name(name: str, expected: str | None) -> None:
    assert relocate_entry_name(name) == expected


def _utf8(text: bytes) -> bytes:
    return b"\x01" + struct.pack(">H", len(text)) + text


def _class(*entries: bytes, count: int) -> bytes:
    return b"\xca\xfe\xba\xbe" + struct.pack(">HHH", 0, 52, count) + b"".join(entries) + b"TAIL"


def test_relocate_class_rewrites_utf8_entries_and_keeps_the_rest() -> None:
    name = b"com/fasterxml/jackson/core/JsonFactory"
    literal = b"com.fasterxml.jackson.core.JsonFactory"
    long_entry = b"\x05" + struct.pack(">q", 7)  # a long takes two slots
    original = _class(_utf8(name), b"\x07\x00\x01", long_entry, _utf8(literal), b"\x08\x00\x05", count=7)
    relocated = relocate_class(original)
    expected = _class(
        _utf8(b"org/apache/iceberg/shaded/" + name),
        b"\x07\x00\x01",
        long_entry,
        _utf8(b"org.apache.iceberg.shaded." + literal),
        b"\x08\x00\x05",
        count=7,
    )
    assert relocated == expected
    assert relocate_class(relocated) == relocated  # idempotent


def test_relocate_class_rejects_what_it_cannot_read() -> None:
    with pytest.raises(ValueError, match="not a class file"):
        relocate_class(b"PK\x03\x04")
    with pytest.raises(ValueError, match="unknown constant-pool tag 2"):
        relocate_class(_class(b"\x02\x00\x00", count=2))


def test_relocated_entries_moves_renames_and_drops() -> None:
    cls = _class(_utf8(b"com/fasterxml/jackson/A"), count=2)
    entries = dict(
        relocated_entries(
            [
                ("com/fasterxml/jackson/A.class", cls),
                ("META-INF/services/com.fasterxml.jackson.core.ObjectCodec", b"com.fasterxml.jackson.B\n"),
                ("META-INF/versions/9/module-info.class", b"x"),
                ("com/fasterxml/jackson/A.class", cls),  # a duplicate across jars: kept once
            ]
        )
    )
    assert entries == {
        P + "com/fasterxml/jackson/A.class": _class(_utf8(P.encode() + b"com/fasterxml/jackson/A"), count=2),
        "META-INF/services/org.apache.iceberg.shaded.com.fasterxml.jackson.core.ObjectCodec": (
            b"org.apache.iceberg.shaded.com.fasterxml.jackson.B\n"
        ),
    }
