"""The stagecraft Python module against closed forms, the CLI and its own files.

Run by CTest (python_module) with the module built in <build>/python on PYTHONPATH and the CLI in
STAGECRAFT_CLI; the checks hold the module to what core computes, never to numbers of its own.
"""

import glob
import json
import os
import re
import subprocess
import tempfile
import threading
import unittest

import numpy as np

import stagecraft as sc


def run_against_prediction(makespan_error):
    """The overlay's makespan error (the prediction's against the run, predicted / measured - 1) as the
    run against the prediction, measured / predicted - 1: the quantity the calibration bounds below
    were set on, kept so that they stay exactly as strict."""
    return -makespan_error / (1 + makespan_error)


def unit_project(**overrides):
    """The default project under the papers' unit costs (F = B = W = 1 per stage)."""
    settings = {"costs.mode": "unit", "parallel.pp": 4, "parallel.microbatches": 8}
    settings.update(overrides)
    return sc.Project().with_overrides(settings)


class Registry(unittest.TestCase):
    def test_every_registered_schedule_is_listed_with_its_rules(self):
        infos = sc.schedules()
        names = [i["name"] for i in infos]
        for name in ("gpipe", "1f1b", "interleaved", "zb-h1", "zb-v", "dualpipev", "hanayo"):
            self.assertIn(name, names)
        interleaved = infos[names.index("interleaved")]
        self.assertEqual([p["name"] for p in interleaved["params"]], ["pp", "microbatches", "chunks"])
        self.assertEqual(interleaved["params"][2]["min"], 2)

    def test_a_broken_rule_names_the_field_and_the_rule(self):
        with self.assertRaises(sc.ValidationError) as caught:
            sc.generate("chimera", 3, 8)
        self.assertEqual(caught.exception.id, "generator.constraint")
        self.assertEqual(caught.exception.field, "parallel.pp")
        self.assertIn("even", caught.exception.message)
        with self.assertRaises(sc.Error) as unknown:
            sc.generate("zb-x", 4, 8)
        self.assertEqual(unknown.exception.id, "schedule.unknown")


class Schedules(unittest.TestCase):
    def test_ops_come_out_in_device_order(self):
        s = sc.generate("1f1b", 4, 8)
        sc.validate(s)
        self.assertEqual((s.devices, s.stages_per_pipe, s.op_count), (4, 4, 64))
        ops = s.ops()
        self.assertEqual(len(ops["kind"]), 64)
        # Device 0 of 1F1B: three warm-up forwards, then F3, B0 (p - r - 1 = 3).
        first = ops["device"] == 0
        self.assertEqual(list(ops["kind"][first][:5]), [0, 0, 0, 0, 1])
        self.assertEqual(list(ops["mb"][first][:5]), [0, 1, 2, 3, 0])
        self.assertEqual(sc.OP_KINDS[1], "B")
        # The one op name of every front end: torch's action strings.
        self.assertEqual(s.op_names()[:5], ["0F0", "0F1", "0F2", "0F3", "0B0"])
        self.assertEqual(sc.generate("zb-h1", 2, 2).op_names()[:4], ["0F0", "0F1", "0I0", "0W0"])
        self.assertEqual(s.placement[0][3], (3, 0))

    def test_torch_csv_and_json_read_back_to_the_same_order(self):
        s = sc.generate("interleaved", 4, 8, chunks=2)
        from_csv = sc.parse_torch_csv(s.to_torch_csv(), "rt.csv")
        self.assertEqual(from_csv.placement, s.placement)
        self.assertTrue(np.array_equal(from_csv.ops()["stage"], s.ops()["stage"]))
        self.assertEqual(sc.parse_schedule_json(s.to_json(), "rt.json"), s)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "order.csv")
            sc.write_schedule(s, path)
            self.assertTrue(np.array_equal(sc.read_schedule(path).ops()["mb"], s.ops()["mb"]))

    def test_malformed_csv_is_refused_with_its_line_and_column(self):
        with self.assertRaises(sc.ParseError) as caught:
            sc.parse_torch_csv("0F0,0B0\n1F0,x\n", "bad.csv")
        self.assertEqual((caught.exception.source, caught.exception.line, caught.exception.column), ("bad.csv", 2, 2))


