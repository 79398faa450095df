#!/usr/bin/env bash
# Builds devplan from nothing and runs the default test labels (unit, property, and cuda,
# which skips with a reason where there is no GPU). Non-zero exit on any failure.
#
#   scripts/test.sh                     # default preset, build/
#   scripts/test.sh --with-sanitizers   # also the asan preset's unit and property labels (CI)
#   JOBS=4 scripts/test.sh              # parallelism (default: number of cores)
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizers=0
for arg in "$@"; do
  case "$arg" in
    --with-sanitizers) sanitizers=1 ;;
    *) echo "usage: scripts/test.sh [--with-sanitizers]" >&2; exit 2 ;;
  esac
done

scripts/bootstrap.sh

jobs=${JOBS:-$(nproc)}
start=$(date +%s)

cmake --preset default >/dev/null
cmake --build --preset default -j "$jobs"
ctest --preset default -j "$jobs" --output-junit "$PWD/build/test-results.xml"
echo "test.sh: default preset passed in $(( $(date +%s) - start )) s"

if [ "$sanitizers" -eq 1 ]; then
  JOBS=$jobs scripts/sanitize.sh asan
fi
echo "test.sh: all passed in $(( $(date +%s) - start )) s"
