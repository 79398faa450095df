#!/usr/bin/env bash
# Mutation score of the `unit`, `property` and `executorch` tests, measured with a mutation
# tool (universalmutator: regular-expression rules for C and C++). Not part of CI.
#
#   scripts/mutation-score.sh [--sample N] [--seed S] [--shard I/N] [PATH...]
#   scripts/mutation-score.sh --per-folder N [--seed S] [PATH...]   # a score per folder
#
# Generates every mutant of PATH (default: the .cpp files of runtime_ext/ and mocks/ that the
# build compiles), shuffles them with the seed, keeps the first N that compile (-fsyntax-only
# with the file's own compile command), builds each one incrementally in a scratch tree and
# runs the tests with a timeout. --per-folder N takes N mutants from each folder of the report
# (harness/cli ... runtime_ext/executor; at least one per file) and adds a table by folder.
# Prints killed, survived, timed out and the score; writes every survivor's diff to $MUTATION_DIR/report.md. Mutants listed in
# scripts/mutation-equivalent.txt, and those that compile to the original's object code, are
# equivalent and do not count. --help lists the other options. Exit status: 0 after a
# complete run, 2 when it could not run (the scratch tree does not build, bad arguments).
#
# Environment: MUTATION_DIR (scratch folder, default ${TMPDIR:-/tmp}/devplan-mutation),
# JOBS (default 2), RC_PARAMS (default seed=1, so the property tests see the same cases).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
venv=$repo/.venv-mutation
tool_version=1.14.1

if [ ! -x "$venv/bin/mutate" ] ||
   [ "$("$venv/bin/pip" show universalmutator 2>/dev/null | sed -n 's/^Version: //p')" != "$tool_version" ]; then
  echo "mutation-score: installing universalmutator $tool_version into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "universalmutator==$tool_version"
fi

export RC_PARAMS=${RC_PARAMS:-seed=1}
export PYTHONDONTWRITEBYTECODE=1
exec python3 "$repo/scripts/mutation/mutation_score.py" --mutate-tool "$venv/bin/mutate" "$@"
