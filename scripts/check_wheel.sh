#!/usr/bin/env bash
# The Python module as a wheel, as a user outside the repository gets it: `pip wheel ./python`
# builds it (scikit-build-core over python/CMakeLists.txt, core compiled in), a fresh venv installs
# that wheel with numpy from PyPI, and the installed module (imported from outside the repository)
# simulates a schedule, reports an error id and runs a search; then `pytest python/tests` runs the
# module's whole test suite against that installed package. Needs PyPI (scikit-build-core,
# pybind11, numpy, pytest). CTest runs it as `python_wheel` (tests/CMakeLists.txt), skipped with
# the reason when PyPI cannot be reached.
#   scripts/check_wheel.sh [WORK_DIR]     (default: a new temporary folder; kept for inspection)
# BUILD_DIR=DIR keeps scikit-build-core's CMake build there, so that a second run rebuilds little
# (core's objects also come from ccache when it is installed). STAGECRAFT_CLI=PATH lets the tests
# that compare the module with the CLI run; STAGECRAFT_TORCH_RUNS=DIR and STAGECRAFT_HOST_RUNS=DIR the
# ones on recorded runs (torch's and stagecraft-run's).
# Exit status 77: PyPI could not be reached (nothing was checked).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d)}"
python="${PYTHON:-python3}"
say() { printf '%s\n' "check_wheel: $*"; }

# Reachable? pip's own index, with a short timeout: without it there is nothing to build with.
if ! "$python" - <<'PY'
import sys, urllib.request
try:
    urllib.request.urlopen("https://pypi.org/simple/scikit-build-core/", timeout=10)
except Exception as e:
    print("check_wheel: PyPI cannot be reached (%s): the wheel check needs scikit-build-core, pybind11, "
          "numpy and pytest from it; skipped" % e)
    sys.exit(1)
PY
then
  exit 77
fi

rm -rf "$work/build-env" "$work/fresh" "$work/dist"
"$python" -m venv "$work/build-env"
build_dir=()
[[ -n "${BUILD_DIR:-}" ]] && build_dir=("--config-settings=build-dir=$(realpath -m "$BUILD_DIR")")
"$work/build-env/bin/pip" wheel "$repo/python" --no-deps -w "$work/dist" "${build_dir[@]}"
wheels=("$work"/dist/stagecraft-*.whl)
[[ -f "${wheels[0]}" ]] || { say "no wheel in $work/dist"; exit 1; }
say "built ${wheels[0]##*/}"

"$python" -m venv "$work/fresh"
"$work/fresh/bin/pip" install "${wheels[0]}" pytest
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

# The module's whole suite, against the installed package (the tests import `stagecraft` from
# site-packages: the repository's python/ folder holds no built module).
"$work/fresh/bin/python" -m pytest -q -p no:cacheprovider "$repo/python/tests"
say "pytest python/tests passed against the installed wheel"
