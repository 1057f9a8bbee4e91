#!/usr/bin/env python3
"""Lists the levels that torch's weight-gradient (W) ranges of recorded runs fall into.

    python3 scripts/torch/w_levels.py build/tests/data/torch-runs/pp2_h1024/InterleavedZeroBubble_pp2_v2_m8_h1024 ...

Each argument is a run's base name (RUN_rank0.json, RUN_rank1.json, ... or RUN_rep<k>_rank<r>.json
beside it). For every stage it prints the W ranges' durations grouped into levels: sorted, a new
level wherever one duration is more than 12 % above the one before. On the recordings of
tests/data/torch-runs the levels of one stage lie about one weight-sized GEMM apart (1.2 ms at
H = 1024, 64 rows): each of a W's GEMMs runs fast or about twice as long, and which changes
within a run and between runs. docs/fidelity.md ("torch's W levels") says what this means for
predictions.

A W range holds no receive wait (torch waits for received tensors inside F, I and B ranges only),
so its duration is the op's. Only the Python standard library is used.
"""

import glob
import json
import re
import sys

RANGE = re.compile(r"^PP:(\d+)W(\d+)$")
STEP = 1.12  # a new level starts more than 12 % above the previous duration


def w_durations(base):
    files = sorted(glob.glob(base + "_rank*.json") + glob.glob(base + "_rep*_rank*.json"))
    if not files:
        raise SystemExit(f"{base}: no RUN_rank<R>.json files")
    stages = {}
    for path in files:
        with open(path) as f:
            events = json.load(f)
        events = events["traceEvents"] if isinstance(events, dict) else events
        for e in events:
            m = RANGE.match(e.get("name", "")) if e.get("ph") == "X" else None
            if m and "dur" in e:
                stages.setdefault(int(m.group(1)), []).append(e["dur"] / 1000.0)
    return stages


def levels(values):
    values = sorted(values)
    groups = [[values[0]]]
    for v in values[1:]:
        if v > groups[-1][-1] * STEP:
            groups.append([])
        groups[-1].append(v)
    return groups


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    print("| run | stage | W ranges | levels: median ms (share) |")
    print("| --- | --- | --- | --- |")
    for base in sys.argv[1:]:
        stages = w_durations(base)
        if not stages:
            print(f"| {base.split('/')[-1]} | | 0 | the run has no W ranges |")
        for stage in sorted(stages):
            values = stages[stage]
            text = ", ".join(
                f"{sorted(g)[len(g) // 2]:.2f} ({100 * len(g) / len(values):.0f} %)"
                for g in levels(values)
                if len(g) >= max(2, len(values) // 20)
            )
            print(f"| {base.split('/')[-1]} | {stage} | {len(values)} | {text} |")


if __name__ == "__main__":
    main()
