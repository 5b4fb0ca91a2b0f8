"""Secret redaction: applied to everything before it leaves the capture or reaches a log line.

Pure string functions, standard library only. ``redact_url`` and ``redact_text`` never raise:
whatever they cannot parse is redacted with coarser regular expressions instead.

Size: one regular expression family per secret shape (URLs, key-value pairs, JDBC properties,
cloud keys), each with the cases it must not touch; they share one redaction pass.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

REDACTED = "***"

__all__ = [
    "LOG4J_MASKS",
    "REDACTED",
    "SPARK_REDACTION_CONF",
    "is_secret_key",
    "redact_mapping",
    "redact_text",
    "redact_url",
    "secret_values",
]

# Substrings of the key with separators removed ("fs.s3a.secret.key" -> "fss3asecretkey").
_SECRET_SUBSTRINGS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "credential",
    "apikey",
    "accesskey",
    "privatekey",
    "accountkey",
    "sslkey",
    "signingkey",
    "masterkey",
    "encryptionkey",
    "connectionstring",
    "sastoken",
    "authorization",
)
# Whole segments of the key ("spark.openlineage.transport.auth.type", "PWD", "fs.azure.sas.x").
_SECRET_SEGMENTS = frozenset({"pwd", "sas", "auth", "token", "sig", "jwt", "bearer"})
# "<qualifier>.key" is a secret key ("api.key", "ssl.key", "fs.azure.account.key.<host>").
_KEY_QUALIFIERS = frozenset(
    {"access", "secret", "private", "account", "api", "ssl", "encryption", "master", "signing", "sse"}
)
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NON_ALNUM_RE = re.compile(r"[^A-Za-z0-9]+")


def _segments(key: str) -> list[str]:
    return [s.lower() for s in _NON_ALNUM_RE.split(_CAMEL_RE.sub("_", key)) if s]


def is_secret_key(key: str) -> bool:
    """True for option/conf keys that hold secrets (``*password*``, ``*secret*``, ``*token*``, ...).

    Case-insensitive. Matches keys containing password, passwd, passphrase, secret, credential(s),
    api key / access key / private key / account key / ssl key (in any spelling: ``apiKey``,
    ``api_key``, ``api-key``, ``api.key``), connection strings, SAS tokens, Authorization; and keys
    with a segment ``pwd``, ``sas``, ``auth``, ``token`` (or ending in ``token``: ``sessionToken``,
    ``oauthtoken``). Not secret: ``user``/``username``, ``tokenizer``, ``max_tokens``,
    ``spark.authenticate``, ``spark.sql.shuffle.partitions``. Non-strings are never secret keys.
    """
    if not isinstance(key, str) or not key:
        return False
    segments = _segments(key)
    compact = "".join(segments)
    if any(s in compact for s in _SECRET_SUBSTRINGS):
        return True
    for index, segment in enumerate(segments):
        if segment in _SECRET_SEGMENTS or (
            segment.endswith("token") and segment != "token" and len(segment) > 5
        ):
            return True
        if segment == "key" and index > 0 and segments[index - 1] in _KEY_QUALIFIERS:
            return True
    return False


# ------------------------------------------------------------------------------------------------
# URLs ------------------------------------------------------------------------------------------------

_AZURE_SCHEME_RE = re.compile(r"(?i)^(abfss?|wasbs?)$")
_SCHEME_SEP_RE = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*)://")
_PORT_THEN_PATH_RE = re.compile(r"^[^:@/]*:\d*(?:[/?#;,]|$)")
_ORACLE_CREDS_RE = re.compile(r"(?i)(jdbc:oracle:[a-z0-9]+:)[^@\s/()]*/[^@\s]*@")
_MULTI_HOST_CREDS_RE = re.compile(r"(?<=,)[^,@/?#\s;()]+:[^,@/?#\s;()]*@")
_PAIR_RE = re.compile(
    r"(?P<sep>[?&;:,(])\s*(?P<key>[A-Za-z_][\w.\-]*)\s*=\s*(?P<val>\{[^}]*\}|[^&;,()\s]*)(?P<close>\))?"
)


def _host_without_userinfo(scheme: str, host: str) -> str:
    userinfo, at, rest = host.rpartition("@")
    if not at or (_AZURE_SCHEME_RE.match(scheme) and ":" not in userinfo):
        return host
    return rest


def _strip_userinfo(url: str) -> str:
    """Remove ``user[:password]@`` after every ``scheme://`` (Azure ``container@`` is kept)."""
    out: list[str] = []
    pos = 0
    for match in _SCHEME_SEP_RE.finditer(url):
        start = match.end()
        if start < pos:
            continue
        out.append(url[pos:start])
        pos = start
        ws = re.search(r"\s", url[start:])
        end = start + ws.start() if ws else len(url)
        terminator = re.search(r"[/?#;]", url[start:end])
        auth_end = start + terminator.start() if terminator else end
        authority = url[start:auth_end]
        if "," in authority and "@" in authority:  # several hosts, each may carry user:pw@
            out.append(",".join(_host_without_userinfo(match.group(1), h) for h in authority.split(",")))
            pos = auth_end
            continue
        at = url.rfind("@", start, auth_end)  # the last '@' of the authority: passwords may hold '@'
        if at < 0:
            # a password with an unescaped '/', '?' or '#': user:pa/ss@host
            at = url.find("@", start, end)
            if at < 0:
                continue
            userinfo = url[start:at]
            if ":" not in userinfo or _PORT_THEN_PATH_RE.match(userinfo):
                continue
        userinfo = url[start:at]
        if _AZURE_SCHEME_RE.match(match.group(1)) and ":" not in userinfo:
            continue
        pos = at + 1
    out.append(url[pos:])
    return "".join(out)


