#!/usr/bin/env python3
"""Records a matrix of real torch.distributed.pipelining runs on CPU for held-out fidelity tests.

Every schedule class runs the *same model* (same layers, same initial weights, same data), so a
simulator calibrated on some runs can be checked against the others. The archives under
tests/data/torch-runs/ were written by this script; every trace in them is torch's own profiler
output (`export_chrome_trace`), unedited. torch is not a build or test dependency of Stagecraft:
run the script in a throw-away virtual environment,

    python3 -m venv VENV && VENV/bin/pip install torch numpy
    VENV/bin/python scripts/torch/record_timing_matrix.py OUTDIR --repeats 8 --profiled-steps 4 \
        --profiled-steps-pp4 4 --unprofiled-steps 2 --pack tests/data/torch-runs

Model: L = 8 layers, each Linear(H, H) + ReLU; MSE loss on the last stage; m = 8 micro-batches of
64 rows. The 8 layers are split into S = world * v stages of 8 / S consecutive layers each. The
whole model and the data are built from fixed seeds on every rank before the split, so every
class and placement trains the same weights on the same batch.

Classes and placements (torch.distributed.pipelining.schedules):
    ScheduleGPipe, Schedule1F1B                 v = 1
    ScheduleInterleaved1F1B, ScheduleLoopedBFS,
    ScheduleInterleavedZeroBubble               v = 2, loop: rank r holds stages r, r + world
    ScheduleZBVZeroBubble, ScheduleDualPipeV    v = 2, V: rank r holds stages r, 2 * world - 1 - r
Sets (world, H): pp2_h1024 and pp2_h512 with all 7 classes; pp4_h512 with GPipe, Interleaved1F1B,
LoopedBFS and ZBVZeroBubble.

Each run: `world` processes (gloo over loopback, CPU, `torch.set_num_threads(1)` per rank). Under
torch.profiler (CPU activity, `schedule(wait=0, warmup=W, active=P)`) W warm-up steps are run and
discarded (torch's first step does its init and metadata inference), then P steps are recorded;
`dist.barrier()` follows every step. Then U unprofiled steps are timed with time.perf_counter on
every rank, each between two barriers. Files, base name `<Class>_pp<world>_v<v>_m8_h<H>`:

    <base>_rank<R>.json   rank R's Kineto trace, written by torch
    <base>.csv            torch's compute-only order (`_dump_csv(format="compute_only")`; for the
                          single-stage classes PipelineScheduleMulti's `_dump_csv`, the same writer
                          loop over `pipeline_order`, as scripts/torch/make_torch_csv.py does)
    <base>_comms.csv      multi-stage classes: `_dump_csv(format="compute_comms")`, the lowered
                          program torch's runtime executes
    <base>.meta.json      versions, shapes, step counts, per-rank step wall times (µs) of the
                          profiled and the unprofiled steps, cpu_count and load average, the
                          kernel's release and its thread time slice

With `--repeats R` every class is recorded R times, round the whole matrix each time (every class
of every set, then again), each time in new processes; the traces are then
`<base>_rep<k>_rank<R>.json`, and `<base>.meta.json` holds every repeat's step times one after the
other. Stagecraft's readers join a rank's repeats into one run (`stagecraft-cli fidelity --fit
<base>` takes them all). Repeats are what makes runs of different classes comparable on a shared
machine: one class recorded again a minute later ran the same forward in 2.7 to 4.1 ms, so a
single recording per class compares the machine's moods as much as the schedules.

Parts of the matrix: `--set` and `--class` choose sets and classes, `--hidden H` records them at
another width (into OUTDIR/pp<world>_h<H>/), and `--thread-slice-us US` sets every rank thread's
scheduler time slice after the warm-up (Linux 6.12+). docs/fidelity.md's "What the path's
transfers are made of" was recorded so:

    VENV/bin/python scripts/torch/record_timing_matrix.py OUT --set pp4_h512 --class LoopedBFS \
        --thread-slice-us 100
    VENV/bin/python scripts/torch/record_timing_matrix.py OUT --set pp4_h512 --class LoopedBFS --hidden 64

A class that refuses a shape gets only `<base>.meta.json`, with `"refused": "<torch's message>"`.
Runs go one after the other into OUTDIR/<set>/; one line per run is printed. `--pack DIR` then
writes DIR/<set>.tar.xz per set (sorted names, zeroed owners and times: reproducible archives).
`--table OUTDIR` prints the markdown table of a finished recording.
"""

