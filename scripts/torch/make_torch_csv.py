#!/usr/bin/env python3
"""Writes torch.distributed.pipelining schedule CSVs with torch's own writer.

The files under tests/data/torch-csv/ whose names start with a torch class name were made by this
script; none is written or edited by hand. torch is not a build or test dependency of Stagecraft:
run this script in a throw-away virtual environment,

    python3 -m venv VENV && VENV/bin/pip install torch
    VENV/bin/python scripts/torch/make_torch_csv.py OUTDIR            # the kept sample
    VENV/bin/python scripts/torch/make_torch_csv.py OUTDIR --sweep    # every pp <= 8
    python scripts/torch/make_torch_csv.py OUTDIR --lowering    # (same environment) lowering goldens

How the schedules are built without GPUs or process groups: a schedule's `pipeline_order` is
computed in its constructor from the stage count, the pipeline size and the micro-batch count
only, so the stages are `mock.create_autospec(PipelineStage)` objects, exactly as torch's own
`_schedule_visualizer.get_schedule_ops` builds them. The file is then written by the class's
`_dump_csv` (`_PipelineScheduleRuntime._dump_csv(format="compute_only" | "compute_comms")`).
ScheduleGPipe and Schedule1F1B (PipelineScheduleSingle) have no `_dump_csv` of their own; their
`pipeline_order` is written with PipelineScheduleMulti's `_dump_csv`, the same csv.writer loop,
which only reads `self.pipeline_order`.

`--lowering` writes the goldens of Stagecraft's torch lowering (tests/data/torch-csv/lowering/):
for every _PipelineScheduleRuntime class and shape of lowering_shapes(), the compute-only file and
its compute_comms lowering with the default constructor options, and for variant_shapes() the
compute_comms lowering under each option set of VARIANTS (`..._comms_<variant>.csv`). Option sets
torch refuses for a shape are listed in `refused.tsv` (file, torch's message) instead.
`--lowering-full` takes every m of 1..2pp+2 at pp = 8 as well (3.2 MB instead of 1.5).

Each file written is listed on stdout as one tab-separated line:
    file  class  pp  microbatches  v  torch-version  format
Constructor refusals (torch's own rules, e.g. Interleaved1F1B's m % rounds) are listed as
    file  class  pp  microbatches  v  torch-version  refused: <torch's message>
and no file is written for them.
"""

import argparse
import os
import sys
from unittest import mock

import torch
from torch.distributed.pipelining import schedules as S
from torch.distributed.pipelining.stage import PipelineStage

SINGLE = {"GPipe": S.ScheduleGPipe, "1F1B": S.Schedule1F1B}
MULTI = {
    "Interleaved1F1B": S.ScheduleInterleaved1F1B,
    "LoopedBFS": S.ScheduleLoopedBFS,
    "InterleavedZeroBubble": S.ScheduleInterleavedZeroBubble,
    "ZBVZeroBubble": S.ScheduleZBVZeroBubble,
}
if hasattr(S, "ScheduleDualPipeV"):
    MULTI["DualPipeV"] = S.ScheduleDualPipeV

# The kept sample: (class, pp, microbatches, v). Small files that cover each class, micro-batch
# counts that are not multiples of pp where torch allows them, v = 1..4 for InterleavedZeroBubble,
# and the 1F1B order whose last rank never runs micro-batch 0.
SAMPLE = [
    ("GPipe", 1, 2, 1),
    ("GPipe", 2, 3, 1),
    ("GPipe", 4, 8, 1),
    ("GPipe", 8, 5, 1),
    ("1F1B", 4, 8, 1),
    ("1F1B", 2, 4, 1),
    ("Interleaved1F1B", 4, 8, 2),
    ("Interleaved1F1B", 4, 10, 2),
    ("Interleaved1F1B", 4, 6, 2),
    ("Interleaved1F1B", 4, 4, 2),
    ("Interleaved1F1B", 4, 3, 2),
    ("Interleaved1F1B", 3, 8, 3),
    ("Interleaved1F1B", 8, 12, 2),
    ("LoopedBFS", 4, 5, 2),
    ("LoopedBFS", 2, 3, 3),
    ("LoopedBFS", 3, 7, 4),
    ("LoopedBFS", 8, 3, 2),
    ("InterleavedZeroBubble", 4, 8, 1),
    ("InterleavedZeroBubble", 4, 8, 2),
    ("InterleavedZeroBubble", 2, 6, 3),
    ("InterleavedZeroBubble", 3, 4, 4),
    ("InterleavedZeroBubble", 4, 5, 2),
    ("InterleavedZeroBubble", 8, 10, 2),
    ("ZBVZeroBubble", 4, 8, 2),
    ("ZBVZeroBubble", 3, 4, 2),
    ("ZBVZeroBubble", 8, 16, 2),
    ("DualPipeV", 2, 4, 2),
]
# compute_comms files kept next to their compute-only file.
# (PipelineScheduleSingle classes have no compute_comms schedule: their compute-only order already
# holds REDUCE_GRAD cells, which torch's own lowering refuses as "not compute-only".)
SAMPLE_COMMS = [
    ("LoopedBFS", 4, 5, 2),
    ("Interleaved1F1B", 4, 10, 2),
    ("InterleavedZeroBubble", 4, 8, 2),
    ("ZBVZeroBubble", 4, 8, 2),
]


# Lowering goldens: pp 2..4 at every m of 1..2pp+2, pp 8 at a spread of m (every m with
# --lowering-full); v = 2 and 3 except for the V-shaped classes, which hold two stages per rank.
V_SHAPED = ("ZBVZeroBubble", "DualPipeV")
PP8_SPREAD = (1, 3, 8, 9, 18)


