#!/usr/bin/env python3
"""Calibrate once on a torch run, choose a schedule torch has no class for, run it, check.

The loop a researcher runs with Stagecraft and torch.distributed.pipelining, on CPU with gloo:

1. **Record a reference run** of one of torch's own schedule classes (Interleaved1F1B), with the
   torch profiler (per-rank Chrome traces; torch names every action `PP:<action>`).
2. **Fit** torch's runtime model to it (`stagecraft.fit_torch_run`) and **predict** the
   registered schedules as torch would run them on this machine, including ones torch has no
   class for (V-1F1B, Hanayo): "calibrate once, choose a schedule".
3. **Design**: generate the chosen schedule with Stagecraft and write torch's CSV
   (`Schedule.to_torch_csv`).
4. **Run it in torch**: `_PipelineScheduleRuntime._load_csv` takes the order as it is, the same
   model and data, profiled the same way.
5. **Check** the prediction of step 2 against that run, which the fit never saw.

Needs torch (not a Stagecraft dependency; use a throw-away environment) and the stagecraft module
(`pip install ./python`, or the repository's build on PYTHONPATH):

    python3 -m venv VENV && VENV/bin/pip install torch numpy
    PYTHONPATH=build/python VENV/bin/python examples/torch-end-to-end/end_to_end.py OUTDIR

Without torch, `--from OUTDIR` repeats steps 2, 3 and 5 on the recorded traces (the committed
ones in examples/torch-end-to-end/recorded are what this script wrote).
"""

import argparse
import glob
import json
import lzma
import os
import socket
import sys
import tempfile

import stagecraft as sc

WORLD = 2  # ranks (pipeline devices)
MICROBATCHES = 8
LAYERS = 8  # Linear + ReLU, split into 2 stages per rank (4 stages of 2 layers)
HIDDEN = 512
ROWS = 32  # rows per micro-batch
WARMUP, PROFILED = 2, 6  # steps: run first, then recorded
REFERENCE = "Interleaved1F1B"  # torch's class recorded in step 1
CHOSEN = "v-1f1b"  # Stagecraft's schedule run in step 4
CANDIDATES = ["1f1b", "interleaved", "breadth-first", "zb-v", "v-1f1b", "hanayo", "dualpipev"]


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(rank, cfg):
    """One pipeline rank: the whole model built identically, its stages taken, profiled steps."""
    import torch
    import torch.distributed as dist
    from torch.distributed.pipelining import PipelineStage
    from torch.distributed.pipelining import schedules as S

    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(cfg["port"])
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    layers = [torch.nn.Sequential(torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU()) for _ in range(LAYERS)]
    n_stages = 2 * WORLD
    per_stage = LAYERS // n_stages
    mine = cfg["stages_of_rank"][rank]
    stages = [
        PipelineStage(torch.nn.Sequential(*layers[s * per_stage:(s + 1) * per_stage]), s, n_stages, torch.device("cpu"))
        for s in mine
    ]
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(MICROBATCHES * ROWS, HIDDEN, generator=gen)
    y = torch.randn(MICROBATCHES * ROWS, HIDDEN, generator=gen)

    def loss_fn(out, target):
        return torch.nn.functional.mse_loss(out, target)

    if cfg["csv"]:
        # A schedule torch has no class for: its runtime takes the order from Stagecraft's CSV.
        schedule = S._PipelineScheduleRuntime(stages, n_microbatches=MICROBATCHES, loss_fn=loss_fn)
        schedule._load_csv(cfg["csv"], format="compute_only")
    else:
        schedule = getattr(S, "Schedule" + cfg["cls"])(stages, n_microbatches=MICROBATCHES, loss_fn=loss_fn)
    first, last = 0 in mine, n_stages - 1 in mine

    def step():
        args = (x,) if first else ()
        kwargs = {"target": y, "losses": []} if last else {}
        schedule.step(*args, **kwargs)

    dist.barrier()
    plan = torch.profiler.schedule(wait=0, warmup=WARMUP, active=PROFILED, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=plan) as prof:
        for _ in range(WARMUP + PROFILED):
            step()
            dist.barrier()
            prof.step()
    # Written under its bare name: torch keeps the path it is given in the trace.
    os.chdir(cfg["out_dir"])
    prof.export_chrome_trace(f"{cfg['name']}_rank{rank}.json")
    dist.destroy_process_group()