def _drop_secret_pairs(url: str) -> str:
    def replace(match: re.Match[str]) -> str:
        if not is_secret_key(match.group("key")):
            return match.group(0)
        sep = match.group("sep")
        if sep == "(" and match.group("close"):
            return ""  # (password=x) -> nothing
        if sep in "?(":
            return sep  # keep the opening, the next separator is cleaned up below
        return match.group("close") or ""

    result = _PAIR_RE.sub(replace, url)
    result = re.sub(r"\?[&;]+", "?", result)
    result = re.sub(r"([&;,])[&;,]+", r"\1", result)
    result = re.sub(r"\(,", "(", result)
    result = re.sub(r"[?&]$", "", result)
    return result


# Spark Connect URLs: ``sc://host:port/;token=...;user_id=...``. The user id names who runs the
# job on a shared server: treated as a credential in these URLs only.
_CONNECT_URL_RE = re.compile(r"(?i)\bsc://[^\s\"'<>]*")
_CONNECT_PARAM_RE = re.compile(r"(?i)(;\s*(?:user_id|token)\s*=)[^;\s\"'<>]*")


def _redact_connect_urls(text: str) -> str:
    """``sc://h:1/;token=T;user_id=U`` -> ``sc://h:1/;token=***;user_id=***``."""
    return _CONNECT_URL_RE.sub(
        lambda m: _CONNECT_PARAM_RE.sub(lambda p: p.group(1) + REDACTED, m.group(0)), text
    )


def redact_url(url: str) -> str:
    """Remove userinfo and secret query parameters from a URL or JDBC URL.

    * ``scheme://user:pw@host`` and ``scheme://user@host`` -> ``scheme://host`` (each host of a
      multi-host URL too); ``abfss://container@account...`` is not userinfo and is kept.
    * ``jdbc:oracle:thin:user/pw@host`` -> ``jdbc:oracle:thin:@host``.
    * parameters with a secret key (see :func:`is_secret_key`) are dropped wherever they appear:
      ``?password=..&``, ``;password=..``, ``(password=..)``, ``,password=..``. Others (``user=``,
      ``ssl=``) are kept.
    * Spark Connect URLs (``sc://host/;token=...;user_id=...``): ``token`` and ``user_id`` values
      become ``REDACTED``.

    Never raises: on any error the text is redacted with :func:`redact_text`, and if even that
    fails the whole value is replaced by ``REDACTED``.
    """
    try:
        if not isinstance(url, str):
            url = str(url)
        result = _ORACLE_CREDS_RE.sub(r"\1@", _redact_connect_urls(url))
        result = _strip_userinfo(result)
        result = _MULTI_HOST_CREDS_RE.sub("", result)
        return _drop_secret_pairs(result)
    except Exception:
        try:
            return redact_text(url)
        except Exception:
            return REDACTED