import argparse
import json
import os
import platform
import random
import socket
import statistics
import struct
import sys
import tarfile
import time

LAYERS = 8
ROWS = 64  # rows per micro-batch
MICROBATCHES = 8
SEED_MODEL = 0
SEED_DATA = 1

# class -> (stages per rank, placement)
CLASSES = {
    "GPipe": (1, "loop"),
    "1F1B": (1, "loop"),
    "Interleaved1F1B": (2, "loop"),
    "LoopedBFS": (2, "loop"),
    "InterleavedZeroBubble": (2, "loop"),
    "ZBVZeroBubble": (2, "v"),
    "DualPipeV": (2, "v"),
}
ALL = list(CLASSES)
SETS = {
    # set name -> (world, H, classes)
    "pp2_h1024": (2, 1024, ALL),
    "pp2_h512": (2, 512, ALL),
    "pp4_h512": (4, 512, ["GPipe", "Interleaved1F1B", "LoopedBFS", "ZBVZeroBubble"]),
}


def base_name(cls_name, world, v, hidden):
    return f"{cls_name}_pp{world}_v{v}_m{MICROBATCHES}_h{hidden}"


def stage_ids(rank, world, v, placement):
    if placement == "v":
        return [rank, 2 * world - 1 - rank]
    return [rank + k * world for k in range(v)]


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# struct sched_attr, version 1 (56 bytes): size, policy (SCHED_OTHER), flags, nice, priority,
# runtime (a SCHED_OTHER thread's slice under Linux 6.12+'s EEVDF scheduler), deadline, period,
# util_min, util_max. sched_setattr and sched_getattr are syscalls 314 and 315 on x86_64.
SCHED_ATTR = "IIQiIQQQII"


def _libc():
    import ctypes
    if sys.platform != "linux" or platform.machine() != "x86_64":
        return None
    return ctypes.CDLL(None, use_errno=True)


def thread_slice_us():
    """This thread's scheduler time slice in µs, or None where the kernel does not say (not
    Linux on x86_64, or no sched_getattr)."""
    import ctypes
    libc = _libc()
    if libc is None:
        return None
    attr = ctypes.create_string_buffer(56)
    if libc.syscall(315, 0, attr, 56, 0) != 0:
        return None
    return struct.unpack(SCHED_ATTR, attr.raw)[5] / 1000.0


def set_thread_slices(slice_ns):
    """Sets the scheduler's time slice of every thread of this process (`--thread-slice-us`; Linux
    6.12 or later, 0.1-100 ms). A woken thread may wait up to the running thread's slice for a busy
    core; on the recordings of docs/fidelity.md ("What the path's transfers are made of") the
    transfers did not follow it."""
    import ctypes
    libc = _libc()
    if libc is None:
        raise SystemExit("--thread-slice-us: needs Linux on x86_64 (sched_setattr is syscall 314 there)")
    attr = ctypes.create_string_buffer(struct.pack(SCHED_ATTR, 56, 0, 0, 0, 0, slice_ns, 0, 0, 0, 0), 56)
    for tid in os.listdir("/proc/self/task"):
        if libc.syscall(314, int(tid), attr, 0) != 0:
            err = ctypes.get_errno()
            raise SystemExit(f"--thread-slice-us: sched_setattr on thread {tid}: {os.strerror(err)} "
                             "(a custom slice needs Linux 6.12 or later)")


