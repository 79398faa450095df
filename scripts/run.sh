#!/usr/bin/env bash
# The harness's main job: builds devplan, then inspects, checks, simulates and runs every
# generated fixture, the real ExecuTorch files and the programs of ExecuTorch 1.5.1's exporter,
# and prints a summary table (methods an engine has no kernel or backend for are listed as not
# run); then the same under ExecuTorch's own runtime (--runtime executorch, with a differential
# fuzz campaign); then checks every program against the committed memory budget
# (fixtures/budget.json: devplan budget check). Exit 0 when every program behaves as expected,
# nothing leaked and nothing grew beyond the budget.
#
#   scripts/run.sh
#   DEVPLAN_SKIP_EXECUTORCH=1 scripts/run.sh   # runtime_ext only (no executorch wheel)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
jobs=${JOBS:-$(nproc)}
cmake --preset default >/dev/null
cmake --build --preset default -j "$jobs" --target devplan devplan_fixture_programs

upstream=fixtures/executorch/upstream-1.5.1
exported=fixtures/executorch/exporter
# wild_external_data.pte keeps its constants in a data file, wild_split_data.pte in two: every
# program is given all three (their keys differ; the others have no external tensor and ignore
# them).
data=(--data "$exported"/wild_external_data.ptd --data "$exported"/wild_split_data_first.ptd
  --data "$exported"/wild_split_data_second.ptd)
build/bin/devplan report --out build/report "${data[@]}" \
  build/fixtures/programs/*.pte fixtures/executorch/*.pte "$upstream"/*.pte "$exported"/*.pte \
  "$exported"/*.bpte

if [ "${DEVPLAN_SKIP_EXECUTORCH:-0}" != 1 ]; then
  echo
  # Not devplan_legacy.pte: ExecuTorch 1.5.1 cannot set its inputs. Not model_scale_64gib.pte:
  # ExecuTorch 1.5.1 writes a device tensor's initial value with a host memcpy, which faults on
  # device memory (a finding that ExecutorchFindings.AnInitialValueOnADeviceIsWrittenByTheHost
  # pins; `devplan simulate --runtime executorch` on it shows it). Both in
  # docs/executorch-divergences.md.
  build/bin/devplan report --runtime executorch --out build/report-executorch "${data[@]}" \
    $(ls build/fixtures/programs/*.pte | grep -v model_scale_64gib.pte) fixtures/executorch/add.pte \
    "$upstream"/*.pte \
    $(ls "$exported"/*.pte | grep -v devplan_legacy.pte) "$exported"/*.bpte
fi

# The memory budget: planned and peak device bytes, what a load allocates under each engine,
# the plans' ratio to their bounds. A failure names what grew and prints the command that
# records the new figures (review the diff of fixtures/budget.json before committing it).
echo
build/bin/devplan budget check fixtures/budget.json "${data[@]}" \
  build/fixtures/programs/*.pte fixtures/executorch/*.pte "$upstream"/*.pte "$exported"/*.pte \
  "$exported"/*.bpte
