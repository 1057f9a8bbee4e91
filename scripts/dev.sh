#!/usr/bin/env bash
# One entry point for people and CI:
#   bash scripts/dev.sh install   install the Debian 12 packages Stagecraft needs (only the missing ones)
#   bash scripts/dev.sh build     install, configure and build everything (build/)
#   bash scripts/dev.sh test      install, build, run the whole test suite (what CI runs)
#   bash scripts/dev.sh run [ARGS]  install, build, start Stagecraft on the default project (or ARGS)
# Idempotent and non-interactive: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  nlohmann-json3-dev catch2 libcli11-dev libbenchmark-dev
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
  if [ ! -f build/build.ninja ]; then
    cmake --preset default
  fi
  # Two cores, 24 GiB: let Ninja use every core; the heaviest units stay under 1 GiB each.
  cmake --build --preset default
}

cmd="${1:-run}"
shift || true
case "$cmd" in
  install) install_packages ;;
  build) build ;;
  test)
    build
    ctest --preset default "$@"
    ;;
  run)
    build
    if [ $# -eq 0 ]; then
      log "no desktop application is built yet: showing the built-in default project in the terminal"
      ./build/app/cli/stagecraft-cli show --color auto
    else
      ./build/app/cli/stagecraft-cli "$@"
    fi
    ;;
  *) log "unknown command '$cmd' (use install, build, test or run)"; exit 2 ;;
esac
