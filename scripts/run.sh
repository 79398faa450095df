#!/usr/bin/env bash
# The harness's main job on the built-in fixtures: builds devplan, then inspects, simulates and
# runs every fixture program and the real ExecuTorch files, and prints a summary table.
# Exit 0 when every program behaves as expected and nothing leaked.
#
#   scripts/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
jobs=${JOBS:-$(nproc)}
cmake --preset default >/dev/null
cmake --build --preset default -j "$jobs" --target devplan devplan_fixture_programs

exec build/bin/devplan report --out build/report \
  build/fixtures/programs/*.pte fixtures/executorch/*.pte
