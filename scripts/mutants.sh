#!/usr/bin/env bash
# Mutation check: proves that the `unit` and `property` tests catch real bugs. Each patch in
# scripts/mutants/ (a unified diff, never part of the build) plants one bug; this script
# applies them one at a time to a scratch copy of the source tree, builds, runs the `property`
# tests and then the `unit` tests, and reports which tests caught the mutant and how long
# that took. Every mutant must be caught: the exit status is 1 when one survives, 2 when the
# script could not do its job (a patch that no longer applies or does not build, a baseline
# that does not build).
#
#   scripts/mutants.sh                          # every mutant
#   scripts/mutants.sh 05-planner-overlap       # only these (file names without .patch)
#
# Environment:
#   MUTANTS_DIR        scratch folder, kept between runs so builds are incremental
#                      (default ${TMPDIR:-/tmp}/devplan-mutants: src/ and build/)
#   JOBS               build and test parallelism (default 2)
#   MUTANTS_RC_PARAMS  RC_PARAMS for the property tests (default "seed=1": the same cases on
#                      every run; RapidCheck's own default would pick a random seed)
#   MUTANTS_QUICK=1    stop each test run at the first failure (faster, names fewer tests)
#
# Tests that already fail without any mutant (the baseline run) are left out of the mutant
# runs and listed, so they are never counted as catching anything.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=${MUTANTS_DIR:-${TMPDIR:-/tmp}/devplan-mutants}
src=$work/src
build=$work/build
jobs=${JOBS:-2}
export RC_PARAMS=${MUTANTS_RC_PARAMS:-seed=1}
export CCACHE_BASEDIR=$work
quick=${MUTANTS_QUICK:-0}