def worker(rank, cfg):
    import torch
    import torch.distributed as dist
    from torch.distributed.pipelining import PipelineStage
    from torch.distributed.pipelining import schedules as S

    world, v, placement, hidden = cfg["world"], cfg["v"], cfg["placement"], cfg["hidden"]
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(cfg["port"])
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    torch.set_num_threads(1)
    if cfg["pin"]:
        # One core per rank. Unpinned, the kernel sometimes leaves two busy ranks on one core for
        # seconds and the step time jumps 2-2.5x mid-recording. Oversubscribed (more ranks than
        # cores) nothing is pinned: the kernel then moves a busy rank to whichever core is free, as
        # the shared-processor model assumes (pinned pairs would wait for their own core).
        os.sched_setaffinity(0, {rank})
    random.seed(SEED_MODEL)
    torch.manual_seed(SEED_MODEL)
    dist.init_process_group("gloo", rank=rank, world_size=world)

    # The whole model, identically on every rank, then this rank's slices of it.
    layers = [torch.nn.Sequential(torch.nn.Linear(hidden, hidden), torch.nn.ReLU()) for _ in range(LAYERS)]
    n_stages = world * v
    per_stage = LAYERS // n_stages
    mine = stage_ids(rank, world, v, placement)
    stages = [
        PipelineStage(torch.nn.Sequential(*layers[s * per_stage:(s + 1) * per_stage]), s, n_stages, torch.device("cpu"))
        for s in mine
    ]
    gen = torch.Generator().manual_seed(SEED_DATA)
    x = torch.randn(MICROBATCHES * ROWS, hidden, generator=gen)
    y = torch.randn(MICROBATCHES * ROWS, hidden, generator=gen)

    def loss_fn(out, target):
        return torch.nn.functional.mse_loss(out, target)

    cls = getattr(S, "Schedule" + cfg["cls"])
    out_dir, base, meta_path = cfg["out_dir"], cfg["base"], os.path.join(cfg["out_dir"], cfg["meta_name"])
    refused = None
    try:
        schedule = cls(stages[0] if v == 1 else stages, n_microbatches=MICROBATCHES, loss_fn=loss_fn)
    except (ValueError, AssertionError, NotImplementedError) as error:
        refused = f"{type(error).__name__}: {error}".replace("\n", " ")
    if refused is not None:
        if rank == 0:
            meta = {"torch_version": torch.__version__, "class": "Schedule" + cfg["cls"], "world": world, "v": v,
                    "hidden": hidden, "microbatches": MICROBATCHES, "refused": refused}
            with open(meta_path, "w") as f:
                json.dump(meta, f, indent=1)
                f.write("\n")
        dist.destroy_process_group()
        return

    if rank == 0 and cfg["write_csv"]:
        path = os.path.join(out_dir, base + ".csv")
        if isinstance(schedule, S._PipelineScheduleRuntime):
            schedule._dump_csv(path, format="compute_only")
            schedule._dump_csv(os.path.join(out_dir, base + "_comms.csv"), format="compute_comms")
        else:
            # PipelineScheduleSingle has no _dump_csv; PipelineScheduleMulti's only reads pipeline_order.
            S.PipelineScheduleMulti._dump_csv(schedule, path)

    first = 0 in mine
    last = n_stages - 1 in mine

    def step():
        args = (x,) if first else ()
        kwargs = {"target": y, "losses": []} if last else {}
        schedule.step(*args, **kwargs)

    warmup, profiled, unprofiled = cfg["warmup"], cfg["profiled"], cfg["unprofiled"]
    profiled_us = []
    dist.barrier()
    prof_schedule = torch.profiler.schedule(wait=0, warmup=warmup, active=profiled, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=prof_schedule) as prof:
        for k in range(warmup + profiled):
            if k == warmup and cfg["slice_us"]:
                # After the warm-up: gloo's and the profiler's threads exist by then.
                set_thread_slices(round(cfg["slice_us"] * 1000))
            t0 = time.perf_counter()
            step()
            dist.barrier()
            profiled_us.append((time.perf_counter() - t0) * 1e6)
            prof.step()
    profiled_us = profiled_us[warmup:]
    # Written from inside OUT_DIR under its bare name: torch stores the path it is given as the
    # trace's "traceName", and the recording machine's folders do not belong in the archives.
    os.chdir(out_dir)
    prof.export_chrome_trace(f"{cfg['trace_base']}_rank{rank}.json")

    unprofiled_us = []
    for _ in range(unprofiled):
        dist.barrier()
        t0 = time.perf_counter()
        step()
        dist.barrier()
        unprofiled_us.append((time.perf_counter() - t0) * 1e6)

    gathered = [None] * world
    dist.all_gather_object(gathered, {"profiled": profiled_us, "unprofiled": unprofiled_us})
    dist.destroy_process_group()
    if rank == 0:
        meta = {
            "torch_version": torch.__version__,
            "python_version": platform.python_version(),
            "class": "Schedule" + cfg["cls"],
            "world": world,
            "v": v,
            "placement": placement,
            "stages": n_stages,
            "stage_to_rank": {str(s): r for r in range(world) for s in stage_ids(r, world, v, placement)},
            "layers": LAYERS,
            "layers_per_stage": per_stage,
            "layer": "Linear(H, H) + ReLU",
            "hidden": hidden,
            "rows_per_microbatch": ROWS,
            "microbatches": MICROBATCHES,
            "loss": "mse_loss on the last stage",
            "backend": "gloo",
            "threads_per_rank": 1,
            "seeds": {"model": SEED_MODEL, "data": SEED_DATA},
            "warmup_steps": warmup,
            "profiled_steps": profiled,
            "unprofiled_steps": unprofiled,
            "profiled_step_us": [[round(t, 1) for t in g["profiled"]] for g in gathered],
            "unprofiled_step_us": [[round(t, 1) for t in g["unprofiled"]] for g in gathered],
            "cpu_count": cfg["cpu_count"],
            "rank_cores": list(range(world)) if cfg["pin"] else None,
            "loadavg_start": cfg["loadavg_start"],
            "loadavg_end": [round(a, 2) for a in os.getloadavg()],
            "thread_slice_us": cfg["slice_us"],
            "kernel": platform.release(),
            "kernel_thread_slice_us": cfg["kernel_slice_us"],
        }
        with open(meta_path, "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")


