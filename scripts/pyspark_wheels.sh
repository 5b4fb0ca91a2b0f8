#!/usr/bin/env bash
# Build each pyspark release the test environments need once, as a wheel, into a wheelhouse the Makefile
# points uv at (UV_FIND_LINKS); uv prefers a wheel to a source archive of the same version.
#
# Why: pyspark is published as a source archive only (~450 MB), and the registry's answers carry no cache
# validators, so uv downloads and builds it again for every environment and keeps every build in its cache:
# ~2 GB per environment, 20-30 GB per `make test`, until a CI run failed with "No space left on device".
# With the wheelhouse, a version is built once (~15 s) and every environment hard-links one unpacked copy.
#
# Usage: pyspark_wheels.sh PYTHON REQUIREMENT... (e.g. "pyspark<5", "pyspark==3.5.*", "pyspark==4.0.0").
# A requirement whose newest match is already in the wheelhouse costs one index lookup (~0.6 s).
set -euo pipefail
python=$1
shift
wheelhouse=${PYSPARK_WHEELHOUSE:-$HOME/.cache/lineage-operators/pyspark-wheels}
mkdir -p "$wheelhouse"
for requirement in "$@"; do
  if ! output=$("$python" -m pip wheel --quiet --no-deps --no-cache-dir \
      --find-links "$wheelhouse" --wheel-dir "$wheelhouse" "$requirement" 2>&1); then
    echo "$output" >&2
    echo "error: could not build a wheel for '$requirement' into $wheelhouse" >&2
    exit 1
  fi
done