def lowering_shapes(full=False):
    for name in MULTI:
        for pp in (2, 3, 4, 8):
            ms = range(1, 2 * pp + 3) if pp <= 4 or full else PP8_SPREAD
            for m in ms:
                for v in [2] if name in V_SHAPED else [2, 3]:
                    yield name, pp, m, v


# Constructor options of _PipelineScheduleRuntime that change the lowered program, by file suffix.
VARIANTS = {
    "defer-recv": {"defer_pp_recv": True},
    "sends1": {"max_outstanding_sends": 1},
    "sends2": {"max_outstanding_sends": 2},
    "sends4": {"max_outstanding_sends": 4},
    "defer-recv-sends2": {"defer_pp_recv": True, "max_outstanding_sends": 2},
    "defer-wait": {"defer_reduce_grad_wait": True},
    "active1": {"max_active_stages": 1},
    "active2": {"max_active_stages": 2},
    "lookahead-auto": {"unshard_lookahead": "auto"},
}


def variant_shapes():
    """pp 2 and 3 at m = pp + 1 and 2pp + 2, pp 4 at m = 5; v = 2."""
    for name in MULTI:
        for pp, m in ((2, 3), (2, 6), (3, 4), (3, 8), (4, 5)):
            yield name, pp, m, 2


def make_stages(pp, v):
    """Mocked stages as torch's _schedule_visualizer makes them: group rank 0, group size pp."""
    stage = mock.create_autospec(PipelineStage, instance=True)
    stage.group_rank = 0
    stage.group_size = pp
    stage.submod = None
    stage.num_stages = pp * v
    return stage, [stage for _ in range(v)]


def build(name, pp, m, v, **options):
    single, multi = make_stages(pp, v)
    if name in SINGLE:
        if v != 1:
            raise ValueError(f"{name} runs one stage per rank")
        return SINGLE[name](single, m)
    return MULTI[name](multi, m, **options)


def file_name(name, pp, m, v, fmt, variant=None):
    suffix = "" if fmt == "compute_only" else "_comms"
    if variant:
        suffix += "_" + variant
    return f"{name}_pp{pp}_m{m}_v{v}{suffix}.csv"


def dump(schedule, path, fmt):
    if isinstance(schedule, S._PipelineScheduleRuntime):
        schedule._dump_csv(path, format=fmt)
    elif fmt == "compute_only":
        S.PipelineScheduleMulti._dump_csv(schedule, path)
    else:
        raise ValueError("PipelineScheduleSingle has no compute_comms schedule")


def write(outdir, name, pp, m, v, fmt):
    path = os.path.join(outdir, file_name(name, pp, m, v, fmt))
    fields = [os.path.basename(path), name, str(pp), str(m), str(v), torch.__version__]
    try:
        schedule = build(name, pp, m, v)
    except (ValueError, AssertionError) as error:
        print("\t".join(fields + ["refused: " + str(error).replace("\n", " ")]))
        return
    dump(schedule, path, fmt)
    print("\t".join(fields + [fmt]))


def write_lowering(outdir, full):
    """The lowering goldens, and refused.tsv: the option sets torch refused, as file<TAB>message."""
    for name, pp, m, v in lowering_shapes(full):
        for fmt in ("compute_only", "compute_comms"):
            write(outdir, name, pp, m, v, fmt)
    refused = []
    for name, pp, m, v in variant_shapes():
        try:
            build(name, pp, m, v)
        except (ValueError, AssertionError):
            continue  # the shape itself is refused; nothing to vary
        for variant, options in VARIANTS.items():
            path = os.path.join(outdir, file_name(name, pp, m, v, "compute_comms", variant))
            fields = [os.path.basename(path), name, str(pp), str(m), str(v), torch.__version__]
            try:
                schedule = build(name, pp, m, v, **options)
            except (ValueError, AssertionError) as error:
                message = str(error).replace("\n", " ").replace("\t", " ")
                refused.append((os.path.basename(path), message))
                print("\t".join(fields + ["refused: " + message]))
                continue
            dump(schedule, path, "compute_comms")
            print("\t".join(fields + ["compute_comms " + variant]))
    with open(os.path.join(outdir, "refused.tsv"), "w", newline="") as f:
        for file, message in refused:
            f.write(f"{file}\t{message}\n")


def sweep():
    """Every class at pp 1..8 (2..8 for the V schedules), m 1..2pp+2, v 1..4 where it applies."""
    for name in list(SINGLE) + list(MULTI):
        for pp in range(1, 9):
            for m in range(1, 2 * pp + 3):
                if name in SINGLE:
                    chunk_counts = [1]
                elif name in ("ZBVZeroBubble", "DualPipeV"):
                    chunk_counts = [2]
                elif name == "InterleavedZeroBubble":
                    chunk_counts = [1, 2, 3, 4]
                else:
                    chunk_counts = [2, 3, 4]
                for v in chunk_counts:
                    yield name, pp, m, v


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("outdir")
    parser.add_argument("--sweep", action="store_true", help="every class at pp <= 8 instead of the sample")
    parser.add_argument("--lowering", action="store_true", help="the goldens of Stagecraft's torch lowering")
    parser.add_argument("--lowering-full", action="store_true", help="--lowering with every m at pp = 8")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    if args.lowering or args.lowering_full:
        write_lowering(args.outdir, args.lowering_full)
    elif args.sweep:
        for name, pp, m, v in sweep():
            write(args.outdir, name, pp, m, v, "compute_only")
    else:
        for name, pp, m, v in SAMPLE:
            write(args.outdir, name, pp, m, v, "compute_only")
        for name, pp, m, v in SAMPLE_COMMS:
            write(args.outdir, name, pp, m, v, "compute_comms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
