// Recompute (R) end to end: the 1F1B + full recompute golden of the reference notes, the memory
// model's claim (one full activation per device at 1F1B's checkpoints), costs, schedule files,
// lowering with its replay, and the overlay of a measured run (docs/recompute.md).
#include "error.h"
#include "generators/registry.h"
#include "golden_file.h"
#include "golden_support.h"
#include "io/chrome_trace.h"
#include "io/measured_run.h"
#include "io/schedule_json.h"
#include "io/torch_comms_csv.h"
#include "io/torch_csv.h"
#include "io/torch_trace.h"
#include "ir/op_name.h"
#include "passes/lower.h"
#include "passes/lower_torch.h"
#include "passes/replay.h"
#include "sim/cost_model.h"
#include "sim/memory_model.h"
#include "sim/overlay.h"
#include "sim/simulator.h"
#include "validate/validator.h"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace stagecraft;
using namespace stagecraft::testing;

namespace {

std::vector<double> peaks(const MemoryReport& report) {
    std::vector<double> out;
    for (const DeviceMemory& d : report.devices) out.push_back(d.peakBytes);
    return out;
}

/// Peaks of `s` simulated with F = 1, R = 1, B = 2 under `inputs`.
std::vector<double> peaksOf(const Schedule& s, const MemoryInputs& inputs) {
    return peaks(computeMemory(s, simulate(s, fullStageCosts(s, 1, 2, 0)), inputs));
}

/// Per stage: `activation` bytes of full activations and `checkpoint` bytes of stage input.
MemoryInputs stageBytes(const Schedule& s, double activation, double checkpoint) {
    MemoryInputs inputs = unitMemoryInputs(s);
    for (StageMemory& m : inputs.stages) {
        m.activationBytes = activation;
        m.checkpointBytes = checkpoint;
    }
    return inputs;
}

} // namespace

TEST_CASE("1F1B with full recompute p=4 m=8 matches the worked example", "[golden][recompute]") {
    const Schedule s = generateSchedule("1f1b-recompute", {4, 8, 1});
    validate(s);
    CHECK_FALSE(s.splitBackward);
    // T_F = T_R = 1, whole backward 2.
    const Simulated sim = simulateFullStage(s, 1, 2, 0);
    const auto rows = readGoldenRows("1f1b-recompute_p4_m8");
    REQUIRE(int(rows.size()) == s.devices);
    for (const auto& [device, expected] : rows) {
        INFO("device " << device);
        CHECK(renderDevice(s, sim, device, plainLabel) == expected);
    }
    CHECK(sim.makespan == 41);
    CHECK(simulateFullStage(generateSchedule("1f1b", {4, 8, 1}), 1, 2, 0).makespan == 33);
    // Every device runs m F, m R and m B: 8 + 8 + 16 units.
    for (const double busy : sim.busy) CHECK(busy == 32);
    // The lowering's buffers hold the checkpoints: 1F1B's {4, 3, 2, 1}.
    CHECK(peakActivations(s, 1) == std::vector<double>{4, 3, 2, 1});
}

TEST_CASE("full recompute keeps one full activation per device, 1F1B keeps up to p", "[memory][recompute]") {
    // The reference's claim at equal m: peak full activations 1 on every device against 1F1B's
    // min(p - r, m); the checkpoints held are 1F1B's counts.
    for (const int p : {2, 4, 8})
        for (const int m : {1, 3, 8, 16}) {
            INFO("p " << p << " m " << m);
            const Schedule plain = generateSchedule("1f1b", {p, m, 1});
            const Schedule recomputed = generateSchedule("1f1b-recompute", {p, m, 1});
            std::vector<double> inFlight, one(std::size_t(p), 1.0);
            for (int r = 0; r < p; ++r) inFlight.push_back(std::min(p - r, m));
            CHECK(peaksOf(plain, unitMemoryInputs(plain)) == inFlight);
            CHECK(peaksOf(recomputed, unitMemoryInputs(recomputed)) == one);
            CHECK(peaksOf(recomputed, stageBytes(recomputed, 0, 1)) == inFlight);
            // Both together: one activation on top of the checkpoints (10 bytes each, input 1).
            std::vector<double> both;
            for (const double c : inFlight) both.push_back(10 + c);
            CHECK(peaksOf(recomputed, stageBytes(recomputed, 10, 1)) == both);
        }
}

