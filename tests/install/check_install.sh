#!/usr/bin/env bash
# Installs the build into an empty prefix and runs the programs from there, then builds the
# Debian packages with CPack, unpacks the main one into another empty folder and runs the CLI from
# it: what a user gets from `cmake --install` and from the .deb, with no file of the build tree.
#   check_install.sh BUILD_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
say() { printf '[install] %s\n' "$*"; }

prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
for program in stagecraft-cli stagecraft; do
  [ -x "$prefix/bin/$program" ] || { echo "not installed: bin/$program" >&2; exit 1; }
done
for file in share/applications/stagecraft.desktop share/icons/hicolor/scalable/apps/stagecraft.svg \
            share/stagecraft/samples/zb-6.2b.stagecraft.json share/doc/stagecraft/README.md; do
  [ -f "$prefix/$file" ] || { echo "not installed: $file" >&2; exit 1; }
done
sample="$prefix/share/stagecraft/samples/zb-6.2b.stagecraft.json"

# The CLI on an installed sample, and a chart it exports, read back.
"$prefix/bin/stagecraft-cli" simulate "$sample" -s zb-v --json > "$work/simulate.json"
grep -q '"schedule": "zb-v"' "$work/simulate.json"
"$prefix/bin/stagecraft-cli" export "$sample" -s zb-h1 -o "$work/cli.svg" >/dev/null
grep -q '<svg' "$work/cli.svg"
say "stagecraft-cli: simulate and export from the prefix"

# The desktop application's headless export (no window).
QT_QPA_PLATFORM=offscreen "$prefix/bin/stagecraft" --export "$work/app.svg" --schedule zb-h1 "$sample" \
  >/dev/null 2>&1
grep -q '<svg' "$work/app.svg"
say "stagecraft --export from the prefix"

# The viewer's screenshot on a virtual display, where it was built.
if [ -x "$prefix/bin/stagecraft-view" ] && command -v xvfb-run >/dev/null; then
  xvfb-run -a "$prefix/bin/stagecraft-view" --screenshot "$work/view.png" --frames 3 "$sample" >/dev/null 2>&1
  [ "$(head -c 8 "$work/view.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    { echo "the viewer wrote no PNG" >&2; exit 1; }
  say "stagecraft-view --screenshot from the prefix"
fi

# stagecraft-run finds its CUDA module in the prefix's lib/ (where one was built).
if [ -f "$prefix/lib/libstagecraft_cuda_layer.so" ]; then
  [ -x "$prefix/bin/stagecraft-run" ] || { echo "CUDA module installed without stagecraft-run" >&2; exit 1; }
fi

# The Debian packages: dependencies read off the binaries, programs that run from the package.
(cd "$build" && cpack -G DEB -B "$work/packages" >/dev/null)
deb="$(ls "$work"/packages/stagecraft_*.deb)"
depends="$(dpkg-deb -f "$deb" Depends)"
for needed in libqt6widgets6 libc6; do
  case "$depends" in *"$needed"*) ;; *) echo "$deb: Depends lacks $needed: $depends" >&2; exit 1 ;; esac
done
dpkg-deb -x "$deb" "$work/root"
"$work/root/usr/bin/stagecraft-cli" simulate "$work/root/usr/share/stagecraft/samples/zb-1.5b.stagecraft.json" \
  -s 1f1b >/dev/null
say "$(basename "$deb"): Depends: $depends"
say "stagecraft-cli runs from the unpacked package"