class Simulation(unittest.TestCase):
    def test_a_simulation_saves_perfetto_and_chakra_traces(self):
        sim = sc.simulate(sc.Project().with_overrides({"parallel.pp": 4, "parallel.microbatches": 8}), "zb-h1")
        with tempfile.TemporaryDirectory() as folder:
            for name in ("t.json", "t.pftrace", "t.et"):
                sim.save_trace(os.path.join(folder, name))
            self.assertTrue(os.path.getsize(os.path.join(folder, "t.pftrace")) > 0)
            self.assertEqual(sorted(f for f in os.listdir(folder) if f.endswith(".et")),
                             ["t.0.et", "t.1.et", "t.2.et", "t.3.et"])
            with self.assertRaises(sc.Error):
                sim.save_trace(os.path.join(folder, "t.txt"))

    def test_unit_costs_give_the_papers_makespans(self):
        # ZB-H1 at p = 4, m = 8: 27 units, bubble (p - 1) / 27 per device = 1/9; 1F1B: 33.
        zb = sc.simulate(unit_project(), "zb-h1")
        self.assertTrue(zb.unitless)
        self.assertEqual(zb.makespan, 27)
        self.assertAlmostEqual(zb.bubble, 1 / 9)
        self.assertEqual(sc.simulate(unit_project(), "1f1b").makespan, 33)
        self.assertIsNone(zb.mfu)  # no FLOPs in unit mode
        self.assertTrue(np.array_equal(zb.peak_memory, np.array([4.0, 4.0, 4.0, 4.0])))

    def test_the_stagecraft_run_timing_is_one_override_away(self):
        # 1F1B, p = 2, m = 2, F = 1 ms, B + W = 2 ms, transfers 0.5 ms: the last stage's second input is
        # received only once its one slot is free, 0.5 ms later than the list scheduler starts it.
        settings = {"parallel.pp": 2, "parallel.dp": 1, "parallel.microbatches": 2, "model.layers": 4,
                    "costs.mode": "manual", "costs.f": 1000, "costs.b": 1000, "costs.w": 1000, "costs.comm": 500}
        listed = sc.simulate(sc.Project().with_overrides(settings), "1f1b")
        run = sc.simulate(sc.Project().with_overrides({**settings, "costs.timing": "stagecraft-run"}), "1f1b")
        self.assertAlmostEqual(run.makespan - listed.makespan, 500)
        with self.assertRaises(sc.Error):
            sc.Project().with_overrides({"costs.timing": "nccl"})

    def test_causal_attention_kernels_cost_less_at_long_sequences(self):
        # Whole micro-batches: causal kernels compute half of the square dense kernels compute.
        settings = {"model.seq_len": 32768}
        dense = sc.simulate(sc.Project().with_overrides(settings), "1f1b")
        causal_project = sc.Project().with_overrides({**settings, "model.attention": "causal"})
        self.assertEqual(causal_project.get("model.attention"), "causal")
        self.assertLess(sc.simulate(causal_project, "1f1b").makespan, 0.8 * dense.makespan)
        # Sequence slices: dense kernels compute each slice's rectangle of keys so far (5/8 of the
        # square at k = 4), still more than the causal half.
        sliced = {**settings, "parallel.slices": 4}
        dense_sliced = sc.simulate(sc.Project().with_overrides(sliced), "seq1f1b")
        causal_sliced = sc.simulate(sc.Project().with_overrides({**sliced, "model.attention": "causal"}), "seq1f1b")
        self.assertLess(causal_sliced.makespan, dense_sliced.makespan)
        self.assertLess(dense_sliced.makespan, dense.makespan)
        with self.assertRaises(sc.Error):
            sc.Project().with_overrides({"model.attention": "flash"})

    def test_slices_of_unequal_cost_are_a_list_of_numbers_away(self):
        # Seq1F1B, p = 4, m = 8, k = 4: the reference's "uneven slices hurt", 132.1 against 105 when
        # a micro-batch's forward is 4 units (unit costs give 1: a quarter of those).
        settings = {"parallel.pp": 4, "parallel.microbatches": 8, "parallel.slices": 4, "model.layers": 16,
                    "costs.mode": "unit"}
        even = sc.simulate(sc.Project().with_overrides(settings), "seq1f1b")
        self.assertAlmostEqual(4 * even.makespan, 105)
        uneven_project = sc.Project().with_overrides({**settings, "costs.slice_costs": [1, 1.274, 1.549, 1.823]})
        self.assertEqual(uneven_project.get("costs.slice_costs"), [1, 1.274, 1.549, 1.823])
        self.assertAlmostEqual(4 * sc.simulate(uneven_project, "seq1f1b").makespan, 132.1, delta=0.05)
        with self.assertRaises(sc.Error) as caught:
            sc.Project().with_overrides({"costs.slice_costs": [1, 0]})
        self.assertIn("costs.slice_costs[1] = 0", str(caught.exception))

    def test_op_times_idle_causes_and_memory_hold_together(self):
        sim = sc.simulate(unit_project(), "zb-h1")
        ops = sim.ops()
        # F, B and W of 4 stages x 8 micro-batches, then the iteration tail: an optimizer step per
        # stage on the compute lane and a gradient sync per stage on the communication lane (free
        # under unit costs, which have no transfers either).
        self.assertEqual(np.count_nonzero(ops["kind"] < 3), 4 * 8 * 3)
        self.assertEqual(list(np.unique(ops["kind"][ops["kind"] >= 3])), [4])
        self.assertEqual(np.count_nonzero(ops["kind"] == 4), 4)
        self.assertEqual(list(sim.transfers()["kind"]), [3, 3, 3, 3])
        compute = ops["kind"] < 3
        self.assertTrue(np.all(ops["end"][compute] > ops["start"][compute]))
        self.assertEqual(ops["end"].max(), sim.makespan)
        for d, device in enumerate(sim.devices()):
            busy = (ops["end"] - ops["start"])[ops["device"] == d].sum()
            self.assertAlmostEqual(device["busy"], busy)
            causes = device["warmup"] + device["cooldown"] + device["communication"] + sum(device["waiting_on"]) + device["other"]
            self.assertAlmostEqual(device["idle"], causes)
            times, level = sim.memory_curve(d)
            self.assertEqual(level.max(), sim.peak_memory[d])
            self.assertTrue(np.all(np.diff(times) >= 0))
        with self.assertRaises(IndexError):
            sim.memory_curve(4)

    def test_the_same_prediction_as_the_cli(self):
        cli = os.environ.get("STAGECRAFT_CLI")
        if not cli:
            self.skipTest("STAGECRAFT_CLI is not set")
        sets = ["parallel.pp=4", "parallel.microbatches=16", "parallel.chunks=2"]
        project = sc.Project().with_overrides(dict(s.split("=") for s in sets))
        args = [cli, "simulate", "-s", "interleaved", "--json"]
        for s in sets:
            args += ["--set", s]
        report = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)[0]
        sim = sc.simulate(project, "interleaved")
        self.assertAlmostEqual(sim.iteration, report["iteration_us"], places=6)
        self.assertAlmostEqual(sim.bubble, report["bubble_ratio"], places=12)
        self.assertAlmostEqual(sim.mfu, report["mfu"], places=12)

    def test_a_schedule_object_runs_on_its_own_shape(self):
        order = sc.generate("zb-h1", 2, 4)
        sim = sc.simulate(unit_project(), order)
        self.assertEqual(sim.schedule.devices, 2)
        self.assertEqual(sim.makespan, sc.simulate(unit_project(**{"parallel.pp": 2, "parallel.microbatches": 4}), "zb-h1").makespan)

    def test_a_refused_schedule_raises_its_refusal(self):
        # zb-h2 needs m >= 2p.
        with self.assertRaises(sc.ValidationError) as caught:
            sc.simulate(unit_project(**{"parallel.microbatches": 4}), "zb-h2")
        self.assertEqual(caught.exception.field, "parallel.microbatches")

    def test_simulations_run_in_threads_without_the_lock(self):
        # Long calls release the GIL: two threads each simulate a large schedule.
        project = unit_project(**{"parallel.pp": 16, "parallel.microbatches": 2048, "model.layers": 32})
        results, errors = [], []

        def run():
            try:
                results.append(sc.simulate(project, "1f1b").makespan)
            except sc.Error as e:  # pragma: no cover - reported below
                errors.append(e)

        threads = [threading.Thread(target=run) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(results, [results[0]] * 2)
        self.assertEqual(results[0], 2 * 2048 + 3 * 15 + 2048)  # (m + p - 1)(F + B) with B = 2


class Projects(unittest.TestCase):
    def test_fields_read_and_set_as_set_takes_them(self):
        p = sc.Project()
        p.set("parallel.pp", 8)
        p.set("costs.mode", "unit")
        p.set("schedules", ["1f1b", "zb-v"])
        self.assertEqual(p.get("parallel.pp"), 8)
        self.assertEqual(p.get("costs.mode"), "unit")
        self.assertEqual(p.schedules, ["1f1b", "zb-v"])
        with self.assertRaises(sc.ValidationError) as caught:
            p.set("parallel.pp", 0)
        self.assertEqual((caught.exception.id, caught.exception.field), ("project.field", "parallel.pp"))
        with self.assertRaises(sc.Error) as unknown:
            p.get("parallel.nope")
        self.assertEqual(unknown.exception.id, "project.key")
        self.assertIn("parallel.pp", [f["field"] for f in sc.project_fields()])

    def test_a_project_file_round_trips(self):
        p = unit_project(**{"model.layers": 32})
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "p.stagecraft.json")
            p.save(path)
            self.assertEqual(sc.Project.load(path), p)
        self.assertEqual(sc.Project.from_json(p.to_json()), p)
        with self.assertRaises(sc.ParseError) as caught:
            sc.Project.from_json('{"stagecraft": 2,\n "model": [}', "bad.json")
        self.assertEqual(caught.exception.line, 2)