# ------------------------------------------------------------------------------------------------
# free text ------------------------------------------------------------------------------------------------

_TEXT_USERINFO_RE = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*)://(?P<userinfo>[^\s/?#\"'<>]+)@")
_TEXT_USERINFO_SLASH_RE = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*)://[^\s:/@\"'<>]+:[^\s@\"'<>]*@")
_AUTH_HEADER_RE = re.compile(
    r"(?i)\b(?P<head>(?:proxy-)?authorization\s*[:=]\s*[\"']?)(?P<scheme>(?:bearer|basic|token|digest|negotiate)\s+)?"
    r"(?P<cred>[^\s,;\"']+)"
)
_BEARER_RE = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9\-._~+/]{8,}=*")
_KV_RE = re.compile(
    r"(?P<q>[\"']?)(?P<key>[A-Za-z_][\w.\-]*)(?P=q)(?P<sep>\s*(?:=>|=|:)\s*)"
    r"(?=(?P<val>\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\{[^}]*\}|[^\s,;&)\]}\"']+))"
)
_SQL_PASSWORD_RE = re.compile(r"(?i)\b(password\s+)('(?:[^']|'')*'|\"[^\"]*\")")
_SQL_IDENTIFIED_RE = re.compile(r"(?i)\b(identified\s+by\s+)('(?:[^']|'')*'|\"[^\"]*\"|[^\s;]+)")
_AUTH_SCHEMES = frozenset({"bearer", "basic", "token", "digest", "negotiate", REDACTED})
_AWS_KEY_ID_RE = re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")


def _redact_userinfo(match: re.Match[str]) -> str:
    userinfo = match.group("userinfo")
    if _AZURE_SCHEME_RE.match(match.group("scheme")) and ":" not in userinfo:
        return match.group(0)
    return match.group("scheme") + "://"


def _redact_pairs(text: str) -> str:
    """Replace the values of secret ``key=value`` / ``"key": "value"`` pairs.

    Only ``key<sep>`` is consumed by the scan (the value is a look-ahead), so a value of a
    non-secret key is still searched: ``url='jdbc:...&password=x'`` redacts the password.
    """
    out: list[str] = []
    pos = 0
    for match in _KV_RE.finditer(text):
        if match.start() < pos or not is_secret_key(match.group("key")):
            continue
        value = match.group("val")
        after = text[match.end() + len(value) :]
        if value.lower() in _AUTH_SCHEMES and after.lstrip().startswith(REDACTED) and after[:1].isspace():
            continue  # "Authorization: Bearer ***": the credential is already redacted
        quote = value[0] if value[:1] in ("'", '"') else ""
        out.append(text[pos : match.end()])
        out.append(f"{quote}{REDACTED}{quote}")
        pos = match.end() + len(value)
    out.append(text[pos:])
    return "".join(out)