TEST_CASE("memory frees a recomputed op's checkpoint with its W when the backward is split",
          "[memory][recompute]") {
    Schedule s = generateSchedule("zb-h1", {2, 2, 1});
    // Recompute (stage 0, mb 0) right before its B.
    auto& ops = s.order[0];
    const auto b = std::find(ops.begin(), ops.end(), Op{OpKind::B, 0, 0, 0, 0});
    ops.insert(b, Op{OpKind::R, 0, 0, 0, 0});
    validate(s);
    const Timeline t = simulate(s, fullStageCosts(s, 1, 1, 1));
    MemoryInputs inputs = stageBytes(s, 10, 1);
    for (StageMemory& m : inputs.stages) m.keptForWBytes = 4;
    const MemoryReport report = computeMemory(s, t, inputs);
    // Device 0 ends with nothing held: B freed 10 - 4, W the 4 and the checkpoint.
    CHECK(report.devices[0].curve.back().second == 0);
    CHECK(report.devices[1].curve.back().second == 0);
}

TEST_CASE("R costs what its stage's forward costs", "[cost_model][recompute]") {
    const Schedule s = generateSchedule("1f1b-recompute", {4, 8, 1});
    const OpCosts units = fullStageCosts(s, 3, 5, 7);
    CHECK(units.of(Op{OpKind::R, 0, 0, 2, 0}, 4) == 3);

    Project project = defaultProject();
    project.parallel.pp = 4;
    project.parallel.microbatches = 8;
    project.memory.recompute = Recompute::None;
    const CostSetup setup = buildCostSetup(project, s);
    for (int stage = 0; stage < 4; ++stage) {
        CHECK(setup.costs.duration[int(OpKind::R)][std::size_t(stage)] ==
              setup.costs.duration[int(OpKind::F)][std::size_t(stage)]);
        const StageMemory& m = setup.memory.stages[std::size_t(stage)];
        CHECK(m.checkpointBytes > 0);
        CHECK(m.checkpointBytes < m.activationBytes);
    }
    project.memory.recompute = Recompute::Full;
    try {
        (void)buildCostSetup(project, s);
        FAIL("full recompute on top of R ops must be refused");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "costs.recompute");
        CHECK(std::string(e.what()) ==
              "[costs.recompute] memory.recompute = full recomputes inside every backward, but schedule "
              "'1f1b-recompute' places "
              "its own recompute ops (0R0): set memory.recompute to none or selective for it");
    }
}

TEST_CASE("schedules with R round-trip through Stagecraft JSON; torch CSV refuses them", "[io][recompute]") {
    const Schedule s = generateSchedule("1f1b-recompute", {4, 4, 1});
    const std::string json = scheduleToJson(s);
    CHECK(json.find("\"0R0\"") != std::string::npos);
    CHECK(parseScheduleJson(json, "r.json") == s);

    std::string bad = json;
    bad.replace(bad.find("\"0R1\""), 5, "\"0R9\"");
    CHECK_THROWS_WITH(parseScheduleJson(bad, "r.json"),
                      Catch::Contains("'0R9': micro-batch 9 is outside 0..3"));

    try {
        (void)scheduleToTorchCsv(s);
        FAIL("torch CSV cannot hold R");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "csv.recompute");
        CHECK(std::string(e.what()) ==
              "[csv.recompute] device 0 runs the recompute 0R0: torch's action set has no recompute (F, I, "
              "B, W and their "
              "transfers), so a torch CSV cannot hold it; save the schedule as .json, Stagecraft's format");
    }
    CHECK_THROWS_WITH(programsToTorchCommsCsv(lower(s)), Catch::Contains("rank 0 runs the recompute 0R0"));
    CHECK_THROWS_WITH(lowerLikeTorch(s),
                      Catch::Contains("'0R0' is a recompute: torch's runtime has no recompute"));
    CHECK_THROWS_WITH(parseTorchCsv("0F0,0R0,0B0\n", "r.csv"),
                      Catch::Contains("torch's action set has no recompute (R)"));
}