class Fidelity(unittest.TestCase):
    """The runtime fit on real torch runs (tests/data/torch-runs, unpacked by CMake)."""

    def setUp(self):
        self.runs = os.environ.get("STAGECRAFT_TORCH_RUNS")
        if not self.runs:
            self.skipTest("STAGECRAFT_TORCH_RUNS is not set")
        self.set = os.path.join(self.runs, "pp2_h1024")

    def run_of(self, cls):
        return [os.path.join(self.set, cls + "_pp2_v2_m8_h1024")]

    def test_a_fit_predicts_another_run_as_the_cli_does(self):
        fit = sc.fit_torch_run(self.run_of("ZBVZeroBubble"))
        self.assertEqual((fit.ranks, fit.microbatches, fit.iterations), (2, 8, 32))
        self.assertEqual(len(fit.stages), 4)
        self.assertIsNotNone(fit.stages[1]["i"])
        self.assertLess(abs(fit.residual["makespan_error"]), 0.15)
        # torch's W runs slower on rank 1 than on rank 0 for the same FLOPs (docs/fidelity.md).
        self.assertEqual(len(fit.weight_factors), 2)
        self.assertGreater(fit.weight_factors[1], fit.weight_factors[0])
        check = fit.check(self.run_of("Interleaved1F1B"))
        self.assertEqual(check["matched_ops"], 64)
        cli = os.environ.get("STAGECRAFT_CLI")
        if cli:
            args = [cli, "fidelity", "--fit", self.run_of("ZBVZeroBubble")[0], "--check", self.run_of("Interleaved1F1B")[0], "--json"]
            report = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
            self.assertAlmostEqual(report["residual"]["makespan_error"], fit.residual["makespan_error"], places=12)
            self.assertAlmostEqual(report["checks"][0]["makespan_error"], check["makespan_error"], places=12)
            self.assertAlmostEqual(report["checks"][0]["op_speed"], check["op_speed"], places=12)
            self.assertAlmostEqual(report["checks"][0]["at_run_speed"]["makespan_error"],
                                   check["makespan_error_at_run_speed"], places=12)
            # The last rank's error parts as the CLI reports them, past its own times included.
            self.assertEqual(report["checks"][0]["critical_rank"], check["critical_rank"])
            self.assertAlmostEqual(report["checks"][0]["critical_delta_us"]["past_rank"],
                                   check["critical_past_rank"], places=6)
            # How far the run's iterations and the replay's draws spread, as the CLI reports them.
            for side in ("measured", "predicted"):
                low, high = check[side + "_makespan_p10_p90"]
                self.assertLess(low, high)
                self.assertEqual([low, high], report["checks"][0][side + "_makespan_p10_p90_us"])
            # What the run's and the replay's critical paths are made of, as the CLI reports them.
            for side in ("measured", "predicted"):
                path = check[side + "_critical_path"]
                cli_path = report["checks"][0][side + "_critical_path"]
                for part in ("compute", "transfers", "comm", "waits", "bookkeeping", "gaps"):
                    self.assertAlmostEqual(path[part], cli_path[part + "_us"], places=6)
                self.assertEqual(path["hops"], cli_path["hops"])
                self.assertGreater(path["compute"], 0)
            # The processors the ranks shared, given as the CLI's --processors.
            given = sc.fit_torch_run(self.run_of("ZBVZeroBubble"), processors=1.5)
            self.assertEqual(given.shared_processors, 1.5)
            args += ["--processors", "1.5"]
            report = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
            self.assertAlmostEqual(report["residual"]["makespan_error"], given.residual["makespan_error"], places=12)
        with self.assertRaises(sc.Error) as caught:
            sc.fit_torch_run(self.run_of("ZBVZeroBubble"), processors=0.5)
        self.assertEqual(caught.exception.id, "fit.processors")

    def test_a_project_calibrated_on_a_torch_run_times_every_schedule_with_its_fit(self):
        project = sc.Project().with_overrides(
            {"parallel.pp": 2, "parallel.microbatches": 8, "parallel.chunks": 2, "parallel.dp": 1,
             "model.layers": 8, "costs.mode": "manual"})
        run = self.run_of("ZBVZeroBubble")[0]
        traces = sorted(glob.glob(run + "_rank*.json") + glob.glob(run + "_rep*_rank*.json"))  # every repeat
        calibrated, report = sc.calibrate(project, "zb-v", traces, median=True)
        self.assertIn("torch-gloo runtime model", calibrated.runtime_fit)
        self.assertEqual(report["runtime_fit"], calibrated.runtime_fit)
        self.assertIsNone(report["runtime_refusal"])
        self.assertLess(abs(run_against_prediction(report["after"]["makespan_error"])), 0.1)
        # The fit is kept in the file and times every schedule; dropping it goes back to the costs.
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "calibrated.stagecraft.json")
            calibrated.save(path)
            self.assertEqual(sc.Project.load(path), calibrated)
        timed = sc.simulate(calibrated, "1f1b").makespan
        listed = sc.simulate(calibrated.without_runtime_fit(), "1f1b").makespan
        self.assertNotEqual(timed, listed)
        self.assertIsNone(calibrated.without_runtime_fit().runtime_fit)
        only_list, report = sc.calibrate(project, "zb-v", traces, median=True, runtime_model=False)
        self.assertIsNone(only_list.runtime_fit)

    def test_calibrate_once_choose_a_schedule(self):
        fit = sc.fit_torch_run(self.run_of("ZBVZeroBubble"))
        names = ["1f1b", "zb-v", "chimera", "no-such"]
        predictions = {p["schedule"]: p for p in fit.predict(names, pp=2, microbatches=8)}
        self.assertEqual(predictions["1f1b"]["runtime"], "1f1b-loop")
        # ZB-V fills 1F1B's bubble with W; which is faster here is the fit's to say (torch's split
        # backward costs more on CPU: the recorded ZBVZeroBubble run took longer than GPipe's).
        self.assertLess(predictions["zb-v"]["bubble"], predictions["1f1b"]["bubble"])
        # torch runs one pipe: two are timed with Stagecraft's lowering at the fitted costs.
        self.assertEqual(predictions["chimera"]["runtime"], "stagecraft")
        self.assertGreater(predictions["chimera"]["makespan"], 0)
        self.assertIsNone(predictions["no-such"]["makespan"])
        self.assertIn("unknown schedule", predictions["no-such"]["refusal"])
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "zbv.fit.json")
            fit.save(path)
            again = sc.load_fit(path)
            self.assertEqual(again.predict(["zb-v"], 2, 8)[0]["makespan"], predictions["zb-v"]["makespan"])
            # The file keeps which rank ended the replay last and how far past its median time.
            self.assertEqual(again.residual["critical_rank"], fit.residual["critical_rank"])
            self.assertAlmostEqual(again.residual["critical_past_rank"], fit.residual["critical_past_rank"], places=6)
        with self.assertRaises(sc.Error) as caught:
            sc.fit_torch_run([os.path.join(self.set, "GPipe_pp2_v1_m8_h1024")])  # no SEND/RECV to fit
        self.assertEqual(caught.exception.id, "calibrate.trace")


