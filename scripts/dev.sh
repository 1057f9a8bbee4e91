#!/usr/bin/env bash
# One entry point for people and CI:
#   bash scripts/dev.sh install   install the Debian 12 packages Stagecraft needs (only the missing ones)
#   bash scripts/dev.sh build     install, configure and build everything (build/)
#   bash scripts/dev.sh test      install, build, run the whole test suite (what CI runs), then the
#                                 sanitizer build's tests and a short libFuzzer run per reader
#   bash scripts/dev.sh fuzz [SECONDS | --runs N] [TARGET...]  a fuzzing campaign: each reader's
#                                 fuzz target (all by default) for SECONDS (default 600) or for N
#                                 executions, see docs/robustness.md
#   bash scripts/dev.sh run [ARGS]  install, build, start Stagecraft on the default project (or ARGS)
# Idempotent and non-interactive: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian 12 packages: the toolchain, core's libraries, the Qt 6 desktop application (libqt6opengl6-dev
# is what QtCharts' CMake package needs), and the tools the tests use to check exported charts and to
# run the GUI tests on a virtual display, the runtime (stagecraft-run: MPI and OpenBLAS), and the
# Python module (python3-venv: the wheel check installs it into a fresh venv).
PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  nlohmann-json3-dev catch2 libcli11-dev libbenchmark-dev
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev qt6-charts-dev libqt6opengl6-dev libgl1-mesa-dev
  libimgui-dev libglfw3-dev
  xvfb xauth fonts-dejavu-core librsvg2-bin poppler-utils libxml2-utils
  libopenmpi-dev openmpi-bin libopenblas-dev
  libsqlite3-dev
  python3-dev python3-numpy pybind11-dev python3-venv
  clang-14 libclang-rt-14-dev
)

log() { printf '\033[1m[stagecraft]\033[0m %s\n' "$*" >&2; }

install_packages() {
  local missing=()
  for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$pkg")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "all ${#PACKAGES[@]} packages are installed"
    return
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then sudo=(sudo); else
      log "missing packages: ${missing[*]}; run this script as root or install them"; exit 1
    fi
  fi
  log "installing: ${missing[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
  install_packages
  # ccache keeps a second build of an unchanged tree to seconds; it is bounded so that it never
  # grows without limit on a developer machine.
  # Three builds share it: the default one, the sanitizer one and the wheel check's.
  if command -v ccache >/dev/null; then ccache --max-size=3G >/dev/null 2>&1 || true; fi
  # Paths inside the checkout are hashed relative to it, so every clone and worktree shares one
  # cache (a fresh clone in another folder rebuilds from the cache in seconds).
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
  if [ ! -f build/build.ninja ]; then
    cmake --preset default
  fi
  # Two cores, 24 GiB: let Ninja use every core; the heaviest units stay under 1 GiB each.
  cmake --build --preset default
}

# The sanitizer and fuzzing build (build-fuzz/, the fuzz preset: clang 14, everything built with
# AddressSanitizer + UndefinedBehaviorSanitizer and libFuzzer's coverage): what the core and CLI
# tests need, and one libFuzzer binary per reader. No GUI, runtime or benchmarks.
FUZZ_BUILD_TARGETS=(stagecraft_core_tests stagecraft_app_tests stagecraft-cli stagecraft_fuzz_replay
                    stagecraft_fuzz_targets)
sanitize_build() {
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
  if [ ! -f build-fuzz/build.ninja ]; then
    cmake --preset fuzz
  fi
  cmake --build --preset fuzz --target "${FUZZ_BUILD_TARGETS[@]}"
}

# The sanitizers stop at the first finding; leaks are findings too.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

sanitize_test() {
  sanitize_build
  # Tests of parts the fuzz preset does not build (the runtime) appear as *_NOT_BUILT.
  ctest --preset fuzz -E '_NOT_BUILT' "$@"
}

fuzz_campaign() {
  # How long each target runs: a time (-max_total_time) or a number of executions (-runs).
  local limit="-max_total_time=600"
  if [ "${1:-}" = "--runs" ]; then
    limit="-runs=${2:?--runs needs a number of executions}"
    shift 2
  elif [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
    limit="-max_total_time=$1"
    shift
  fi
  sanitize_build
  local list=build-fuzz/tests/fuzz/fuzz_targets.txt out=build-fuzz/fuzz-campaign
  mkdir -p "$out"
  local jobs
  jobs="$(nproc)"
  local pids=() name dict running=0
  while read -r name dict; do
    if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
    mkdir -p "$out/$name"
    log "fuzzing $name ($limit; log: $out/$name.log, new inputs: $out/$name/)"
    nice ./build-fuzz/tests/fuzz/fuzz_"$name" "$limit" -max_len=65536 -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 -dict="$dict" -artifact_prefix="$out/$name-" \
      "$out/$name" "tests/fuzz/corpus/$name" >"$out/$name.log" 2>&1 &
    pids+=($!)
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
  done <"$list"
  local failed=0
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  while read -r name dict; do
    if [ ! -f "$out/$name.log" ]; then continue; fi
    local execs cov
    execs="$(grep -o 'stat::number_of_executed_units: [0-9]*' "$out/$name.log" | tail -1 | awk '{print $2}')"
    cov="$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$out/$name.log" | tail -1)"
    log "$name: ${execs:-?} executions, ${cov:-no coverage line}, findings: $(ls "$out/$name"-* 2>/dev/null | wc -l)"
  done <"$list"
  if [ "$failed" -ne 0 ]; then
    log "a fuzz target found a crash, leak or timeout: the input is under $out/ (docs/robustness.md says what to do)"
    exit 1
  fi
}

cmd="${1:-run}"
shift || true
case "$cmd" in
  install) install_packages ;;
  build) build ;;
  test)
    build
    ctest --preset default "$@"
    sanitize_test "$@"
    ;;
  fuzz) fuzz_campaign "$@" ;;
  run)
    build
    if [ $# -gt 0 ]; then
      ./build/app/cli/stagecraft-cli "$@"
    elif [ -x build/app/gui/stagecraft ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
      log "starting the Stagecraft desktop application on the built-in default project"
      ./build/app/gui/stagecraft
    else
      if [ -x build/app/gui/stagecraft ]; then
        log "no display (DISPLAY is not set): showing the default project in the terminal instead of the window;"
        log "run 'xvfb-run -a ./build/app/gui/stagecraft' for a virtual display, or export charts with"
        log "'./build/app/gui/stagecraft --export chart.png' or './build/app/cli/stagecraft-cli export ...'"
      else
        log "the desktop application was not built (Qt 6 not found): showing the default project in the terminal"
      fi
      ./build/app/cli/stagecraft-cli show --color auto
      echo
      ./build/app/cli/stagecraft-cli compare
    fi
    ;;
  *) log "unknown command '$cmd' (use install, build, test, fuzz or run)"; exit 2 ;;
esac
