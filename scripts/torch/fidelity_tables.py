#!/usr/bin/env python3
"""Prints the held-out fidelity tables of docs/fidelity.md from the recorded torch runs.

    python3 scripts/torch/fidelity_tables.py build/app/cli/stagecraft-cli build/tests/data/torch-runs

The runs are the matrix of tests/data/torch-runs (unpacked by the test build's configure step).
Every figure comes from `stagecraft-cli` itself, the way a user gets it:

- "project": `calibrate` on one class's run (the runtime model, and `--list-scheduler` for the
  list scheduler's calibration), then `overlay --median` of every class's run on the calibrated
  project, as the app and tests/core/calibrated_runtime_test.cpp do; the overlay's makespan error
  is the prediction's against the run, (predicted - measured) / measured, as the other tables and
  the acceptance read, and the bubble is predicted minus measured in both;
- "pairs": `fidelity --fit RUN --check OTHER ... --json`, the fits and predictions of
  tests/core/torch_runs_fidelity_test.cpp (a split target only from a split source);
- "noise": each run's median makespan and its 95 % interval, from the same JSON;
- "path": each fitted run's critical path and its replay's (`fidelity --fit RUN --json`);
- "stalls": each fitted run's posts that stalled, near the peer's post on the same pair and
  elsewhere (`post_stalls` of the same JSON; docs/fidelity.md, "gloo's I/O thread spins");
- "held": each fitted run's payloads sent before their receive was posted whose consumer waited
  over 0.5 ms past the run's transfer time, by what the sender was doing when the consumer began
  to wait (`held_payloads` of the same JSON; docs/fidelity.md, "Payloads held by a busy sender").

Only the Python standard library is used; nothing here is a build or test dependency.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

SETS = ["pp2_h1024", "pp2_h512", "pp4_h512"]
FITTED = ["Interleaved1F1B", "LoopedBFS", "InterleavedZeroBubble", "ZBVZeroBubble", "DualPipeV"]
PROJECT_FITTED = ["Interleaved1F1B", "LoopedBFS", "InterleavedZeroBubble", "ZBVZeroBubble", "DualPipeV"]
TARGETS = FITTED + ["GPipe"]
CLASSES = ["GPipe", "Interleaved1F1B", "LoopedBFS", "InterleavedZeroBubble", "ZBVZeroBubble", "DualPipeV"]


def splits(cls):
    return "ZeroBubble" in cls or cls == "DualPipeV"


def acceptance_pair(fitted, predicted):
    """The pairs whose op kinds the fitted run measured: unsplit from unsplit, split from split;
    DualPipeV's run measures every kind (whole backwards in its overlapped slots, I and W), and no
    other class's measures all of its."""
    if fitted == "DualPipeV":
        return True
    return splits(predicted) == splits(fitted) and predicted != "DualPipeV"


def run_prefix(runs, set_name, cls):
    """The run's base path (without _rank<R>.json), or None when the set lacks the class (or the
    recording lacks the set: a set recorded again alone, `record_timing_matrix.py --set`)."""
    folder = os.path.join(runs, set_name)
    if not os.path.isdir(folder):
        return None
    for name in sorted(os.listdir(folder)):
        if name.startswith(cls + "_pp") and name.endswith(".meta.json"):
            return os.path.join(folder, name[: -len(".meta.json")])
    return None


def traces(prefix):
    """Every rank's trace of the run; of every repeat, where it was recorded in repeats
    (`<base>_rep<k>_rank<R>.json`, joined by the readers)."""
    folder, base = os.path.split(prefix)
    return sorted(os.path.join(folder, n) for n in os.listdir(folder)
                  if n.startswith((base + "_rank", base + "_rep")) and n.endswith(".json") and "meta" not in n)


def cli(exe, *args):
    out = subprocess.run([exe, *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:3])}...: {out.stderr.strip()}")
    return out.stdout


def pct(x, signed=True):
    return f"{100 * x:+.1f} %" if signed else f"{100 * x:.1f} %"


def mean(values):
    return sum(values) / len(values) if values else 0.0


