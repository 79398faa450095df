#!/usr/bin/env bash
# Builds devplan from nothing and runs the default test labels (unit, property, and cuda,
# which skips with a reason where there is no GPU), then the Python package's suite
# (scripts/python-check.sh: the wheel built from the same tree, installed into a fresh virtual
# environment). Non-zero exit on any failure.
#
#   scripts/test.sh                     # default preset, build/, and the Python package
#   scripts/test.sh --with-sanitizers   # also the asan preset's unit and property labels (CI)
#   scripts/test.sh --no-python         # without the Python package's suite
#   JOBS=4 scripts/test.sh              # parallelism (default: number of cores)
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizers=0
python=1
for arg in "$@"; do
  case "$arg" in
    --with-sanitizers) sanitizers=1 ;;
    --no-python) python=0 ;;
    *) echo "usage: scripts/test.sh [--with-sanitizers] [--no-python]" >&2; exit 2 ;;
  esac
done

scripts/bootstrap.sh

jobs=${JOBS:-$(nproc)}
start=$(date +%s)

cmake --preset default >/dev/null
cmake --build --preset default -j "$jobs"
ctest --preset default -j "$jobs" --output-junit "$PWD/build/test-results.xml"
echo "test.sh: default preset passed in $(( $(date +%s) - start )) s"

if [ "$python" -eq 1 ]; then
  python_start=$(date +%s)
  scripts/python-check.sh --build-dir build
  echo "test.sh: the Python package passed in $(( $(date +%s) - python_start )) s"
fi

if [ "$sanitizers" -eq 1 ]; then
  JOBS=$jobs scripts/sanitize.sh asan
fi
echo "test.sh: all passed in $(( $(date +%s) - start )) s"
