#!/usr/bin/env python3
"""Which posts of a torch-gloo CPU run stalled because gloo's I/O thread spun on the rank's core.

gloo's TCP I/O thread (`gloo_tcp_loop`) handles a peer's message only with the pair's lock and,
while the rank's own thread holds that lock inside a send or receive, gives up and polls again at
once. When the message arrives during a post and the I/O thread takes the core the post runs on,
the two spin until the scheduler's tick gives the core back: the post takes milliseconds instead of
tens of µs (docs/fidelity.md, "gloo's I/O thread spins on the pair's lock"). This script reads a
run's Kineto traces and a scheduler trace of the same run and says, for every SEND_*/RECV_* action,
whether it stalled (over 10x its kind's median, the rule `stagecraft-cli fidelity` counts by) and
whether the rank's I/O thread ran more than `--spin-us` inside it.

Record the scheduler trace around the run (Linux perf, root or perf_event_paranoid <= 1), and the
offset between Kineto's clock (CLOCK_REALTIME) and perf's (CLOCK_MONOTONIC):

    python3 -c 'import time; print(time.clock_gettime(0) - time.clock_gettime(1))' > OFFSET
    perf record -e sched:sched_switch -a -k monotonic -o sched.data -- \\
        VENV/bin/python scripts/torch/record_timing_matrix.py OUT --set pp2_h512 --class LoopedBFS
    perf script -i sched.data -F comm,pid,tid,cpu,time,event,trace --ns > sched.txt
    python3 scripts/torch/gloo_spins.py OUT/pp2_h512/LoopedBFS_pp2_v2_m8_h512 sched.txt \\
        --clock-offset $(cat OFFSET)

Needs no torch: the traces are read as JSON.
"""

import argparse
import bisect
import json
import re
import statistics
import sys

SWITCH = re.compile(r"^\s*(?P<comm>.+?)\s+(?P<pid>\d+)/(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<time>[\d.]+):\s+"
                    r"sched:sched_switch:\s+(?P<rest>.*)$")
SWITCH_FIELDS = re.compile(r"prev_pid=(?P<prev>\d+) .*prev_state=(?P<state>\S+) ==> next_comm=.* next_pid=(?P<next>\d+)")
POST = re.compile(r"PP:\d+(SEND|RECV)_[FB]\d+$")
STALL_FACTOR = 10  # as eval/post_stalls.h counts


def fail(message):
    sys.exit(f"gloo_spins.py: {message}")