class MeasuredTraces(unittest.TestCase):
    """overlay() and calibrate() on a run of stagecraft-run's host backend (tests/data/host-traces)."""

    def setUp(self):
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data")
        self.trace = os.path.join(root, "host-traces", "zb-h1_pp2_m4_host.json")
        base = sc.Project.load(os.path.join(root, "runtime", "tiny.stagecraft.json"))
        # The run's own project: the tiny one widened, as the trace's README says.
        self.project = base.with_overrides({"parallel.pp": 2, "parallel.microbatches": 4, "model.hidden": 256, "model.seq_len": 128})

    def test_overlay_gives_the_cli_s_errors(self):
        report = sc.overlay(self.project, "zb-h1", [self.trace])
        self.assertEqual(report["matched_ops"], 2 * 4 * 3 + 4)  # F, B, W of 2 stages x 4, and the tail
        self.assertRegex(report["worst_op"], r"^[01][FIW][0-3]$")
        cli = os.environ.get("STAGECRAFT_CLI")
        if cli:
            project = os.path.join(os.path.dirname(self.trace), "..", "runtime", "tiny.stagecraft.json")
            args = [cli, "overlay", project, self.trace, "--json", "-s", "zb-h1", "--set", "parallel.pp=2",
                    "--set", "parallel.microbatches=4", "--set", "model.hidden=256", "--set", "model.seq_len=128"]
            printed = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
            self.assertAlmostEqual(printed["makespan"]["error"], report["makespan_error"], places=12)
            # Per device, where the time went: the CLI's table, from the same core breakdown.
            for mine, theirs in zip(report["devices"], printed["devices"], strict=True):
                for key in ("busy_predicted", "busy_measured", "idle_predicted", "idle_measured"):
                    self.assertAlmostEqual(mine[key], theirs[key + "_us"], places=6)
            # Per op kind, and the ops that drifted most: the CLI's tables too.
            self.assertEqual([k["kind"] for k in report["kinds"]], [k["kind"] for k in printed["kinds"]])
            for mine, theirs in zip(report["kinds"], printed["kinds"], strict=True):
                self.assertEqual(mine["ops"], theirs["ops"])
                self.assertAlmostEqual(mine["mean_abs_duration_error"], theirs["mean_abs_duration_error_us"], places=6)
            self.assertEqual([d["op"] for d in report["most_drift"]], [d["op"] for d in printed["most_drift"]])
            for mine, theirs in zip(report["most_drift"], printed["most_drift"], strict=True):
                self.assertAlmostEqual(mine["start_error"], theirs["start_error_us"], places=6)
        self.assertEqual({k["kind"] for k in report["kinds"]}, {"F", "B", "W", "GradSync", "Optimizer"})
        self.assertEqual(sum(k["ops"] for k in report["kinds"]), report["matched_ops"])
        self.assertEqual(len(report["most_drift"]), 5)
        errors = [abs(d["duration_error"]) for d in report["most_drift"]]
        self.assertEqual(errors, sorted(errors, reverse=True))
        self.assertAlmostEqual(report["most_drift"][0]["measured_duration"] - report["most_drift"][0]["predicted_duration"],
                               report["most_drift"][0]["duration_error"])
        self.assertEqual(len(report["devices"]), 2)
        for device in report["devices"]:
            self.assertAlmostEqual(device["busy_predicted"] + device["idle_predicted"], report["makespan_predicted"])
            self.assertAlmostEqual(device["busy_measured"] + device["idle_measured"], report["makespan_measured"])
        # --placement's rule and message are core's: a Stagecraft trace names its stages, so "v"
        # changes nothing; a placement that is neither is refused as the CLI refuses it.
        self.assertEqual(sc.overlay(self.project, "zb-h1", [self.trace], placement="v"), report)
        with self.assertRaises(sc.Error) as caught:
            sc.overlay(self.project, "zb-h1", [self.trace], placement="zigzag")
        self.assertEqual(caught.exception.id, "option.value")
        self.assertIn("--placement zigzag: must be one of loop, v", str(caught.exception))

    def test_calibration_brings_the_prediction_to_the_run(self):
        calibrated, report = sc.calibrate(self.project, "zb-h1", [self.trace])
        self.assertEqual(calibrated.get("costs.mode"), "manual")
        self.assertLess(abs(run_against_prediction(report["after"]["makespan_error"])),
                        abs(run_against_prediction(report["before"]["makespan_error"])))
        self.assertIn("zb-h1_pp2_m4_host.json", report["note"])
        # A Stagecraft trace is not a torch run: no runtime model, and the report says why. This run
        # predates prediction_timing in the runtime's traces: the list scheduler times the project.
        self.assertIsNone(calibrated.runtime_fit)
        self.assertIn("torch profiler", report["runtime_refusal"])
        self.assertEqual(report["timing"], "list-scheduler")
        with self.assertRaises(sc.Error):
            sc.overlay(self.project, "1f1b", [self.trace])  # a trace of another schedule


