#!/usr/bin/env bash
# Spark 4 needs Java 17+: say so in one line instead of a JVM launch stack trace.
if ! command -v java >/dev/null 2>&1; then
  echo "error: Java 17 or newer is required (Spark 4), and no 'java' is on PATH. Install e.g. openjdk-17-jre-headless." >&2
  exit 1
fi
version=$(java -version 2>&1 | awk -F'"' '/version/ {print $2; exit}')
major=${version%%.*}
[ "$major" = "1" ] && major=$(echo "$version" | cut -d. -f2)
if ! [ "$major" -ge 17 ] 2>/dev/null; then
  echo "error: Java 17 or newer is required (Spark 4); found Java ${version:-unknown}." >&2
  exit 1
fi