# A recorded step slower than this multiple of the lower quartile of the run's steps counts as
# disturbed. On the 2-core VM the recordings were made on, a profiled H = 1024 run sometimes slows
# to 2-2.5x for 10-15 consecutive steps and then recovers (pinned ranks, no other process; the
# unprofiled steps never show it), which no schedule explains. Such a run is recorded again.
DISTURBED_FACTOR = 1.6


def slowest_rank_steps_ms(per_rank_us):
    return [round(max(ts) / 1000.0, 1) for ts in zip(*per_rank_us)]


def disturbed_steps(meta):
    """The profiled steps (slowest rank) above DISTURBED_FACTOR x the lower quartile; two or more
    such steps mark the attempt as disturbed (one slow step is ordinary noise)."""
    steps = slowest_rank_steps_ms(meta["profiled_step_us"])
    lower_quartile = statistics.quantiles(steps, n=4)[0] if len(steps) >= 4 else min(steps)
    slow = [t for t in steps if t > DISTURBED_FACTOR * lower_quartile]
    return slow if len(slow) >= 2 else []


def step_medians_ms(meta):
    """Median over steps of the slowest rank's wall time, profiled and unprofiled, in ms."""
    def med(per_rank):
        return statistics.median(max(ts) for ts in zip(*per_rank)) / 1000.0

    return med(meta["unprofiled_step_us"]), med(meta["profiled_step_us"])


def record_one(out_dir, set_name, cls_name, world, hidden, warmup, profiled, unprofiled, pin, max_attempts,
               repeat, repeats, slice_us):
    """One recording of one class: `world` new processes; repeat k of `repeats` (traces
    `<base>_rep<k>_rank<R>.json` when there are several), again while disturbed."""
    import torch.multiprocessing as mp

    v, placement = CLASSES[cls_name]
    base = base_name(cls_name, world, v, hidden)
    tag = f"_rep{repeat}" if repeats > 1 else ""
    cfg = {
        "cls": cls_name, "world": world, "v": v, "placement": placement, "hidden": hidden,
        "out_dir": out_dir, "base": base, "trace_base": base + tag, "meta_name": base + tag + ".meta.json",
        "write_csv": repeat == 0, "port": free_port(),
        "warmup": warmup, "profiled": profiled[world], "unprofiled": unprofiled, "pin": pin and world <= os.cpu_count(),
        "cpu_count": os.cpu_count(), "loadavg_start": [round(a, 2) for a in os.getloadavg()],
        "slice_us": slice_us, "kernel_slice_us": thread_slice_us(),
    }
    started = time.perf_counter()
    disturbed = []
    meta_path = os.path.join(out_dir, cfg["meta_name"])
    for attempt in range(1, max_attempts + 1):
        mp.spawn(worker, args=(cfg,), nprocs=world, join=True)
        with open(meta_path) as f:
            meta = json.load(f)
        slow = [] if "refused" in meta else disturbed_steps(meta)
        if not slow or attempt == max_attempts:
            break
        disturbed.append(slowest_rank_steps_ms(meta["profiled_step_us"]))
        print(f"{set_name}\t{cfg['trace_base']}\tattempt {attempt} disturbed "
              f"({len(slow)} steps over {DISTURBED_FACTOR}x the lower quartile): again", flush=True)
    if disturbed:
        meta["disturbed_attempts_step_ms"] = disturbed
        with open(meta_path, "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")
    if "refused" in meta:
        print(f"{set_name}\t{base}\trefused: {meta['refused']}", flush=True)
        return False
    unprof, prof = step_medians_ms(meta)
    print(f"{set_name}\t{cfg['trace_base']}\tunprofiled median {unprof:.1f} ms\tprofiled median {prof:.1f} ms\t"
          f"load {meta['loadavg_start'][0]:.2f}\t{time.perf_counter() - started:.0f} s\t"
          f"torch {meta['torch_version']}", flush=True)
    return True