@unittest.skipUnless(os.environ.get("STAGECRAFT_HOST_RUNS"), "the unpacked tests/data/host-runs (set by CTest)")
class StagecraftRunCalibration(unittest.TestCase):
    """A project calibrated on a stagecraft-run trace times every schedule as that runtime runs it."""

    def test_the_runtime_s_timing_is_kept(self):
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data")
        project = sc.Project.load(os.path.join(root, "runtime", "tiny.stagecraft.json")).with_overrides(
            {"parallel.pp": 2, "costs.mode": "manual", "costs.f": 4000, "costs.b": 4000, "costs.w": 4000,
             "model.hidden": 1024, "model.seq_len": 1024})
        runs = os.path.join(os.environ["STAGECRAFT_HOST_RUNS"], "sleep_pp2")
        calibrated, report = sc.calibrate(project, "zb-h1", [os.path.join(runs, "zb-h1.json")], median=True)
        self.assertEqual(report["timing"], "stagecraft-run")
        self.assertEqual(calibrated.get("costs.timing"), "stagecraft-run")
        # Another schedule's run, overlaid on the calibrated project: within the acceptance's 10 %.
        other = sc.overlay(calibrated, "interleaved", [os.path.join(runs, "interleaved.json")], median=True)
        self.assertLess(abs(run_against_prediction(other["makespan_error"])), 0.10)
        # The same run under the list scheduler (the project's own timing, as --project-timing).
        listed = calibrated.with_overrides({"costs.timing": "list-scheduler"})
        own = sc.overlay(listed, "interleaved", [os.path.join(runs, "interleaved.json")], median=True,
                         project_timing=True)
        self.assertAlmostEqual(own["makespan_predicted"], sc.simulate(listed, "interleaved").makespan)
        self.assertNotAlmostEqual(own["makespan_predicted"], other["makespan_predicted"], delta=100)