def read_rank(path):
    """(pid, [(start µs, duration µs, name, is_send)] of the rank's posts, base time s)."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    except json.JSONDecodeError as e:
        fail(f"{path}: not JSON (line {e.lineno}, column {e.colno}: {e.msg})")
    if not isinstance(doc, dict) or "traceEvents" not in doc or "baseTimeNanoseconds" not in doc:
        fail(f"{path}: not a Kineto trace (no traceEvents or baseTimeNanoseconds)")
    ranges = [e for e in doc["traceEvents"] if isinstance(e, dict) and e.get("ph") == "X"]
    posts = sorted((e["ts"], e["dur"], e["name"], "SEND" in e["name"]) for e in ranges if POST.match(e.get("name", "")))
    if not posts:
        fail(f"{path}: no SEND_*/RECV_* ranges (a run of torch's runtime classes records them)")
    return ranges[0]["pid"], posts, doc["baseTimeNanoseconds"] / 1e9


def loop_runs(sched_path, shift_us):
    """{pid: [(from µs, to µs)]} of every gloo_tcp_loop thread's turns on a core, on Kineto's clock."""
    threads, running, runs = {}, {}, {}
    try:
        lines = open(sched_path, encoding="utf-8", errors="replace")
    except OSError as e:
        fail(f"{sched_path}: {e.strerror}")
    with lines:
        for number, line in enumerate(lines, 1):
            if "sched_switch" not in line:  # a recording may hold other events too
                continue
            m = SWITCH.match(line)
            if not m:
                continue
            f = SWITCH_FIELDS.search(m["rest"])
            if not f:
                fail(f"{sched_path}:{number}: a sched_switch without prev_pid/next_pid: {line.strip()[:120]}")
            t = float(m["time"]) * 1e6 + shift_us
            if m["comm"] == "gloo_tcp_loop":
                threads[int(m["tid"])] = int(m["pid"])
            prev, nxt = int(f["prev"]), int(f["next"])
            if prev in running:
                runs.setdefault(prev, []).append((running.pop(prev), t))
            running[nxt] = t
    if not threads:
        fail(f"{sched_path}: no gloo_tcp_loop thread switched (record with -e sched:sched_switch -a, "
             "and `perf script -F comm,pid,tid,cpu,time,event,trace`)")
    out = {}
    for tid, pid in threads.items():
        out.setdefault(pid, []).extend(runs.get(tid, []))
    for pid in out:
        out[pid].sort()
    return out


def spun_inside(runs, starts, start, end, spin_us):
    """True when one of `runs` overlaps [start, end) by more than spin_us."""
    i = max(0, bisect.bisect_left(starts, start) - 1)
    while i < len(runs) and runs[i][0] < end:
        if min(runs[i][1], end) - max(runs[i][0], start) > spin_us:
            return True
        i += 1
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", help="the run's traces' common prefix (RUN for RUN_rank0.json, RUN_rank1.json, ...; "
                        "RUN_rep<k> for one repeat of a recording made with --repeats)")
    parser.add_argument("sched", help="`perf script` text of a sched_switch recording of the same run")
    parser.add_argument("--clock-offset", type=float, required=True, metavar="S",
                        help="CLOCK_REALTIME - CLOCK_MONOTONIC in seconds when the run was recorded")
    parser.add_argument("--spin-us", type=float, default=500, help="an I/O thread's turn longer than this "
                        "inside a post is a spin (default 500)")
    args = parser.parse_args()
    if args.spin_us <= 0:
        parser.error(f"--spin-us {args.spin_us}: must be positive")

    ranks = []
    while True:
        path = f"{args.run}_rank{len(ranks)}.json"
        try:
            open(path, encoding="utf-8").close()
        except OSError:
            break
        ranks.append(read_rank(path))
    if not ranks:
        fail(f"{args.run}_rank0.json: no such trace")
    shift_us = (args.clock_offset - ranks[0][2]) * 1e6
    runs = loop_runs(args.sched, shift_us)

    medians = {}
    for kind in (True, False):
        durations = [d for _, posts, _ in ranks for _, d, _, send in posts if send == kind]
        medians[kind] = statistics.median(durations) if durations else 0
    table = {(s, p): 0 for s in (True, False) for p in (True, False)}
    stalled_ms = []
    print("rank  I/O thread ran (ms)  in turns over --spin-us  posts  stalled  stalled with a spin")
    for rank, (pid, posts, _) in enumerate(ranks):
        mine = runs.get(pid)
        if mine is None:
            fail(f"rank {rank} (pid {pid}): no gloo_tcp_loop thread of that process in {args.sched}: "
                 "not the same run, or recorded without -a")
        window = (posts[0][0], posts[-1][0] + posts[-1][1])
        inside = [(a, b) for a, b in mine if window[0] <= a < window[1]]
        long_turns = sum(b - a for a, b in inside if b - a > args.spin_us)
        starts = [a for a, _ in mine]
        counts = {(s, p): 0 for s in (True, False) for p in (True, False)}
        for start, duration, _, send in posts:
            stalled = duration > STALL_FACTOR * medians[send]
            spun = spun_inside(mine, starts, start, start + duration, args.spin_us)
            counts[(stalled, spun)] += 1
            if stalled:
                stalled_ms.append(duration / 1000)
        for key, n in counts.items():
            table[key] += n
        stalls = counts[(True, True)] + counts[(True, False)]
        print(f"{rank:4d}  {sum(b - a for a, b in inside) / 1000:18.1f}  {long_turns / 1000:23.1f}  {len(posts):5d}"
              f"  {stalls:7d}  {counts[(True, True)]:19d}")
    stalls = table[(True, True)] + table[(True, False)]
    others = table[(False, True)] + table[(False, False)]
    print(f"stalled posts (over {STALL_FACTOR}x their kind's median): {table[(True, True)]} of {stalls} with the "
          f"rank's I/O thread running over {args.spin_us:g} µs inside them; other posts: {table[(False, True)]} "
          f"of {others}")
    if stalled_ms:
        print(f"a stalled post took {statistics.median(stalled_ms):.2f} ms (median), at most {max(stalled_ms):.2f}")


if __name__ == "__main__":
    main()