def join_repeat_metas(out_dir, base, repeats):
    """One `<base>.meta.json` for the repeats of a class: repeat 0's fields, every repeat's step
    times one after the other per rank, and per repeat its load average and disturbed attempts."""
    metas = []
    for k in range(repeats):
        path = os.path.join(out_dir, f"{base}_rep{k}.meta.json")
        with open(path) as f:
            metas.append(json.load(f))
        os.remove(path)
    joined = dict(metas[0])
    joined["repeats"] = repeats
    for key in ("profiled_step_us", "unprofiled_step_us"):
        joined[key] = [sum((m[key][r] for m in metas), []) for r in range(len(metas[0][key]))]
    joined["profiled_steps"] = sum(m["profiled_steps"] for m in metas)
    joined["unprofiled_steps"] = sum(m["unprofiled_steps"] for m in metas)
    joined["loadavg_start"] = [m["loadavg_start"] for m in metas]
    joined["loadavg_end"] = [m["loadavg_end"] for m in metas]
    joined.pop("disturbed_attempts_step_ms", None)
    disturbed = {str(k): m["disturbed_attempts_step_ms"] for k, m in enumerate(metas) if "disturbed_attempts_step_ms" in m}
    if disturbed:
        joined["disturbed_attempts_step_ms"] = disturbed
    with open(os.path.join(out_dir, base + ".meta.json"), "w") as f:
        json.dump(joined, f, indent=1)
        f.write("\n")


def record(out_root, sets, warmup, profiled, unprofiled, pin, max_attempts, repeats, slice_us):
    # Repeats go round the whole matrix (every class of every set, then again), so that the
    # machine's speed, which drifts over minutes on a shared VM, and each process's own luck (the
    # same forward took 2.7-4.1 ms in runs of one class a minute apart) fall on every class alike.
    refused = set()
    for repeat in range(repeats):
        for set_name, (world, hidden, classes) in sets.items():
            out_dir = os.path.abspath(os.path.join(out_root, set_name))
            os.makedirs(out_dir, exist_ok=True)
            for cls_name in classes:
                if (set_name, cls_name) in refused:
                    continue
                if not record_one(out_dir, set_name, cls_name, world, hidden, warmup, profiled, unprofiled, pin,
                                  max_attempts, repeat, repeats, slice_us):
                    refused.add((set_name, cls_name))
    if repeats > 1:
        for set_name, (world, hidden, classes) in sets.items():
            out_dir = os.path.abspath(os.path.join(out_root, set_name))
            for cls_name in classes:
                base = base_name(cls_name, world, CLASSES[cls_name][0], hidden)
                if (set_name, cls_name) in refused:
                    os.replace(os.path.join(out_dir, base + "_rep0.meta.json"), os.path.join(out_dir, base + ".meta.json"))
                else:
                    join_repeat_metas(out_dir, base, repeats)


def pack_folder(src, path):
    """Every file of `src` (sorted, no owners, no times) into `path` as tar.xz: the same folder
    always makes the same archive."""
    def scrub(info):
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = 0
        info.mode = 0o644
        return info

    with tarfile.open(path, "w:xz", preset=9) as tar:
        for name in sorted(os.listdir(src)):
            tar.add(os.path.join(src, name), arcname=name, filter=scrub)


def pack(out_root, set_names, dest):
    os.makedirs(dest, exist_ok=True)
    for set_name in set_names:
        path = os.path.join(dest, set_name + ".tar.xz")
        pack_folder(os.path.join(out_root, set_name), path)
        print(f"{path}\t{os.path.getsize(path)} bytes", flush=True)


def load_at_start(meta):
    """The 1-minute load average at the start: one number, or the range over the repeats."""
    loads = meta["loadavg_start"]
    if isinstance(loads[0], list):
        firsts = [load[0] for load in loads]
        return f"{min(firsts):.2f}-{max(firsts):.2f}"
    return f"{loads[0]:.2f}"