class TorchExample(unittest.TestCase):
    """examples/torch-end-to-end: the order torch ran is the one Stagecraft generates."""

    def test_the_recorded_csv_is_stagecraft_s_order(self):
        here = os.path.dirname(os.path.abspath(__file__))
        recorded = os.path.join(here, "..", "..", "examples", "torch-end-to-end", "recorded")  # python/tests -> root
        with open(os.path.join(recorded, "v-1f1b.csv")) as f:
            self.assertEqual(f.read(), sc.generate("v-1f1b", 2, 8).to_torch_csv())


class Search(unittest.TestCase):
    SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "samples", "bfpp-6.6b.stagecraft.json")

    def test_the_same_configurations_as_the_cli(self):
        cli = os.environ.get("STAGECRAFT_CLI")
        if not cli:
            self.skipTest("STAGECRAFT_CLI is not set")
        found = sc.search(
            sc.Project.load(self.SAMPLE), batch_per_gpu="0.5..2", schedules=["1f1b", "breadth-first"], threads=2
        )
        with tempfile.TemporaryDirectory() as folder:
            files = [os.path.join(folder, "r.json"), os.path.join(folder, "r.csv")]
            args = [cli, "search", self.SAMPLE, "--batch-per-gpu", "0.5..2", "--schedules", "1f1b,breadth-first"]
            args += ["--threads", "2", "-q", "-o", files[0], "-o", files[1]]
            printed = subprocess.run(args, check=True, capture_output=True, text=True).stdout
            written = []
            for path in files:
                with open(path, encoding="utf-8") as file:
                    written.append(file.read())
        # Core's writers over the module's result: the CLI's files byte for byte, its table too.
        self.assertEqual(found.to_json(), written[0])
        self.assertEqual(found.to_csv(), written[1])
        self.assertEqual(found.summary(), printed)
        # The columns are the same numbers as the CLI's JSON, configuration by configuration.
        report = json.loads(written[0])
        columns = found.results()
        self.assertEqual(len(found), report["planned"])
        self.assertEqual(found.fitting, report["fitting"])
        self.assertEqual(int(np.count_nonzero(columns["fits"])), report["fitting"])
        self.assertEqual([p["global_batch"] for p in found.points], [p["global_batch"] for p in report["points"]])
        self.assertEqual(len(found.best), len(report["best"]))
        for best, expected in zip(found.best, report["best"]):
            i = best["result"]
            self.assertEqual(i, expected["index"])
            self.assertEqual(columns["schedule"][i], expected["schedule"])
            for key in ("pp", "dp", "tp", "microbatches", "chunks", "zero_stage", "global_batch"):
                self.assertEqual(int(columns[key][i]), expected[key], key)
            self.assertEqual(columns["recompute"][i], expected["recompute"])
            self.assertAlmostEqual(columns["iteration_us"][i] / 1000.0, expected["iteration_ms"], places=9)
            self.assertAlmostEqual(columns["mfu"][i], expected["mfu"], places=12)
            self.assertTrue(found.label(i).startswith(expected["schedule"] + " pp="))
        self.assertEqual(list(found.memory_front), report["memory_front"])
        self.assertEqual(list(found.batch_front), report["batch_front"])
        # A configuration opens as a project that simulates to the search's own prediction.
        first = found.best[0]["result"]
        sim = sc.simulate(found.project(first), columns["schedule"][first])
        self.assertAlmostEqual(sim.iteration, columns["predicted_iteration_us"][first], places=6)

    def test_refused_configurations_carry_core_s_error_ids(self):
        found = sc.search(sc.Project.load(self.SAMPLE), global_batch=64, schedules=["1f1b"], zero=[0], threads=1)
        columns = found.results()
        refused = [i for i in range(len(found)) if not columns["evaluated"][i]]
        for i in refused:
            self.assertTrue(columns["refusal_id"][i])
            self.assertTrue(columns["refusal"][i])
        self.assertTrue(all(columns["refusal_id"][i] == "" for i in range(len(found)) if columns["evaluated"][i]))

    def test_a_space_that_cannot_be_searched_names_the_option(self):
        project = sc.Project.load(self.SAMPLE)
        for kwargs, field in (
            ({"zero": [5]}, "zero"),
            ({"batch_per_gpu": "4..1"}, "batch_per_gpu"),
            ({"max_gpus": 100000}, "max_gpus"),
            ({"recompute": ["most"]}, "recompute"),
            ({"global_batch": 64, "batch_per_gpu": 1}, "batch_per_gpu"),
            ({"threads": -1}, "threads"),
        ):
            with self.assertRaises(sc.ValidationError, msg=str(kwargs)) as caught:
                sc.search(project, **kwargs)
            self.assertEqual(caught.exception.id, "search.space", kwargs)
            self.assertEqual(caught.exception.field, field, kwargs)
        with self.assertRaises(sc.Error):
            sc.search(project, schedules=["nope"])

    def test_a_search_runs_without_the_lock(self):
        # Another thread keeps running Python while the search works: had the call kept the GIL,
        # that thread would stop for the whole search (its longest gap would be the search's time).
        import time

        project = sc.Project.load(self.SAMPLE)
        stamps, done = [], threading.Event()

        def tick():
            while not done.is_set():
                stamps.append(time.perf_counter())
                time.sleep(0.001)

        ticker = threading.Thread(target=tick)
        ticker.start()
        time.sleep(0.05)
        start = time.perf_counter()
        try:
            sc.search(project, batch_per_gpu=1, threads=1)  # every schedule: about 2 s
        finally:
            took = time.perf_counter() - start
            done.set()
            ticker.join()
        during = [t for t in stamps if start <= t <= start + took]
        gaps = np.diff([start] + during + [start + took])
        if took < 0.2:
            self.skipTest(f"the search took {took:.3f} s, too short to tell")
        self.assertLess(gaps.max(), took / 2)