def redact_text(text: str) -> str:
    """Redact URLs with credentials and ``key=secret`` pairs inside free text (messages, SQL).

    Handles ``scheme://user:pw@host``, ``jdbc:oracle:thin:user/pw@host``, ``password=...``,
    ``"password": "..."``, ``secret.key: ...`` (any key :func:`is_secret_key` accepts, with ``=``,
    ``:`` or ``=>``), ``Authorization: Bearer ...``, bare ``Bearer <token>``, SQL ``PASSWORD '...'``
    and ``IDENTIFIED BY ...``, AWS access key ids, and Spark Connect ``token``/``user_id``
    parameters. Never raises; a non-string is converted with
    ``str`` first.
    """
    try:
        if not isinstance(text, str):
            text = str(text)
        result = _ORACLE_CREDS_RE.sub(r"\1@", _redact_connect_urls(text))
        result = _TEXT_USERINFO_SLASH_RE.sub(lambda m: m.group("scheme") + "://", result)
        result = _TEXT_USERINFO_RE.sub(_redact_userinfo, result)
        result = _AUTH_HEADER_RE.sub(
            lambda m: f"{m.group('head')}{m.group('scheme') or ''}{REDACTED}", result
        )
        result = _BEARER_RE.sub(lambda m: m.group(1) + REDACTED, result)
        result = _SQL_PASSWORD_RE.sub(lambda m: f"{m.group(1)}'{REDACTED}'", result)
        result = _SQL_IDENTIFIED_RE.sub(lambda m: f"{m.group(1)}'{REDACTED}'", result)
        result = _redact_pairs(result)
        return _AWS_KEY_ID_RE.sub(REDACTED, result)
    except Exception:
        return REDACTED


# ------------------------------------------------------------------------------------------------
# mappings ------------------------------------------------------------------------------------------------

_URLISH_RE = re.compile(r"(?i)^\s*(jdbc:|[a-z][a-z0-9+.\-]*://)")


def _redact_value(value: object, depth: int) -> object:
    if depth > 32:
        return REDACTED
    if isinstance(value, str):
        return redact_url(value) if _URLISH_RE.match(value) else redact_text(value)
    if isinstance(value, Mapping):
        return _redact_mapping(value, depth + 1)
    if isinstance(value, (list, tuple)):
        items = [_redact_value(v, depth + 1) for v in value]
        return items if isinstance(value, list) else tuple(items)
    return value


def _redact_mapping(values: Mapping[Any, object], depth: int) -> dict[Any, object]:
    result: dict[Any, object] = {}
    for key, value in values.items():
        if isinstance(key, str) and is_secret_key(key) and value is not None:
            result[key] = _redact_value(value, depth) if isinstance(value, Mapping) else REDACTED
        else:
            result[key] = _redact_value(value, depth)
    return result


def redact_mapping(values: Mapping[str, object]) -> dict[str, object]:
    """Copy of ``values`` with secret keys' values replaced and URL values redacted.

    Values of secret keys (:func:`is_secret_key`) become ``REDACTED`` (``None`` stays ``None``; a
    nested mapping under a secret key is redacted recursively rather than dropped). Other string
    values go through :func:`redact_url` when they look like a URL (``jdbc:...``, ``scheme://...``)
    and :func:`redact_text` otherwise; nested mappings, lists and tuples are handled recursively.
    The input is not modified.
    """
    return _redact_mapping(values, 0)


# ------------------------------------------------------------------------------------------------
# Spark's own redaction, for sessions this library creates
# ------------------------------------------------------------------------------------------------

#: What ``spark.redaction.string.regex`` replaces (case-insensitive): URL userinfo, ``key=value``
#: pairs whose key names a secret, AWS access key ids.
_SPARK_SECRETS_IN_TEXT = (
    r"(?<=://)[^\s/@'\"]+@"
    r"|(password|passwd|pwd|secret|token|user_id|sig|api[._-]?key|access[._-]?key|account[._-]?key)"
    r"\s*(=|->|:)\s*[^&;,\s)'\"]+"
    r"|\b(AKIA|ASIA)[0-9A-Z]{16}\b"
)
#: Where a match can start: after ``://``, or at the first two letters of a keyword above. Spark
#: runs the regex over every plan description (each execution, each adaptive re-plan) on the
#: query's thread; with this look-ahead first, Java's matcher passes most positions of plan text
#: after one check instead of trying every alternative: 3x faster, the same matches.
_SPARK_SECRET_STARTS = r"(?=[pPsStTuUaA][aAwWeEiIoOsSpPcCkK]|(?<=://))"