def within(makespan_error, bubble_points):
    return abs(makespan_error) <= 0.10 and abs(bubble_points) <= 0.05


def project_table(exe, runs):
    with tempfile.TemporaryDirectory(prefix="fidelity-tables-") as tmp:
        project_rows(exe, runs, tmp)


def project_rows(exe, runs, tmp):
    print("| set | fitted on | same run: makespan, bubble | other runs within 10 % / 5 points "
          "| other runs: mean abs makespan error | the same with the list scheduler's calibration |")
    print("| --- | --- | --- | --- | --- | --- |")
    totals = {"within": 0, "others": 0, "runtime": [], "list": [], "pairs": 0, "pairs_within": 0}
    for set_name in SETS:
        for fitted in PROJECT_FITTED:
            source = run_prefix(runs, set_name, fitted)
            if source is None:
                continue
            errors = {}
            for model in ("runtime", "list"):
                project = os.path.join(tmp, f"{set_name}-{fitted}-{model}.stagecraft.json")
                extra = ["--list-scheduler"] if model == "list" else []
                cli(exe, "calibrate", source + ".csv", "--trace", *traces(source), "--median", "-o", project, *extra)
                for other in CLASSES:
                    target = run_prefix(runs, set_name, other)
                    if target is None:
                        continue
                    o = json.loads(cli(exe, "overlay", target + ".csv", "--project", project,
                                       "--trace", *traces(target), "--median", "--json"))
                    errors[(model, other)] = (o["makespan"]["error"],
                                              o["bubble"]["predicted"] - o["bubble"]["measured"])
            same = errors[("runtime", fitted)]
            others = [c for c in CLASSES if c != fitted and ("runtime", c) in errors]
            inside = sum(within(*errors[("runtime", c)]) for c in others)
            runtime_mean = sum(abs(errors[("runtime", c)][0]) for c in others) / len(others)
            list_mean = sum(abs(errors[("list", c)][0]) for c in others) / len(others)
            totals["within"] += inside
            totals["others"] += len(others)
            totals["runtime"] += [abs(errors[("runtime", c)][0]) for c in others]
            totals["list"] += [abs(errors[("list", c)][0]) for c in others]
            for c in others:
                if acceptance_pair(fitted, c):
                    totals["pairs"] += 1
                    totals["pairs_within"] += within(*errors[("runtime", c)])
            print(f"| {set_name} | {fitted} | {pct(same[0])}, {100 * same[1]:+.1f} points | {inside} of {len(others)} "
                  f"| {pct(runtime_mean, False)} | {pct(list_mean, False)} |")
    rt, ls = totals["runtime"], totals["list"]
    if not rt:
        raise SystemExit(f"{runs}: no set holds a fitted class's run ({', '.join(SETS)})")
    print()
    print(f"Over the matrix: {totals['within']} of {totals['others']} other runs within 10 % and 5 points "
          f"(mean absolute makespan error {pct(sum(rt) / len(rt), False)}, worst {pct(max(rt), False)}) against "
          f"the list scheduler's calibration at {pct(sum(ls) / len(ls), False)} mean and {pct(max(ls), False)} "
          f"worst; of the {totals['pairs']} pairs whose op kinds the source measured, {totals['pairs_within']} "
          f"are within.")


