#!/usr/bin/env python3
"""Records torch profiler (Kineto) traces of small torch.distributed.pipelining runs on CPU.

The per-rank Chrome traces under tests/data/torch-traces/ were written by this script, by torch's
own profiler (`torch.profiler.profile(...).export_chrome_trace`); none is edited by hand. torch is
not a build or test dependency of Stagecraft: run the script in a throw-away virtual environment,

    python3 -m venv VENV && VENV/bin/pip install torch
    VENV/bin/python scripts/torch/record_pipelining_traces.py OUTDIR

What runs: `world` processes (gloo, CPU, one thread each) build a tiny model of equal stages
(each stage two Linear + ReLU layers), split into `v` stages per rank, and run `steps` training
iterations of the schedule class with `m` micro-batches under torch.profiler (CPU activity
only; one warm-up iteration is run but not recorded, then 3 are recorded). Each rank writes
`<Class>_pp<P>_m<M>_rank<R>.json`; rank 0 also writes the schedule as torch's compute-only CSV
(`<Class>_pp<P>_m<M>.csv`, `_dump_csv`) and as `_dump_chrometrace` grids of its compute-only
and compute+comms orders (`..._chrometrace.json`, `..._comms_chrometrace.json`). Every action of torch's runtime is wrapped in
`record_function("PP:<action>")` (`PP:2F0`, `PP:1SEND_F0`, `PP:0RECV_B1`, ...), which is what
Stagecraft reads.

One line per file written is printed: file, class, pp, m, v, torch version.

For held-out fidelity tests there is a larger kit: scripts/torch/record_timing_matrix.py records
every schedule class on one shared 8-layer model (world 2 and 4, two widths, 8 profiled steps plus
8 timed unprofiled ones) into the archives under tests/data/torch-runs/ (see its README.md).
"""

import argparse
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.distributed.pipelining import PipelineStage
from torch.distributed.pipelining import schedules as S

RUNS = [
    # (class name, world size, micro-batches, stages per rank, stage->rank style)
    ("Interleaved1F1B", 2, 4, 2, "loop"),
    ("ZBVZeroBubble", 2, 4, 2, "v"),
]
HIDDEN = 1024
BATCH_PER_MB = 64
WARMUP_STEPS = 1  # run, not recorded: allocations and first-call costs
STEPS = 3  # recorded


class Stage(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.a = torch.nn.Linear(hidden, hidden)
        self.b = torch.nn.Linear(hidden, hidden)

    def forward(self, x):
        return torch.relu(self.b(torch.relu(self.a(x))))


def stage_ids(rank, world, v, style):
    if style == "v":
        return [rank, 2 * world - 1 - rank]
    return [rank + k * world for k in range(v)]


def worker(rank, world, cls_name, m, v, style, out_dir, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    n_stages = world * v
    stages = []
    for s in stage_ids(rank, world, v, style):
        module = Stage(HIDDEN)
        stages.append(PipelineStage(module, s, n_stages, torch.device("cpu")))
    cls = getattr(S, "Schedule" + cls_name)
    loss_fn = lambda out, target: torch.nn.functional.mse_loss(out, target)  # noqa: E731
    schedule = cls(stages, n_microbatches=m, loss_fn=loss_fn)
    x = torch.randn(m * BATCH_PER_MB, HIDDEN)
    y = torch.randn(m * BATCH_PER_MB, HIDDEN)
    first = 0 in stage_ids(rank, world, v, style)
    last = n_stages - 1 in stage_ids(rank, world, v, style)

    def step():
        args = (x,) if first else ()
        kwargs = {"target": y, "losses": []} if last else {}
        schedule.step(*args, **kwargs)

    base = f"{cls_name}_pp{world}_m{m}"
    if rank == 0:
        # The schedule itself, as torch writes it: its compute-only CSV and _dump_chrometrace grids.
        schedule._dump_csv(os.path.join(out_dir, base + ".csv"), format="compute_only")
        S._dump_chrometrace(schedule.pipeline_order, os.path.join(out_dir, base + "_chrometrace.json"))
        S._dump_chrometrace(schedule.pipeline_order_with_comms, os.path.join(out_dir, base + "_comms_chrometrace.json"))

    dist.barrier()
    profile_schedule = torch.profiler.schedule(wait=0, warmup=WARMUP_STEPS, active=STEPS, repeat=1)
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU], schedule=profile_schedule
    ) as prof:
        for _ in range(WARMUP_STEPS + STEPS):
            step()
            dist.barrier()
            prof.step()
    prof.export_chrome_trace(os.path.join(out_dir, f"{base}_rank{rank}.json"))
    dist.destroy_process_group()
    if rank == 0:
        print(f"{base}_rank*.json\t{cls_name}\t{world}\t{m}\t{v}\t{torch.__version__}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    port = 29611
    for cls_name, world, m, v, style in RUNS:
        mp.spawn(worker, args=(world, cls_name, m, v, style, args.out_dir, port), nprocs=world, join=True)
        port += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
