#!/usr/bin/env bash
# Whole-process pair: `stagecraft-cli simulate` of 1F1B p=64 m=M (128 x M ops: M = 8192 gives
# 1,048,576, the default; M = 131072 gives 16,777,216), unit costs, start-up and output included,
# against the minimal native list scheduler that records every op's start and end
# (baseline_1f1b_process). Runs both alternately N times and prints the median wall time and peak
# resident memory of each and their ratios.
#   bash bench/simulate_process_pair.sh [BUILD_DIR] [N] [M]
set -euo pipefail
build="${1:-build}"
runs="${2:-9}"
microbatches="${3:-8192}"
cli="$build/app/cli/stagecraft-cli"
base="$build/bench/baseline_1f1b_process"
for exe in "$cli" "$base"; do
  [ -x "$exe" ] || { echo "missing $exe: cmake --build $build --target stagecraft-cli baseline_1f1b_process" >&2; exit 2; }
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
measure() { # label command...: appends "seconds kib" to $tmp/label
  # Wall time from the clock in nanoseconds (time's %e has 10 ms steps, a fifth of the
  # million-op run); peak memory from time's %M.
  local label="$1"; shift
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f "%M" -o "$tmp/one" "$@" > "$tmp/$label.out"
  t1=$(date +%s%N)
  echo "$(awk -v ns=$((t1 - t0)) 'BEGIN {printf "%.4f", ns / 1e9}') $(cat "$tmp/one")" >> "$tmp/$label"
}
for _ in $(seq "$runs"); do
  measure cli "$cli" simulate -s 1f1b --set parallel.pp=64 --set parallel.microbatches="$microbatches" \
    --set costs.mode=unit --set parallel.dp=1 --set model.layers=64
  measure base "$base" 64 "$microbatches"
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
cli_s=$(cut -d' ' -f1 "$tmp/cli" | median); cli_k=$(cut -d' ' -f2 "$tmp/cli" | median)
base_s=$(cut -d' ' -f1 "$tmp/base" | median); base_k=$(cut -d' ' -f2 "$tmp/base" | median)
echo "makespans: cli: $(awk 'NR == 2 {print $2, $3}' "$tmp/cli.out"); baseline: $(head -1 "$tmp/base.out")"
awk -v cs="$cli_s" -v ck="$cli_k" -v bs="$base_s" -v bk="$base_k" 'BEGIN {
  printf "stagecraft-cli simulate  %7.4f s  %7.1f MiB\n", cs, ck / 1024
  printf "native baseline          %7.4f s  %7.1f MiB\n", bs, bk / 1024
  printf "ratio                    %7.2fx   %7.2fx\n", (bs > 0 ? cs / bs : 0), (bk > 0 ? ck / bk : 0)
}'