patches=()
if [ $# -eq 0 ]; then
  for p in "$repo"/scripts/mutants/*.patch; do patches+=("$p"); done
else
  for name in "$@"; do
    p=$repo/scripts/mutants/${name%.patch}.patch
    [ -f "$p" ] || { echo "mutants.sh: no mutant $p" >&2; exit 2; }
    patches+=("$p")
  done
fi

# Files a patch changes ("+++ b/<path>").
patch_files() { sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1"; }

now() { date +%s; }

# ---- scratch tree -------------------------------------------------------------------------------
# Copy the working tree (without build folders and .git) over the scratch copy, keeping the
# files' times, so an unchanged file is not rebuilt. Files any mutant touches get a fresh time:
# a copy restored with its old time would leave a mutant's object file in place.
mkdir -p "$src" "$build"
(cd "$repo" && tar --exclude='./build*' --exclude='./.git' --exclude='./.venv*' --exclude='./out' -cf - .) |
  (cd "$src" && tar -xpf -)
for p in "$repo"/scripts/mutants/*.patch; do
  for f in $(patch_files "$p"); do [ -f "$src/$f" ] && touch "$src/$f"; done
done

restore() {  # restore the files of patch $1 from the working tree, with a fresh time
  for f in $(patch_files "$1"); do cp "$repo/$f" "$src/$f"; done
}

configure() {
  cmake -S "$src" -B "$build" -DDEVPLAN_WITH_CUDA=OFF -DDEVPLAN_BUILD_BENCHMARKS=OFF \
    -DDEVPLAN_LONG_TESTS=OFF >"$work/configure.log" 2>&1
}

build_tree() {  # keeps going past errors; returns non-zero when anything failed to build
  cmake --build "$build" -j "$jobs" -- -k >"$work/build.log" 2>&1
}

# The make targets that failed in the last build, one per line.
failed_targets() {
  sed -n 's/.*\*\*\* \[\(.*\)\] Error [0-9]*$/\1/p' "$work/build.log" | sort -u
}

# Runs the tests of label $1 (minus the baseline failures); prints the names that failed.
run_label() {
  local label=$1
  local args=(--test-dir "$build" -L "^${label}\$" -j "$jobs" --timeout 600)
  [ -n "$exclude" ] && args+=(-E "$exclude")
  [ "$quick" = 1 ] && args+=(--stop-on-failure)
  rm -f "$build/Testing/Temporary/LastTestsFailed.log"
  ctest "${args[@]}" >"$work/ctest-$label.log" 2>&1 || true
  if [ -f "$build/Testing/Temporary/LastTestsFailed.log" ]; then
    cut -d: -f2- "$build/Testing/Temporary/LastTestsFailed.log"
  fi
}

# ---- baseline ----------------------------------------------------------------------------------
echo "mutants.sh: scratch tree $src, build $build, RC_PARAMS=\"$RC_PARAMS\""
start=$(now)
configure || { echo "mutants.sh: configuring the scratch tree failed (see $work/configure.log)" >&2; exit 2; }
baseline_broken=""
if ! build_tree; then
  baseline_broken=$(failed_targets)
  cp "$work/build.log" "$work/build-baseline.log"
  echo "mutants.sh: warning: parts of the unmutated tree do not build (see" \
       "$work/build-baseline.log); their tests fail in the baseline and are left out" >&2
fi
exclude=""
baseline_failures=$( (run_label property; run_label unit) | sort -u)
if [ -n "$baseline_failures" ]; then
  echo "mutants.sh: these tests fail without any mutant and are left out:"
  echo "$baseline_failures" | sed 's/^/  /'
  exclude=$(echo "$baseline_failures" | sed 's/[][().*+?^$|\\]/\\&/g; s/.*/^&$/' | paste -sd'|')
fi
echo "mutants.sh: baseline built and tested in $(( $(now) - start )) s"

# ---- mutants -----------------------------------------------------------------------------------
survivors=0
broken=0
summary=()
for p in "${patches[@]}"; do
  name=$(basename "$p" .patch)
  echo
  echo "== $name: $(head -n 1 "$p" | sed 's/^Mutant: //')"
  t0=$(now)
  if ! (cd "$src" && patch -p1 --forward --silent <"$p" >/dev/null); then
    echo "   patch does not apply to the current tree"
    restore "$p"
    summary+=("$(printf '%-38s %-9s %5s  %s' "$name" BROKEN - "patch does not apply")")
    broken=$((broken + 1))
    continue
  fi
  # A mutant is broken when it fails to build something the unmutated tree builds.
  if ! build_tree && [ -n "$(comm -13 <(echo "$baseline_broken") <(failed_targets))" ]; then
    echo "   mutant does not build (see $work/build.log)"
    sed -n '/error:/{p;q}' "$work/build.log" | sed 's/^/   /'
    restore "$p"
    build_tree || true
    summary+=("$(printf '%-38s %-9s %5s  %s' "$name" BROKEN - "does not build")")
    broken=$((broken + 1))
    continue
  fi
  t_build=$(( $(now) - t0 ))
  caught_property=$(run_label property)
  caught_unit=""
  if [ -z "$caught_property" ] || [ "$quick" != 1 ]; then caught_unit=$(run_label unit); fi
  elapsed=$(( $(now) - t0 ))
  restore "$p"
  if [ -z "$caught_property$caught_unit" ]; then
    echo "   SURVIVED (build ${t_build} s, ${elapsed} s in all)"
    summary+=("$(printf '%-38s %-9s %4ss  %s' "$name" SURVIVED "$elapsed" "-")")
    survivors=$((survivors + 1))
    continue
  fi
  n_property=$(printf '%s' "$caught_property" | grep -c . || true)
  n_unit=$(printf '%s' "$caught_unit" | grep -c . || true)
  echo "   caught in ${elapsed} s (build ${t_build} s): ${n_property} property, ${n_unit} unit test(s) failed"
  [ -n "$caught_property" ] && echo "$caught_property" | sed 's/^/     property: /'
  [ -n "$caught_unit" ] && echo "$caught_unit" | sed 's/^/     unit:     /'
  first=$(printf '%s\n%s\n' "$caught_property" "$caught_unit" | sed '/^$/d' | head -n 1)
  summary+=("$(printf '%-38s %-9s %4ss  %s (+%d more)' "$name" caught "$elapsed" "$first" \
    $((n_property + n_unit - 1)))")
done

# Leave the scratch build matching the working tree again.
build_tree || true

echo
echo "mutant                                 result     time  caught by"
printf '%s\n' "${summary[@]}"
echo
echo "mutants.sh: ${#patches[@]} mutants, $survivors survived, $broken broken, $(( $(now) - start )) s"
if [ "$broken" -gt 0 ]; then exit 2; fi
if [ "$survivors" -gt 0 ]; then exit 1; fi
exit 0
