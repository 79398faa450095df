#!/usr/bin/env bash
# Builds the benchmarks (harness/bench) and runs every *_bench binary in <build>/bin with a short
# minimum time, then prints the ratio lines they report (device/CPU load_method per size,
# tracking/malloc allocate+free per thread count, MethodMeta lookup flatness, ...). The whole run
# takes a few minutes on 2 cores (the 1,000,000-tensor planner cases alone about 30 s).
#
#   scripts/bench.sh                                  # build/ (the default preset)
#   BUILD_DIR=build-rel scripts/bench.sh              # another build folder
#   MIN_TIME=0.5 REPETITIONS=5 scripts/bench.sh       # longer runs, steadier numbers
#   scripts/bench.sh --benchmark_filter=buffers:4096  # extra arguments go to every binary
#   STRICT=1 scripts/bench.sh                         # exit 3 when a ratio misses its goal
#
# Environment: BUILD_DIR (default build), MIN_TIME (seconds per benchmark run, default 0.1),
# REPETITIONS (runs per benchmark, default 3: the table shows mean/median/stddev/cv and the
# ratios use medians), JOBS (build parallelism, default nproc), STRICT (see above).
# Output: each binary's table on stdout, saved with a JSON copy in <build>/bench-results/
# (<name>.txt, <name>.json), then a "ratios" section: every line that a binary printed starting
# with "ratio: " or "goal: ". Exit status: 0; 1 when the build or a binary fails; 3 with STRICT=1 when a
# ratio or goal line says MISSED. A benchmark that skips with an error counts as a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${BUILD_DIR:-build}
min_time=${MIN_TIME:-0.1}
repetitions=${REPETITIONS:-3}
jobs=${JOBS:-$(nproc)}
start=$(date +%s)

# Configure (the default preset for build/, a plain RelWithDebInfo build elsewhere), with the
# benchmarks switched on.
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  if [[ "$build_dir" == build ]]; then
    cmake --preset default -DDEVPLAN_BUILD_BENCHMARKS=ON >/dev/null
  else
    cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DDEVPLAN_BUILD_BENCHMARKS=ON >/dev/null
  fi
else
  cmake -S . -B "$build_dir" -DDEVPLAN_BUILD_BENCHMARKS=ON >/dev/null
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
if [[ "$build_type" == Debug || -z "$build_type" ]]; then
  echo "bench.sh: warning: $build_dir is a '${build_type:-no type}' build; numbers are not optimized" >&2
fi

# Every *_bench target the build defines.
mapfile -t targets < <(cmake --build "$build_dir" --target help |
                       grep -oE '(^|[ .])[A-Za-z0-9_]+_bench([:[:space:]]|$)' |
                       grep -oE '[A-Za-z0-9_]+_bench' | sort -u)
if [[ ${#targets[@]} -eq 0 ]]; then
  echo "bench.sh: no *_bench targets in $build_dir (is google-benchmark installed?)" >&2
  exit 1
fi
echo "bench.sh: building ${targets[*]}"
cmake --build "$build_dir" -j "$jobs" --target "${targets[@]}"

results="$build_dir/bench-results"
mkdir -p "$results"
failed=()
ratios=()
for exe in "$build_dir"/bin/*_bench; do
  [[ -x "$exe" ]] || continue
  name=$(basename "$exe")
  echo
  echo "== $name"
  if ! "$exe" --benchmark_min_time="$min_time" --benchmark_repetitions="$repetitions" \
       --benchmark_display_aggregates_only=true \
       --benchmark_out="$results/$name.json" --benchmark_out_format=json "$@" \
       2>&1 | tee "$results/$name.txt"; then
    failed+=("$name")
  elif grep -q 'ERROR OCCURRED' "$results/$name.txt"; then
    failed+=("$name (a benchmark reported an error)")
  fi
  while IFS= read -r line; do ratios+=("$line"); done < <(grep -E '^(ratio|goal): ' "$results/$name.txt" || true)
done

echo
echo "== ratios"
if [[ ${#ratios[@]} -eq 0 ]]; then
  echo "(none reported)"
else
  printf '%s\n' "${ratios[@]}"
fi
echo
echo "bench.sh: ran in $(( $(date +%s) - start )) s; results in $results/"

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "bench.sh: failed: ${failed[*]}" >&2
  exit 1
fi
if [[ "${STRICT:-0}" == 1 ]] && printf '%s\n' "${ratios[@]}" | grep -q 'MISSED'; then
  echo "bench.sh: a ratio missed its goal" >&2
  exit 3
fi
