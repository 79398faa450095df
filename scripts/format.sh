#!/usr/bin/env bash
# Formats every C++ and CUDA source of the repository (git's tracked and new files) with clang-format 14 and the root .clang-format.
#
#   scripts/format.sh            # rewrites the files in place
#   scripts/format.sh --check    # changes nothing; lists each unformatted file, exit 1 if any
#                                # (.ci/run runs this)
set -euo pipefail
cd "$(dirname "$0")/.."

check=0
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  *) echo "usage: scripts/format.sh [--check]" >&2; exit 2 ;;
esac

# Debian names the binary clang-format-14; the clang-format package adds the plain name.
formatter=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$formatter" ]; then
  echo "format.sh: clang-format 14 not found (scripts/bootstrap.sh installs clang-format-14)" >&2
  exit 2
fi

# Tracked and new (not ignored) files that exist in the work tree.
files=()
while IFS= read -r file; do
  [ -f "$file" ] && files+=("$file")
done < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.h' '*.cu' '*.cuh' | sort -u)
if [ "$check" -eq 0 ]; then
  "$formatter" -i "${files[@]}"
  exit 0
fi

unformatted=()
for file in "${files[@]}"; do
  if ! "$formatter" --dry-run --Werror "$file" >/dev/null 2>&1; then
    unformatted+=("$file")
  fi
done
if [ ${#unformatted[@]} -gt 0 ]; then
  printf 'format.sh: not formatted: %s\n' "${unformatted[@]}" >&2
  echo "format.sh: ${#unformatted[@]} file(s) differ from .clang-format; run scripts/format.sh" >&2
  exit 1
fi
echo "format.sh: ${#files[@]} files formatted"