def pairs_and_noise(exe, runs):
    rows, noise = [], {}
    counts = {"fits": 0, "fits_within": 0, "checks": 0, "checks_within": 0, "pairs": 0, "pairs_within": 0,
              "in_noise": 0, "checks_within_at_speed": 0, "pairs_within_at_speed": 0}
    abs_errors = {"fitted": [], "others": []}
    for set_name in SETS:
        for fitted in FITTED:
            source = run_prefix(runs, set_name, fitted)
            if source is None:
                continue
            targets = [t for t in TARGETS if t != fitted and run_prefix(runs, set_name, t)
                       and not (splits(t) and not splits(fitted))]
            args = ["fidelity", "--fit", source, "--json"]
            for t in targets:
                args += ["--check", run_prefix(runs, set_name, t)]
            d = json.loads(cli(exe, *args))
            cores = d.get("shared_processors") or 0
            label = fitted + (f" ({cores:g} processors)" if cores else "")
            res = d["residual"]
            busy = max(abs(p["compute_us"] / m["compute_us"] - 1)
                       for m, p in zip(res["measured_ranks"], res["predicted_ranks"]))
            ok = abs(res["makespan_error"]) <= 0.05 and abs(res["bubble_error"]) <= 0.03 and busy <= 0.05
            counts["fits"] += 1
            counts["fits_within"] += ok
            abs_errors["fitted"].append(abs(res["makespan_error"]))
            rows.append((set_name, label, "(same run)", res, ok))
            noise[(set_name, fitted)] = res
            for t, check in zip(targets, d["checks"]):
                ok = within(check["makespan_error"], check["bubble_error"])
                speed = check.get("at_run_speed")
                ok_at_speed = bool(speed) and within(speed["makespan_error"], speed["bubble_error"])
                counts["checks"] += 1
                counts["checks_within"] += ok
                abs_errors["others"].append(abs(check["makespan_error"]))
                counts["checks_within_at_speed"] += ok_at_speed
                counts["in_noise"] += abs(check["makespan_error"]) <= check["measured_noise"]
                if acceptance_pair(fitted, t):
                    counts["pairs"] += 1
                    counts["pairs_within"] += ok
                    counts["pairs_within_at_speed"] += ok_at_speed
                rows.append((set_name, fitted, t, check, ok))
                noise[(set_name, t)] = check
    if not rows:
        raise SystemExit(f"{runs}: no set holds a fitted class's run ({', '.join(SETS)})")
    print("| set | fitted on | predicted run | makespan measured (ms) | predicted | error | bubble measured "
          "| predicted | points | op MAPE | | op speed | at its speed |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for set_name, fitted, target, r, ok in rows:
        speed = r.get("at_run_speed")
        at_speed = "" if not speed else (f"{pct(speed['makespan_error'])}, {100 * speed['bubble_error']:+.1f}"
                                         + (" ✓" if within(speed["makespan_error"], speed["bubble_error"]) else ""))
        print(f"| {set_name} | {fitted} | {target} | {r['measured_makespan_us'] / 1000:.1f} "
              f"| {r['predicted_makespan_us'] / 1000:.1f} | {pct(r['makespan_error'])} "
              f"| {pct(r['measured_bubble'], False)} | {pct(r['predicted_bubble'], False)} "
              f"| {100 * r['bubble_error']:+.1f} | {100 * r['op_mape']:.0f} % | {'✓' if ok else ''} "
              f"| {r['op_speed']:.3f} | {at_speed} |")
    print()
    print(f"Fitted runs: {counts['fits_within']} of {counts['fits']} within 5 % and 3 points with each rank's busy "
          f"time within 5 %. Other runs: {counts['checks_within']} of {counts['checks']} within 10 % and 5 points; "
          f"of the {counts['pairs']} pairs whose op kinds the source measured, {counts['pairs_within']}; "
          f"{counts['in_noise']} of {counts['checks']} within their target's own 95 % interval. At the checked "
          f"run's own op speed: {counts['checks_within_at_speed']} of {counts['checks']} other runs, "
          f"{counts['pairs_within_at_speed']} of the {counts['pairs']} pairs. Mean absolute makespan error: "
          f"fitted runs {pct(mean(abs_errors['fitted']), False)}, other runs {pct(mean(abs_errors['others']), False)}.")
    print()
    print("| set | class | median makespan (ms) | 95 % interval of the median (ms) | ± |")
    print("| --- | --- | --- | --- | --- |")
    for (set_name, cls), r in sorted(noise.items()):
        lo, hi = r["measured_makespan_interval_us"]
        print(f"| {set_name} | {cls} | {r['measured_makespan_us'] / 1000:.1f} | {lo / 1000:.1f} to {hi / 1000:.1f} "
              f"| {100 * r['measured_noise']:.0f} % |")


def fitted_runs(exe, runs):
    """(set, fitted class, `fidelity --fit RUN --json`) for every fitted class's run of every set;
    refuses a folder that holds none."""
    found = False
    for set_name in SETS:
        for fitted in FITTED:
            source = run_prefix(runs, set_name, fitted)
            if source is None:
                continue
            found = True
            yield set_name, fitted, json.loads(cli(exe, "fidelity", "--fit", source, "--json"))
    if not found:
        raise SystemExit(f"{runs}: no set holds a fitted class's run ({', '.join(SETS)})")


def path_table(exe, runs):
    """Each fitted run's critical path against its replay's: which of the ranks' time decided the
    makespan, and where the replay makes it up instead."""
    print("| run | makespan | compute | transfers (hops) | comm | waits not followed | gaps |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for set_name, fitted, fit in fitted_runs(exe, runs):
        res = fit["residual"]
        for side, label in (("measured", f"{set_name} {fitted}, run"), ("predicted", "its replay")):
            p = res[side + "_critical_path"]
            print(f"| {label} | {res[side + '_makespan_us'] / 1000:.1f} | {p['compute_us'] / 1000:.1f} "
                  f"| {p['transfers_us'] / 1000:.1f} ({p['hops']:g}) | {p['comm_us'] / 1000:.1f} "
                  f"| {p['waits_us'] / 1000:.1f} | {p['gaps_us'] / 1000:.1f} |")


def stalls_table(exe, runs):
    """Each fitted run's posts that stalled (over ten times the median post), near a post of the
    peer towards their rank and elsewhere."""
    print("| set | class | stalls an iteration | ms each past the median | near the peer's post: stalled "
          "| other posts: stalled |")
    print("| --- | --- | --- | --- | --- | --- |")
    for set_name, fitted, fit in fitted_runs(exe, runs):
        c = fit["post_stalls"]
        stalls = c["near_stalls"] + c["other_stalls"]
        each = c["stalled_past_median_us"] / stalls / 1000 if stalls else 0
        near = 100 * c["near_stalls"] / max(c["near_posts"], 1)
        other = 100 * c["other_stalls"] / max(c["other_posts"], 1)
        print(f"| {set_name} | {fitted} | {stalls / c['iterations']:.2f} | {each:.1f} | {near:.1f} % "
              f"| {other:.1f} % |")


def held_table(exe, runs):
    """Each fitted run's send-first payloads its consumers waited long for, by the sender's state."""
    states = (("blocked", "sender blocked"), ("computing", "computing"), ("other", "posting or between actions"))
    print("| set | class | held an iteration | ms each past the transfer time | "
          + " | ".join(label for _, label in states) + " |")
    print("| --- | --- | --- | --- | " + " | ".join("---" for _ in states) + " |")
    for set_name, fitted, fit in fitted_runs(exe, runs):
        c = fit["held_payloads"]
        by = c["by_sender"]
        held = sum(by[k]["held"] for k, _ in states)
        each = sum(by[k]["held_past_transfer_us"] for k, _ in states) / held / 1000 if held else 0
        cells = " | ".join(f"{by[k]['held']} of {by[k]['transfers']} "
                           f"({100 * by[k]['held'] / max(by[k]['transfers'], 1):.1f} %)" for k, _ in states)
        print(f"| {set_name} | {fitted} | {held / c['iterations']:.2f} | {each:.1f} | {cells} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cli", help="the stagecraft-cli program")
    parser.add_argument("runs", help="the unpacked recordings (<build>/tests/data/torch-runs)")
    parser.add_argument("--table", choices=["project", "pairs", "path", "stalls", "held", "all"], default="all")
    args = parser.parse_args()
    if args.table in ("project", "all"):
        project_table(args.cli, args.runs)
        print()
    if args.table in ("pairs", "all"):
        pairs_and_noise(args.cli, args.runs)
    if args.table in ("path", "all"):
        print()
        path_table(args.cli, args.runs)
    if args.table in ("stalls", "all"):
        print()
        stalls_table(args.cli, args.runs)
    if args.table in ("held", "all"):
        print()
        held_table(args.cli, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
