#!/usr/bin/env bash
# The harness's main job on the built-in fixtures: builds devplan, then inspects, simulates and
# runs every fixture program and the real ExecuTorch files, and prints a summary table; then the
# same under ExecuTorch 1.5.1's own runtime (--runtime executorch, with a differential fuzz
# campaign) for the generated fixtures and the exported device programs both engines run.
# Exit 0 when every program behaves as expected and nothing leaked.
#
#   scripts/run.sh
#   DEVPLAN_SKIP_EXECUTORCH=1 scripts/run.sh   # runtime_ext only (no executorch wheel)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
jobs=${JOBS:-$(nproc)}
cmake --preset default >/dev/null
cmake --build --preset default -j "$jobs" --target devplan devplan_fixture_programs

build/bin/devplan report --out build/report \
  build/fixtures/programs/*.pte fixtures/executorch/*.pte

if [ "${DEVPLAN_SKIP_EXECUTORCH:-0}" = 1 ]; then
  exit 0
fi
echo
exported=fixtures/executorch/exporter
exec build/bin/devplan report --runtime executorch --out build/report-executorch \
  build/fixtures/programs/*.pte \
  "$exported"/devplan_one_delegate.pte "$exported"/devplan_broadcast.pte \
  "$exported"/devplan_two_delegates.pte "$exported"/devplan_two_devices.pte \
  "$exported"/devplan_cpu_around_device.pte "$exported"/devplan_two_methods.pte