def table(out_root, sets):
    print("| class | world | v | H | layers/stage | median unprofiled step (ms) | unprofiled min-max (ms) "
          "| median profiled step (ms) | load at start |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for set_name, (world, hidden, classes) in sets.items():
        for cls_name in classes:
            v, _ = CLASSES[cls_name]
            path = os.path.join(out_root, set_name, base_name(cls_name, world, v, hidden) + ".meta.json")
            if not os.path.exists(path):
                continue
            with open(path) as f:
                meta = json.load(f)
            if "refused" in meta:
                print(f"| {meta['class']} | {world} | {v} | {hidden} | | refused: {meta['refused']} | | | |")
                continue
            unprof, prof = step_medians_ms(meta)
            slowest = [max(ts) / 1000.0 for ts in zip(*meta["unprofiled_step_us"])]
            print(f"| {meta['class']} | {world} | {v} | {hidden} | {meta['layers_per_stage']} | {unprof:.1f} "
                  f"| {min(slowest):.1f}-{max(slowest):.1f} | {prof:.1f} | {load_at_start(meta)} |")


def chosen_sets(set_names, classes, hidden):
    """folder -> (world, H, classes) of the sets to record: `classes` of each (all where None), at
    width `hidden` (each set's own where None); a set left with no class is dropped."""
    out = {}
    for set_name in set_names:
        world, own_hidden, own_classes = SETS[set_name]
        width = own_hidden if hidden is None else hidden
        kept = [c for c in own_classes if classes is None or c in classes]
        if kept:
            out[set_name if hidden is None else f"pp{world}_h{width}"] = (world, width, kept)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", help="recordings go to OUT_DIR/<set>/")
    parser.add_argument("--set", action="append", choices=list(SETS), help="record only these sets (repeatable)")
    parser.add_argument("--warmup-steps", type=int, default=2, help="unrecorded steps first (>= 2)")
    parser.add_argument("--profiled-steps", type=int, default=8, help="recorded steps, world 2")
    parser.add_argument("--profiled-steps-pp4", type=int, default=8, help="recorded steps, world 4")
    parser.add_argument("--unprofiled-steps", type=int, default=8, help="timed steps without the profiler")
    parser.add_argument("--repeats", type=int, default=1,
                        help="record every class this many times, round the whole matrix each time, in new processes "
                             "(traces <base>_rep<k>_rank<R>.json); the steps options are per repeat")
    parser.add_argument("--max-attempts", type=int, default=4,
                        help="record a disturbed run again, at most this many attempts in all (see DISTURBED_FACTOR)")
    parser.add_argument("--class", dest="classes", action="append", choices=list(CLASSES), metavar="CLASS",
                        help="record only these classes of the chosen sets (repeatable; default: every class of a set)")
    parser.add_argument("--hidden", type=int, metavar="H",
                        help="the layers' width instead of each set's own; the set's folder is then pp<world>_h<H>")
    parser.add_argument("--thread-slice-us", type=float, metavar="US",
                        help="set every rank thread's scheduler time slice (Linux 6.12+, 100-100000 µs) after the "
                             "warm-up steps; kept in the meta file as thread_slice_us")
    parser.add_argument("--no-pin", action="store_true", help="let the kernel place ranks (default: rank r on core r where there are as many cores)")
    parser.add_argument("--pack", metavar="DIR", help="after recording, write DIR/<set>.tar.xz per set")
    parser.add_argument("--pack-only", action="store_true", help="pack an existing recording, record nothing")
    parser.add_argument("--table", action="store_true", help="print the table of an existing recording, record nothing")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.warmup_steps < 2:
        parser.error("--warmup-steps must be at least 2: torch's first step runs its init")
    if args.hidden is not None and not 1 <= args.hidden <= 65536:
        parser.error(f"--hidden {args.hidden}: must be 1..65536")
    if args.thread_slice_us is not None and not 100 <= args.thread_slice_us <= 100000:
        parser.error(f"--thread-slice-us {args.thread_slice_us}: must be 100..100000 (the kernel's range)")
    sets = chosen_sets(args.set or list(SETS), args.classes, args.hidden)
    if not sets:
        parser.error(f"no chosen set runs the classes {', '.join(args.classes)}")
    if args.table:
        table(args.out_dir, sets)
        return 0
    if not args.pack_only:
        record(args.out_dir, sets, args.warmup_steps,
               {2: args.profiled_steps, 4: args.profiled_steps_pp4}, args.unprofiled_steps, not args.no_pin,
               args.max_attempts, args.repeats, args.thread_slice_us)
    if args.pack:
        pack(args.out_dir, list(sets), args.pack)
    return 0


if __name__ == "__main__":
    sys.exit(main())
