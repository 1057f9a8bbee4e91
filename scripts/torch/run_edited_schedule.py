#!/usr/bin/env python3
"""Runs a schedule designed by hand in torch.distributed.pipelining and records what torch did.

The last step of designing a schedule by hand (docs/editing.md): the edited order, written as
torch's CSV by `stagecraft-cli edit`, is loaded by torch's own `_PipelineScheduleRuntime._load_csv`
and trained with, on CPU with gloo, one rank per stage. The script checks that torch computed the
right gradients in that order (against plain autograd on the whole model and batch) and keeps
torch's own evidence: its profiler traces per rank and its re-dump of the order it loaded. The
recording in tests/data/torch-runs/edited_pp4.tar.xz was written by this script; a ctest overlays
it on the edited schedule (tests/core/torch_edited_test.cpp). torch is not a build or test
dependency: run it in a throw-away virtual environment,

    python3 -m venv VENV && VENV/bin/pip install torch numpy
    VENV/bin/python scripts/torch/run_edited_schedule.py OUTDIR --cli build/app/cli/stagecraft-cli \\
        --edits samples/edits/1f1b-halfway.edits.json --pack tests/data/torch-runs/edited_pp4.tar.xz

Files in OUTDIR: `edited.csv` (what `stagecraft-cli edit` wrote), `edit.txt` (what it printed:
each edit and what it changed), `torch_loaded.csv` (torch's `_dump_csv` of the order it loaded),
`edited_rank<R>.json` (torch's profiler trace of rank R, `PROFILED` steps after `WARMUP`), and
`edited.meta.json` (versions, shapes, and the gradient check: the largest difference between a
parameter's gradient after one pipelined step and plain autograd's).
"""

import argparse
import json
import os
import platform
import socket
import subprocess
import sys

LAYERS = 8  # Linear(H, H) + ReLU, split into one stage per rank
HIDDEN = 256
ROWS = 16  # rows per micro-batch
WARMUP, PROFILED = 2, 4


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_model(torch):
    torch.manual_seed(0)
    return [torch.nn.Sequential(torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU()) for _ in range(LAYERS)]


def batch(torch, microbatches):
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(microbatches * ROWS, HIDDEN, generator=gen)
    y = torch.randn(microbatches * ROWS, HIDDEN, generator=gen)
    return x, y


def worker(rank, cfg):
    import torch
    import torch.distributed as dist
    from torch.distributed.pipelining import PipelineStage
    from torch.distributed.pipelining import schedules as S

    world, m = cfg["world"], cfg["microbatches"]
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(cfg["port"])
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    per_stage = LAYERS // world
    layers = build_model(torch)
    module = torch.nn.Sequential(*layers[rank * per_stage:(rank + 1) * per_stage])
    stage = PipelineStage(module, rank, world, torch.device("cpu"))
    x, y = batch(torch, m)

    def loss_fn(out, target):
        return torch.nn.functional.mse_loss(out, target)

    schedule = S._PipelineScheduleRuntime([stage], n_microbatches=m, loss_fn=loss_fn)
    schedule._load_csv(cfg["csv"], format="compute_only")
    if rank == 0:
        schedule._dump_csv(os.path.join(cfg["out_dir"], "torch_loaded.csv"), format="compute_only")

    def step():
        args = (x,) if rank == 0 else ()
        kwargs = {"target": y, "losses": []} if rank == world - 1 else {}
        schedule.step(*args, **kwargs)

    # One step from zero gradients, against plain autograd on the whole model and batch: torch's
    # runtime scales each stage's gradients by 1/m, so the reference is the mean of the
    # micro-batches' losses.
    step()
    reference = build_model(torch)
    whole = torch.nn.Sequential(*reference)
    losses = [loss_fn(whole(xm), ym) for xm, ym in zip(x.chunk(m), y.chunk(m))]
    (sum(losses) / m).backward()
    mine = [p for layer in reference[rank * per_stage:(rank + 1) * per_stage] for p in layer.parameters()]
    difference = max(float((p.grad - q.grad).abs().max()) for p, q in zip(module.parameters(), mine))
    scale = max(float(q.grad.abs().max()) for q in mine)

    module.zero_grad()
    dist.barrier()
    plan = torch.profiler.schedule(wait=0, warmup=WARMUP, active=PROFILED, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=plan) as prof:
        for _ in range(WARMUP + PROFILED):
            step()
            dist.barrier()
            prof.step()
    os.chdir(cfg["out_dir"])  # torch keeps the path it is given in the trace
    prof.export_chrome_trace(f"edited_rank{rank}.json")
    gathered = [None] * world
    dist.all_gather_object(gathered, {"rank": rank, "max_grad_difference": difference, "max_grad": scale})
    dist.destroy_process_group()
    if rank == 0:
        meta = {
            "torch_version": torch.__version__,
            "python_version": platform.python_version(),
            "runtime": "_PipelineScheduleRuntime._load_csv(format='compute_only')",
            "world": world,
            "stages": world,
            "microbatches": m,
            "layers": LAYERS,
            "layer": "Linear(H, H) + ReLU",
            "hidden": HIDDEN,
            "rows_per_microbatch": ROWS,
            "loss": "mse_loss on the last stage",
            "backend": "gloo",
            "warmup_steps": WARMUP,
            "profiled_steps": PROFILED,
            "gradient_check": gathered,
        }
        with open(os.path.join(cfg["out_dir"], "edited.meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir")
    parser.add_argument("--cli", required=True, help="stagecraft-cli, to apply the edits")
    parser.add_argument("--edits", required=True, help="the edit list (its base names pp and micro-batches)")
    parser.add_argument("--pack", metavar="ARCHIVE", help="then pack OUT_DIR's files into this .tar.xz")
    args = parser.parse_args()
    out_dir = os.path.abspath(args.out_dir)
    os.makedirs(out_dir, exist_ok=True)
    csv = os.path.join(out_dir, "edited.csv")
    printed = subprocess.run([args.cli, "edit", "--edits", args.edits, "-o", csv], check=True, capture_output=True,
                             text=True).stdout
    with open(os.path.join(out_dir, "edit.txt"), "w") as f:
        f.write(printed)
    with open(args.edits) as f:
        params = json.load(f)["base"]["params"]
    import torch.multiprocessing as mp

    cfg = {"world": params["pp"], "microbatches": params["microbatches"], "csv": csv, "out_dir": out_dir,
           "port": free_port()}
    mp.spawn(worker, args=(cfg,), nprocs=cfg["world"], join=True)
    with open(os.path.join(out_dir, "edited.meta.json")) as f:
        checks = json.load(f)["gradient_check"]
    worst = max(c["max_grad_difference"] / max(c["max_grad"], 1e-30) for c in checks)
    print(f"ran {csv} in torch: {cfg['world']} ranks, largest gradient difference against autograd "
          f"{worst:.2e} of the largest gradient")
    if args.pack:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from record_timing_matrix import pack_folder

        pack_folder(out_dir, args.pack)
        print(f"{args.pack}\t{os.path.getsize(args.pack)} bytes")
    return 0 if worst < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