TEST_CASE("lowering keeps R on its rank with no transfer, and the replay orders B after R",
          "[lower][recompute]") {
    const Schedule s = generateSchedule("1f1b-recompute", {4, 8, 1});
    const Lowered l = lower(s);
    CHECK(replay(l).ok());
    // R is local: the transfers are 1F1B's.
    CHECK(l.matches.size() == lower(generateSchedule("1f1b", {4, 8, 1})).matches.size());
    std::size_t recomputes = 0;
    for (const Program& p : l.programs)
        for (std::size_t i = 0; i < p.instructions.size(); ++i) {
            const Instruction& in = p.instructions[i];
            if (in.kind != InstrKind::Compute || in.op != OpKind::R) continue;
            ++recomputes;
            CHECK(in.slot >= 0); // the buffer its forward filled
            // The next compute is its B (a receive of B's gradient may come between).
            const auto next =
                std::find_if(p.instructions.begin() + std::ptrdiff_t(i) + 1, p.instructions.end(),
                             [](const Instruction& x) { return x.kind == InstrKind::Compute; });
            REQUIRE(next != p.instructions.end());
            CHECK((next->op == OpKind::B && next->stage == in.stage && next->mb == in.mb &&
                   next->slot == in.slot));
        }
    CHECK(recomputes == 4 * 8);

    // A rank that runs B before its R: the replay names the missing input.
    Lowered swapped = l;
    auto& ins = swapped.programs[3].instructions;
    auto compute = [](OpKind kind) {
        return [kind](const Instruction& in) { return in.kind == InstrKind::Compute && in.op == kind; };
    };
    const auto r = std::find_if(ins.begin(), ins.end(), compute(OpKind::R));
    std::iter_swap(r, std::find_if(r, ins.end(), compute(OpKind::B)));
    const ReplayResult bad = replay(swapped);
    CHECK(bad.id == "lower.order");
    CHECK(bad.message.find("for its input R s3 mb0") != std::string::npos);
}

TEST_CASE("a measured run's R ranges match the prediction in the overlay and the trace file",
          "[overlay][recompute]") {
    const Schedule s = generateSchedule("1f1b-recompute", {4, 4, 1});
    const Timeline predicted = simulate(s, fullStageCosts(s, 1, 2, 0));
    // Measured: every R takes 1.5 units instead of 1 (the rest shifts with it on its device).
    Timeline measured = predicted;
    for (TimelineEvent& e : measured.events)
        if (e.op.kind == OpKind::R && e.lane == Lane::Compute) e.end = e.start + 1.5;
    measured.origin = "measured";
    const Timeline read = parseChromeTrace(timelineToChromeTrace(measured), "run.json");
    const auto recomputes = std::count_if(read.events.begin(), read.events.end(),
                                          [](const TimelineEvent& e) { return e.op.kind == OpKind::R; });
    CHECK(recomputes == 16);
    const OverlayReport report = compareTimelines(predicted, read);
    const OverlayBreakdown groups = breakdownOverlay(predicted, read, report);
    CHECK(groups.kinds[int(OpKind::R)].ops == 16);
    CHECK(groups.kinds[int(OpKind::R)].meanAbsDurationError == Approx(0.5));
    CHECK(groups.kinds[int(OpKind::F)].meanAbsDurationError == Approx(0));

    // torch-style range names (a profiler or Nsight Systems trace of stagecraft-run): a recompute
    // is "PP:0R1", read by the foreign readers' one name parser as an R op.
    const Timeline named = assembleMeasuredRun(parseTorchTrace(
        R"([{"ph":"X","cat":"user_annotation","name":"PP:0F1","pid":5,"tid":1,"ts":4,"dur":2},)"
        R"({"ph":"X","cat":"user_annotation","name":"PP:0R1","pid":5,"tid":1,"ts":10,"dur":2},)"
        R"({"ph":"X","cat":"user_annotation","name":"PP:0B1","pid":5,"tid":1,"ts":12,"dur":4}])",
        "rank.json"));
    REQUIRE(named.events.size() == 3);
    CHECK(named.events[1].op == Op{OpKind::R, 0, 0, 0, 1});
    CHECK(named.events[1].start == Approx(6)); // from the first op's start
    CHECK(named.events[1].end == Approx(8));
}

TEST_CASE("the registry lists 1F1B with full recompute with its constraints", "[registry][recompute]") {
    const GeneratorInfo& info = findGenerator("1F1B-Recompute");
    CHECK(info.name == "1f1b-recompute");
    CHECK(info.constraints == "none");
    CHECK_FALSE(info.splitBackward);
    CHECK(generateSchedule("1f1b-recompute", {1, 1, 1}).order[0] ==
          std::vector<Op>{{OpKind::F, 0, 0, 0, 0}, {OpKind::R, 0, 0, 0, 0}, {OpKind::B, 0, 0, 0, 0}});
}
