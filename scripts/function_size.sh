#!/usr/bin/env bash
# Lists the functions outside tests that break the size limits of docs/architecture.md: more than
# 120 lines, or a cyclomatic complexity above 40. Measured with lizard (PyPI), which is not a build
# dependency: install it anywhere (e.g. `python3 -m venv /tmp/lizard && /tmp/lizard/bin/pip install
# lizard`) and point LIZARD at it. Exit status 1 when a function is over a limit.
#   LIZARD=/tmp/lizard/bin/lizard bash scripts/function_size.sh [DIR...]
set -euo pipefail
cd "$(dirname "$0")/.."
lizard="${LIZARD:-lizard}"
if ! command -v "$lizard" >/dev/null; then
  echo "lizard not found: pip install lizard, or set LIZARD to its path" >&2
  exit 2
fi
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(core app gpu_runtime python/src)
# .cu files are C++ to lizard too.
mapfile -t files < <(find "${dirs[@]}" -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' \) | sort)
# -w prints one line per offender: "file:line: warning: NAME has N NLOC, C CCN, ... L length".
if out="$("$lizard" --length 120 --CCN 40 --warnings_only "${files[@]}")"; then
  echo "no function over 120 lines or cyclomatic complexity 40 in ${dirs[*]}"
  exit 0
fi
printf '%s\n' "$out" | sed -E 's/^(.*): warning: (.*)$/\2  (\1)/' | sort
echo "$(printf '%s\n' "$out" | grep -c warning) function(s) over 120 lines or cyclomatic complexity 40" >&2
exit 1
