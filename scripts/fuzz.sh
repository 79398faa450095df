#!/usr/bin/env bash
# Runs one libFuzzer target of the `fuzz` preset (build-fuzz/) for a number of seconds.
#
#   scripts/fuzz.sh fuzz_program_load 1800          # 30 minutes
#   scripts/fuzz.sh fuzz_graph_plan 600 -jobs=1     # extra arguments go to libFuzzer
#   NICE=19 scripts/fuzz.sh fuzz_program_load 60    # lower priority (default 10)
#   scripts/fuzz.sh --merge fuzz_program_load       # minimise the committed seeds (-merge=1)
#
# Targets and their inputs:
#   fuzz_program_load  program bytes  seeds fixtures/corpus/program_load, dictionary libfuzzer/program.dict
#   fuzz_graph_plan    graph JSON     seeds fixtures/corpus/graph_plan,   dictionary libfuzzer/graph.dict
# New inputs go to build-fuzz/corpus/<target>/ (the committed seeds are only read), crashes to
# build-fuzz/artifacts/<target>/; the last lines of the log are libFuzzer's final statistics
# ("#N DONE cov: X ft: Y corp: Z ..."). Each run uses one core; two targets may run at once.
# A crash is a finding: the input is in the artifacts folder; once fixed, copy it to
# fixtures/corpus/regressions/<corpus>/ so the unit test fuzz_replay_test replays it.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer args...]" >&2
  echo "       scripts/fuzz.sh --merge TARGET" >&2
  exit 2
}
merge=0
if [ "${1:-}" = "--merge" ]; then merge=1; shift; fi
[ $# -ge 1 ] || usage
target=$1; shift
case "$target" in
  fuzz_program_load) corpus=program_load; dict=libfuzzer/program.dict ;;
  fuzz_graph_plan)   corpus=graph_plan;   dict=libfuzzer/graph.dict ;;
  *) echo "fuzz.sh: unknown target $target" >&2; usage ;;
esac
if [ $merge -eq 0 ]; then
  [ $# -ge 1 ] || usage
  seconds=$1; shift
  [[ "$seconds" =~ ^[0-9]+$ ]] || usage
fi

if [ -z "${DEVPLAN_FUZZ_NO_BUILD:-}" ]; then
  scripts/bootstrap.sh
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "${JOBS:-$(nproc)}" --target "$target"
fi

bin=build-fuzz/bin/$target
seeds=fixtures/corpus/$corpus
regressions=fixtures/corpus/regressions/$corpus
work=build-fuzz/corpus/$target
artifacts=build-fuzz/artifacts/$target
mkdir -p "$work" "$artifacts" "$seeds" "$regressions"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

if [ $merge -eq 1 ]; then
  # Minimise: keep the smallest set of seeds (and of what the runs found) with the same coverage.
  merged=$(mktemp -d)
  "$bin" -merge=1 -dict="$dict" "$merged" "$seeds" "$work"
  rm -f "$seeds"/*
  cp "$merged"/* "$seeds"/
  rm -rf "$merged"
  echo "fuzz.sh: $seeds now holds $(ls "$seeds" | wc -l) inputs"
  exit 0
fi

exec nice -n "${NICE:-10}" "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -dict="$dict" -artifact_prefix="$artifacts/" "$@" \
  "$work" "$seeds" "$regressions"
