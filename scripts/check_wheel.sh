#!/usr/bin/env bash
# The Python module as a wheel, as a user outside the repository gets it: `pip wheel ./python`
# builds it (scikit-build-core over python/CMakeLists.txt, core compiled in), a fresh venv installs
# that wheel with numpy from PyPI, and the installed module (imported from outside the repository)
# simulates a schedule, reports an error id and runs a search. Needs PyPI (scikit-build-core,
# pybind11, numpy) and a core build's time, so it is a release check, not part of `dev.sh test`.
#   scripts/check_wheel.sh [WORK_DIR]     (default: a new temporary folder; kept for inspection)
# BUILD_DIR=DIR keeps scikit-build-core's CMake build there, so that a second run rebuilds little.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d)}"
python="${PYTHON:-python3}"
say() { printf '%s\n' "check_wheel: $*"; }

"$python" -m venv "$work/build-env"
build_dir=()
[[ -n "${BUILD_DIR:-}" ]] && build_dir=("--config-settings=build-dir=$(realpath -m "$BUILD_DIR")")
"$work/build-env/bin/pip" wheel "$repo/python" --no-deps -w "$work/dist" "${build_dir[@]}"
wheels=("$work"/dist/stagecraft-*.whl)
[[ -f "${wheels[0]}" ]] || { say "no wheel in $work/dist"; exit 1; }
say "built ${wheels[0]##*/}"

"$python" -m venv "$work/fresh"
"$work/fresh/bin/pip" install "${wheels[0]}"
cd "$work" # not the repository: the import must find the installed package
"$work/fresh/bin/python" - "$repo/samples/bfpp-6.6b.stagecraft.json" <<'PY'
import sys

import stagecraft as sc

assert "site-packages" in sc.__file__, sc.__file__
unit = sc.Project().with_overrides({"costs.mode": "unit", "parallel.pp": 4, "parallel.microbatches": 8})
sim = sc.simulate(unit, "1f1b")
assert sim.makespan == (8 + 4 - 1) * 3, sim.makespan  # (m + p - 1)(F + B), B = 2
try:
    sc.simulate(unit.with_overrides({"parallel.microbatches": 4}), "zb-h2")
    raise SystemExit("zb-h2 with m < 2p was accepted")
except sc.ValidationError as e:
    assert e.field == "parallel.microbatches", e.field
found = sc.search(sc.Project.load(sys.argv[1]), batch_per_gpu=1, schedules=["1f1b"], threads=2)
assert found.fitting > 0 and found.best, found
print("check_wheel: installed module at", sc.__file__, "works:", sim, found)
PY