class Lowering(unittest.TestCase):
    def test_programs_are_deadlock_free_and_torch_writes_the_same_comms(self):
        s = sc.generate("1f1b", 4, 8)
        lowered = sc.lower(s)
        self.assertEqual(lowered.ranks, 4)
        self.assertEqual(lowered.peak_buffers, [4, 3, 2, 1])
        lowered.check_deadlock_free("nccl")
        lowered.check_deadlock_free("mpi")
        self.assertTrue(lowered.program(0)[0].startswith("F s0 mb0"))
        # One iteration as stagecraft-run runs it, as `stagecraft-cli lower` lowers it: the
        # schedule's gradient sync and optimizer step on every rank.
        self.assertEqual(lowered.program(3)[-2:], ["GRAD_SYNC s3 ranks r3", "OPTIMIZER s3"])
        cli = os.environ.get("STAGECRAFT_CLI")
        if cli:
            listing = subprocess.run([cli, "lower", "-s", "1f1b"], check=True, capture_output=True, text=True)
            ours = ["r%d: %s" % (r, line) for r in range(4) for line in lowered.program(r)]
            self.assertEqual([l for l in listing.stdout.splitlines() if re.match(r"r\d+: ", l)], ours)
        torch_like = sc.lower(s, like="torch").to_torch_comms_csv().splitlines()
        self.assertEqual(len(torch_like), 4)
        self.assertTrue(torch_like[0].startswith("0UNSHARD,0F0,0SEND_F0"))
        with self.assertRaises(ValueError):
            sc.lower(s, like="megatron")