def record(out_dir, name, stages_of_rank, cls=None, csv=None):
    import torch.multiprocessing as mp

    cfg = {"port": free_port(), "out_dir": out_dir, "name": name, "stages_of_rank": stages_of_rank,
           "cls": cls, "csv": csv}
    mp.spawn(worker, args=(cfg,), nprocs=WORLD, join=True)
    print(f"recorded {name}: " + ", ".join(f"{name}_rank{r}.json" for r in range(WORLD)))


def stages_of_ranks(schedule):
    """Each rank's stages, ascending, from a Stagecraft schedule's placement."""
    ranks = [[] for _ in range(schedule.devices)]
    for stage, (device, _chunk) in enumerate(schedule.placement[0]):
        ranks[device].append(stage)
    return [sorted(r) for r in ranks]


def unpacked(folder):
    """`folder`, or a temporary copy of it with its `*.json.xz` traces decompressed (the committed
    recording is packed with xz -9; the readers take plain JSON)."""
    packed = glob.glob(os.path.join(folder, "*.json.xz"))
    if not packed:
        return folder
    scratch = tempfile.mkdtemp(prefix="stagecraft-end-to-end-")
    for path in packed:
        with lzma.open(path) as source, open(os.path.join(scratch, os.path.basename(path)[:-3]), "wb") as target:
            target.write(source.read())
    return scratch


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", nargs="?", help="where the traces, the CSV and the report go")
    parser.add_argument("--from", dest="recorded", help="use the traces in this folder; run no torch")
    args = parser.parse_args()
    out_dir = os.path.abspath(args.recorded or args.out_dir or "end-to-end")
    os.makedirs(out_dir, exist_ok=True)
    traces = unpacked(out_dir) if args.recorded else out_dir
    reference = f"{REFERENCE}_pp{WORLD}_m{MICROBATCHES}"
    chosen = f"{CHOSEN}_pp{WORLD}_m{MICROBATCHES}"
    report = {}

    # Step 1: the reference run, one of torch's classes (loop placement: stage s on rank s mod p).
    if not args.recorded:
        record(out_dir, reference, [[r, r + WORLD] for r in range(WORLD)], cls=REFERENCE)

    # Step 2: fit, then predict every candidate as torch would run it on this machine.
    fit = sc.fit_torch_run([os.path.join(traces, reference)])
    report["fit"] = {"run": reference, "residual": {k: v for k, v in fit.residual.items() if k != "ranks"},
                     "shared_processors": fit.shared_processors, "notes": fit.notes}
    print(f"fitted on {reference}: residual makespan {100 * fit.residual['makespan_error']:+.1f} %, "
          f"bubble {100 * fit.residual['bubble_error']:+.1f} points")
    predictions = fit.predict(CANDIDATES, pp=WORLD, microbatches=MICROBATCHES, chunks=2)
    report["predictions"] = predictions
    print(f"{'schedule':14s} {'torch runs it as':16s} {'makespan ms':>12s} {'bubble':>8s}")
    for p in predictions:
        if p["refusal"]:
            print(f"{p['schedule']:14s} {'-':16s} {'refused':>12s}   {p['refusal']}")
        else:
            print(f"{p['schedule']:14s} {p['runtime']:16s} {p['makespan'] / 1000:12.2f} {100 * p['bubble']:7.1f}%")

    # Step 3: design. The chosen schedule as torch's compute-only CSV.
    order = sc.generate(CHOSEN, WORLD, MICROBATCHES)
    sc.validate(order)
    csv_path = os.path.join(out_dir, f"{CHOSEN}.csv")
    if not args.recorded:
        with open(csv_path, "w") as f:
            f.write(order.to_torch_csv())

    # Step 4: run it in torch, through _PipelineScheduleRuntime's CSV loader.
    if not args.recorded:
        record(out_dir, chosen, stages_of_ranks(order), csv=csv_path)

    # Step 5: the prediction of step 2 against the run the fit never saw.
    check = fit.check([os.path.join(traces, chosen)])
    predicted = next(p for p in predictions if p["schedule"] == CHOSEN)
    report["check"] = {"run": chosen, **{k: v for k, v in check.items() if k != "ranks"},
                       "predicted_before_the_run_ms": predicted["makespan"] / 1000}
    print(f"{CHOSEN} as torch ran it: {check['measured_makespan'] / 1000:.2f} ms, predicted before the run "
          f"{predicted['makespan'] / 1000:.2f} ms ({100 * (predicted['makespan'] / check['measured_makespan'] - 1):+.1f} %); "
          f"bubble {100 * check['measured_bubble']:.1f} % measured, {100 * predicted['bubble']:.1f} % predicted")
    with open(os.path.join(out_dir if not args.recorded else traces, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
