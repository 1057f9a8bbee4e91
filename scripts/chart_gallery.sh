#!/usr/bin/env bash
# Regenerates the chart gallery of docs/charts.md: the papers' schedules at p=4, m=8 under unit
# costs and the zb-6.2b sample, as SVG and PDF at a single-column (240 pt) and a double-column
# (500 pt) width, written by stagecraft-cli export (the same chart the app exports).
#   bash scripts/chart_gallery.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
cli="${1:-build}/app/cli/stagecraft-cli"
out=docs/images/gallery
mkdir -p "$out"
unit=(--set costs.mode=unit --set parallel.pp=4 --set parallel.microbatches=8 --set model.layers=16)
for width in 240 500; do
  for schedule in 1f1b 1f1b-recompute interleaved zb-h1 zb-v zb-v-half zb-v-min v-1f1b hanayo chimera bitpipe \
    bitpipe-figure dualpipev seq1f1b seq1f1b-i terapipe; do
    for ext in svg pdf; do
      "$cli" export -s "$schedule" "${unit[@]}" --set parallel.chunks=2 --width "$width" \
        -o "$out/$schedule-p4-m8-${width}pt.$ext" >/dev/null
    done
  done
  for ext in svg pdf; do
    "$cli" export samples/zb-6.2b.stagecraft.json -s zb-v --width "$width" \
      -o "$out/zb-6.2b-zb-v-${width}pt.$ext" >/dev/null
  done
done
"$cli" export samples/zb-6.2b.stagecraft.json -s zb-v --unit-time --set parallel.pp=4 \
  --set parallel.microbatches=8 --width 500 -o "$out/zb-v-unit-time-500pt.svg" >/dev/null
echo "wrote $(ls "$out" | wc -l) files to $out"