#: Java regular expressions for Spark's ``spark.redaction.regex`` (conf keys/values whose value is
#: hidden in the UI, event logs and ``SparkConf`` dumps) and ``spark.redaction.string.regex`` (text
#: replaced in SQL text, plan strings and ``explain`` output), covering what :func:`is_secret_key`
#: and :func:`redact_text` cover. Spark applies neither to its own log4j lines.
SPARK_REDACTION_CONF: dict[str, str] = {
    "spark.redaction.regex": (
        r"(?i)secret|password|passwd|passphrase|credential|token|pwd|\bsas\b|\bauth\b|\bsig\b|\bjwt\b|bearer|authorization"
        r"|(api|access|private|account|ssl|signing|master|encryption)[._-]?key|connection[._-]?string"
    ),
    "spark.redaction.string.regex": _SPARK_SECRET_STARTS + "(?i:" + _SPARK_SECRETS_IN_TEXT + ")",
}


#: Java regular expressions and replacements for Spark's own log4j2 lines (the layouts of the
#: configuration :mod:`lineage_operators.spark.session.log4j` gives sessions the operator launches), in the
#: order applied: what :func:`redact_text` masks, as patterns ``java.util.regex`` and Python's
#: ``re`` read alike (tests/unit/test_log4j.py applies them with ``re``). ``$1`` keeps the key.
_SECRET_KEY_WORDS = (
    r"password|passwd|passphrase|pwd|secret|credentials?|token|user_id|sig|sas|jwt|authorization"
    r"|(?:api|access|private|account|ssl|signing|master|encryption)[._-]?key|connection[._-]?string"
)
LOG4J_MASKS: tuple[tuple[str, str], ...] = (
    (r"(?i)(jdbc:oracle:[a-z0-9]+:)[^@\s/()]*/[^@\s]*@", "$1***@"),
    (r"(?<=://)[^\s/@'\"<>]+@", "***@"),
    (r"(?i)(bearer\s+)[A-Za-z0-9._~+/-]{8,}=*", "$1***"),
    (r"(?i)(identified\s+by\s+)[^\s;]+", "$1***"),
    (r"(?i)(password\s+)'[^']*'", "$1'***'"),
    (
        r"(?i)([\w.-]*(?:" + _SECRET_KEY_WORDS + r")[\w.-]*[\"']?\s*(?:=>|->|=|:)\s*[\"']?)[^\s&;,)\]\"']+",
        "$1***",
    ),
    (r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", "***"),
)


# ------------------------------------------------------------------------------------------------
# the secrets themselves, for maskers that replace known values (Airflow's)
# ------------------------------------------------------------------------------------------------


def _secrets_in_text(text: str) -> list[str]:
    """The parts of ``text`` that :func:`redact_text` removes or replaces, as they were."""
    import difflib

    redacted = redact_text(text)
    if redacted == text:
        return []
    found: list[str] = []
    matcher = difflib.SequenceMatcher(None, text, redacted, autojunk=False)
    for op, i1, i2, _, _ in matcher.get_opcodes():
        removed = text[i1:i2]
        if op == "replace":
            found.append(removed.strip("'\""))
        elif op == "delete":  # userinfo "user:pw@" or Oracle "user/pw": the credential part only
            credential = re.split(r"[:/]", removed.rstrip("@"), maxsplit=1)
            found.append(credential[-1] if len(credential) > 1 else removed.rstrip("@"))
    return [s for s in found if s and s != REDACTED]


def secret_values(value: object, *, _depth: int = 0) -> list[str]:
    """Every secret :func:`redact_mapping` / :func:`redact_text` would hide in ``value``, verbatim.

    For maskers that hide known strings wherever they appear (Airflow's ``mask_secret``): values
    of secret keys, passwords in URLs, ``password=...`` values, tokens. Never raises.
    """
    try:
        if _depth > 32 or value is None:
            return []
        if isinstance(value, str):
            return _secrets_in_text(value)
        found: list[str] = []
        if isinstance(value, Mapping):
            for key, item in value.items():
                if isinstance(key, str) and is_secret_key(key) and isinstance(item, (str, int, float)):
                    found.append(str(item))
                else:
                    found += secret_values(item, _depth=_depth + 1)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for item in value:
                found += secret_values(item, _depth=_depth + 1)
        return list(dict.fromkeys(s for s in found if s))
    except Exception:
        return []