class Editing(unittest.TestCase):
    EDITS = os.path.join(os.path.dirname(__file__), "..", "..", "samples", "edits", "1f1b-to-zb-h1.edits.json")

    def test_the_listed_moves_take_1f1b_to_zb_h1_and_undo_restores_it(self):
        with open(self.EDITS) as f:
            edits = json.load(f)["edits"]
        base = sc.generate("1f1b", 4, 8)
        editor = sc.Editor(base)  # unit costs
        self.assertEqual(editor.makespan, 33)
        undo = []
        for outcome in editor.apply_all(edits):
            self.assertIsNone(outcome["broken"])
            undo.append(outcome["inverse"])
        self.assertEqual(editor.makespan, 27)  # ZB-H1's, as the paper draws it
        self.assertEqual(editor.schedule.op_names(), sc.generate("zb-h1", 4, 8).op_names())
        for inverse in reversed(undo):
            editor.apply_all(inverse)
        self.assertEqual(editor.schedule.to_json(), base.to_json())

    def test_a_broken_order_is_named_and_repaired_with_the_fewest_moves(self):
        editor = sc.Editor(sc.generate("1f1b", 4, 8))
        broken = editor.apply("move 0B3 to 0")["broken"]
        self.assertEqual(broken["kind"], "dependency")
        self.assertIn("0B3 runs before its dependency 0F3", broken["message"])
        self.assertFalse(editor.runs)
        repaired = editor.repair()
        self.assertTrue(editor.runs)
        self.assertEqual([m for m, _ in repaired["moves"]], ["move 0B3 after 0F7"])
        self.assertTrue(repaired["fewest"])
        self.assertEqual(repaired["summary"], "1 move(s), the fewest (searched; the greedy made 2)")
        sc.validate(editor.schedule)

    def test_edits_that_cannot_apply_raise_with_their_id(self):
        editor = sc.Editor(sc.generate("1f1b", 4, 8))
        with self.assertRaises(sc.ParseError) as caught:
            editor.apply("mv 1W3 after 1F5")
        self.assertEqual(caught.exception.id, "edit.syntax")
        with self.assertRaises(sc.ValidationError) as caught:
            editor.apply("move 1F3 after 2F5")
        self.assertEqual(caught.exception.id, "edit.target")
        self.assertEqual(editor.makespan, 33)  # nothing changed

    def test_a_schedule_of_sequence_slices_is_edited_by_slice_names(self):
        # Seq1F1B, p = 4, m = 4, k = 2, the second slice twice the first's cost.
        project = unit_project(**{"parallel.microbatches": 4, "parallel.slices": 2, "parallel.chunks": 1,
                                  "costs.slice_costs": [1, 2]})
        editor = sc.Editor(project.order("seq1f1b"), project)
        self.assertEqual(editor.makespan, sc.simulate(project, editor.schedule).makespan)
        editor.apply("split all")
        outcome = editor.apply("shift 3W0.1 +1")
        self.assertIsNone(outcome["broken"])
        self.assertEqual(outcome["inverse"], ["shift 3W0.1 -1"])
        self.assertAlmostEqual(editor.makespan, sc.simulate(project, editor.schedule).makespan)
        broken = editor.apply("move 0F0.1 to 0")["broken"]
        self.assertIn("0F0.1 runs before its dependency 0F0.0", broken["message"])
        with self.assertRaises(sc.ParseError) as caught:
            editor.apply("shift 3W0 +1")
        self.assertIn("so an edit names one: 3W0.0 .. 3W0.1", str(caught.exception))
        self.assertEqual(sc.generate("terapipe", 2, 2, slices=3).op_names()[:3], ["0F0.0", "0F0.1", "0F0.2"])

    def test_chimera_with_its_syncs_and_a_project_times_as_simulate_does(self):
        project = unit_project()
        editor = sc.Editor(project.order("chimera"), project)
        outcome = editor.apply("pipe 7 to 0" if editor.schedule.op_names().count("p1:0F7") else "pipe 7 to 1")
        self.assertIsNone(outcome["broken"])
        self.assertEqual(editor.makespan, sc.simulate(project, editor.schedule).makespan)
        sc.validate(editor.schedule)
        before = editor.makespan
        for move in editor.compact():  # compute ops pulled into gaps; the syncs stay put
            self.assertRegex(move, r"^move (p1:)?\d+[FIBW]\d+ before ")
        self.assertLessEqual(editor.makespan, before)
        sc.validate(editor.schedule)


if __name__ == "__main__":
    unittest.main()
