#!/usr/bin/env bash
# Make sure the services the test suites need are *installed* (never started):
#   - a PostgreSQL server (Debian's `postgresql`; any major version), used by
#     tests/support/postgres.py, which runs its own throwaway cluster on 127.0.0.1;
#   - the PostgreSQL JDBC driver (Debian's `libpostgresql-jdbc-java`,
#     /usr/share/java/postgresql*.jar), put on Spark's classpath by the tests;
#   - a headless browser (Debian's `chromium`, /usr/bin/chromium), which the lineage view's
#     browser tests drive through Playwright (Playwright never downloads a browser here);
#   - Node.js and npm (Debian's `nodejs`, `npm`), which build Marquez's web UI from its source
#     (tests/support/marquez_web.py) for the tests that look at the lineage in it.
#
# Idempotent and fast when everything is present (no apt-get at all then).
# It never starts a server and never starts the system-wide cluster service.
# Exit status: 0 when everything is present afterwards, 1 when it cannot install.
set -euo pipefail

log() { printf 'ensure_test_services: %s\n' "$*"; }
die() { printf 'ensure_test_services: ERROR: %s\n' "$*" >&2; exit 1; }

# The newest /usr/lib/postgresql/<major>/bin holding the server binaries the tests use.
find_pg_bin() {
    local dir best="" best_major=-1 major
    for dir in /usr/lib/postgresql/*/bin; do
        [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/postgres" ] && [ -x "$dir/psql" ] || continue
        major=${dir#/usr/lib/postgresql/}
        major=${major%/bin}
        [[ $major =~ ^[0-9]+$ ]] || continue
        if [ "$major" -gt "$best_major" ]; then best_major=$major; best=$dir; fi
    done
    [ -n "$best" ] && printf '%s\n' "$best"
}

find_jdbc_jar() {
    local jar
    for jar in /usr/share/java/postgresql.jar /usr/share/java/postgresql*.jar; do
        if [ -f "$jar" ]; then printf '%s\n' "$jar"; return 0; fi
    done
    return 1
}

missing=()
find_pg_bin >/dev/null || missing+=(postgresql)
find_jdbc_jar >/dev/null || missing+=(libpostgresql-jdbc-java)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ ${#missing[@]} -eq 0 ]; then
    log "ok: postgres $(find_pg_bin), jdbc $(find_jdbc_jar), browser /usr/bin/chromium, node $(node --version)"
    exit 0
fi

log "missing: ${missing[*]}; installing with apt-get"

command -v apt-get >/dev/null 2>&1 \
    || die "cannot install ${missing[*]}: apt-get not found (this needs a Debian/Ubuntu machine)"

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 \
        || die "cannot install ${missing[*]}: not root and sudo is not available; run this script as root"
    if [ -t 0 ]; then SUDO=(sudo); else SUDO=(sudo -n); fi
fi

as_root() { "${SUDO[@]}" "$@"; }
apt() {
    as_root env DEBIAN_FRONTEND=noninteractive apt-get -q -y \
        -o DPkg::Lock::Timeout=300 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$@"
}

# Keep the package's maintainer scripts from starting the system-wide cluster:
# invoke-rc.d and deb-systemd-invoke honour /usr/sbin/policy-rc.d (exit 101 = "don't").
# Many container images ship one already; if not, add one for the duration of the install.
POLICY=/usr/sbin/policy-rc.d
added_policy=0
cleanup() {
    if [ "$added_policy" -eq 1 ]; then as_root rm -f "$POLICY" || true; fi
}
trap cleanup EXIT
if [ ! -e "$POLICY" ]; then
    printf '#!/bin/sh\n# temporary, added by ensure_test_services.sh\nexit 101\n' \
        | as_root tee "$POLICY" >/dev/null \
        && as_root chmod 0755 "$POLICY" \
        && added_policy=1 \
        || die "cannot install ${missing[*]}: could not write $POLICY (no root rights?)"
fi

apt update >/dev/null \
    || die "cannot install ${missing[*]}: 'apt-get update' failed (no access to the Debian package registry?)"
apt install --no-install-recommends "${missing[@]}" \
    || die "cannot install ${missing[*]}: 'apt-get install' failed"

pg_bin=$(find_pg_bin) || die "installed postgresql but found no initdb/pg_ctl/postgres/psql under /usr/lib/postgresql/*/bin"
jar=$(find_jdbc_jar) || die "installed libpostgresql-jdbc-java but found no /usr/share/java/postgresql*.jar"
[ -x /usr/bin/chromium ] || die "installed chromium but found no /usr/bin/chromium"
command -v npm >/dev/null 2>&1 || die "installed nodejs and npm but found no npm on PATH"
log "ok: postgres $pg_bin, jdbc $jar, browser /usr/bin/chromium, node $(node --version)"
