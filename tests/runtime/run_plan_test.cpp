// Rank plans of every registered schedule: each activation buffer is taken once and given back
// once, every compute waits for the receive of its input, labels are torch's action strings.
#include "error.h"
#include "eval/evaluation.h"
#include "eval/evaluation_input.h"
#include "generators/registry.h"
#include "io/schedule_file.h"
#include "plan/run_plan.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>
#include <unistd.h>

using namespace stagecraft;
using namespace stagecraft::runtime;

namespace {

std::string tinyProject() {
    return std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/runtime/tiny.stagecraft.json";
}

RunRequest request(const std::string& schedule) {
    RunRequest r;
    r.projectPath = tinyProject();
    r.schedule = schedule;
    return r;
}

} // namespace

TEST_CASE("rank plans of every registered schedule", "[runtime][plan]") {
    for (const GeneratorInfo& info : generators()) {
        if (info.usesCosts) continue; // cost-aware generators need their own projects
        DYNAMIC_SECTION(info.name) {
            const RunPlan plan = makeRunPlan(request(std::string(info.name)));
            REQUIRE(plan.lowered.ranks == 4);
            std::map<std::pair<int, int>, int> peerPairs;
            for (int rank = 0; rank < plan.lowered.ranks; ++rank) {
                const RankPlan rp = makeRankPlan(plan, rank);
                std::vector<int> allocated(std::size_t(rp.keys), 0), released(std::size_t(rp.keys), 0);
                for (std::size_t i = 0; i < rp.steps.size(); ++i) {
                    const Step& s = rp.steps[i];
                    REQUIRE(s.label.rfind("PP:", 0) == 0);
                    if (s.take) ++allocated[std::size_t(s.key)];
                    if (s.giveBack) ++released[std::size_t(s.key)];
                    for (const std::int32_t a : s.after)
                        REQUIRE(a < std::int32_t(i)); // waits only on earlier ones
                    const Instruction& in = s.instr;
                    if (in.kind == InstrKind::Compute && in.op == OpKind::F && in.stage > 0 &&
                        plan.prediction.schedule.slot(in.pipe, in.stage - 1).device != rank) {
                        REQUIRE(s.after.size() == 1);
                        const Instruction& recv = rp.steps[std::size_t(s.after[0])].instr;
                        CHECK(recv.kind == InstrKind::Recv);
                        CHECK(recv.mb == in.mb);
                        CHECK(recv.dir == Direction::F);
                    }
                    if (in.kind == InstrKind::Send) ++peerPairs[{rank, in.peer}];
                    if (in.kind == InstrKind::Recv) --peerPairs[{in.peer, rank}];
                }
                for (std::int32_t k = 0; k < rp.keys; ++k) {
                    CHECK(allocated[std::size_t(k)] == 1);
                    CHECK(released[std::size_t(k)] == 1);
                }
            }
            for (const auto& [pair, balance] : peerPairs) CHECK(balance == 0); // every send has its receive
        }
    }
}

// The slots are the lowering's buffer plan: as many as it counted on the rank, never held by two
// micro-batches at once, and a receive is never posted into a slot before its last holder is done.
TEST_CASE("rank plans hold their buffers in the lowering's slots", "[runtime][plan]") {
    for (const GeneratorInfo& info : generators()) {
        if (info.usesCosts) continue;
        for (const Workload workload : {Workload::Model, Workload::Sleep}) {
            DYNAMIC_SECTION(info.name << " " << workloadName(workload)) {
                RunRequest r = request(std::string(info.name));
                r.workload = workload;
                r.sets = {"costs.mode=manual"};
                const RunPlan plan = makeRunPlan(r);
                for (int rank = 0; rank < plan.lowered.ranks; ++rank) {
                    const RankPlan rp = makeRankPlan(plan, rank);
                    CHECK(rp.slots == plan.lowered.peakBuffers[std::size_t(rank)]);
                    CHECK(rp.slotElements > 0);
                    std::vector<std::int32_t> holder(std::size_t(rp.slots), -1);
                    std::vector<std::int32_t> freedAt(std::size_t(rp.slots), 0);
                    std::vector<std::int32_t> pendingFree;
                    int gradientsHeld = 0;
                    for (std::size_t i = 0; i < rp.steps.size(); ++i) {
                        const Step& s = rp.steps[i];
                        if (s.key >= 0) {
                            REQUIRE(s.slot >= 0);
                            REQUIRE(s.slot < rp.slots);
                            if (s.take) {
                                CHECK(holder[std::size_t(s.slot)] == -1); // free when taken
                                holder[std::size_t(s.slot)] = s.key;
                            }
                            CHECK(holder[std::size_t(s.slot)] == s.key);
                        }
                        if (s.instr.kind == InstrKind::Recv) {
                            CHECK(s.postFrom >= 0);
                            CHECK(s.postFrom <= std::int32_t(i));
                            if (s.take) CHECK(s.postFrom >= freedAt[std::size_t(s.slot)]);
                        }
                        if (s.producesSentGradient) ++gradientsHeld;
                        if (s.gradientOf >= 0) {
                            CHECK(rp.steps[std::size_t(s.gradientOf)].producesSentGradient);
                            --gradientsHeld;
                        }
                        CHECK(gradientsHeld < std::max(1, rp.gradientBuffers));
                        if (s.giveBack) pendingFree.push_back(s.slot);
                        const bool groupGoesOn = s.instr.group >= 0 && i + 1 < rp.steps.size() &&
                                                 rp.steps[i + 1].instr.group == s.instr.group;
                        if (groupGoesOn) continue;
                        for (const std::int32_t slot : pendingFree) {
                            holder[std::size_t(slot)] = -1;
                            freedAt[std::size_t(slot)] = std::int32_t(i) + 1;
                        }
                        pendingFree.clear();
                    }
                    CHECK(gradientsHeld == 0);
                }
            }
        }
    }
}

TEST_CASE("sequence slices: each micro-batch's keys and values live from its first slice to its last",
          "[runtime][plan][slices]") {
    for (const std::string schedule : {"seq1f1b", "terapipe", "seq1f1b-i"}) {
        DYNAMIC_SECTION(schedule) {
            RunRequest r = request(schedule);
            r.sets = {"parallel.slices=2", "parallel.microbatches=4", "costs.mode=analytic"};
            const RunPlan plan = makeRunPlan(r);
            REQUIRE(plan.sliceLengths.size() == 2);
            const int slices = 2;
            const Schedule& s = plan.prediction.schedule;
            double flopsPerUs = 0; // the cost model's, the same for every op of every rank
            std::map<std::uint64_t, double> durationOf; // op identity -> predicted µs
            for (const TimelineEvent& e : plan.prediction.timeline.events)
                if (e.lane != Lane::Comm) durationOf[opIdentity(e.op)] = e.duration();
            for (int rank = 0; rank < plan.lowered.ranks; ++rank) {
                const RankPlan rp = makeRankPlan(plan, rank);
                REQUIRE(rp.keyValueBuffers > 0);
                std::map<std::tuple<int, int, int>, std::int32_t> held; // (pipe, stage, mb) -> buffer
                std::set<std::int32_t> inUse;
                std::map<std::tuple<int, int, int>, int> taken;
                for (const Step& step : rp.steps) {
                    const Instruction& in = step.instr;
                    if (in.kind != InstrKind::Compute || in.mb < 0) {
                        CHECK(step.keyValueBuffer == -1);
                        continue;
                    }
                    const auto key = std::tuple{int(in.pipe), in.stage, in.mb / slices};
                    REQUIRE(step.keyValueBuffer >= 0);
                    if (step.takeKeysValues) {
                        CHECK(held.count(key) == 0);
                        CHECK(inUse.insert(step.keyValueBuffer).second); // no other micro-batch holds it
                        held[key] = step.keyValueBuffer;
                        ++taken[key];
                    }
                    REQUIRE(held.count(key) == 1);
                    CHECK(held[key] == step.keyValueBuffer);
                    if (step.giveBackKeysValues) {
                        inUse.erase(step.keyValueBuffer);
                        held.erase(key);
                    }
                    // Each slice's GEMMs carry what the cost model times it at.
                    const LocalStage& stage = rp.stages[std::size_t(step.shape)];
                    const StageShape& shape = stage.shapeOf(in.mb);
                    CHECK(shape.seqLen == plan.sliceLengths[std::size_t(in.mb % slices)]);
                    const StageBuffers none{0, 1, 2, 3};
                    const double flops = in.op == OpKind::F ? gemmFlops(forwardGemms(shape, none))
                                         : in.op == OpKind::B
                                             ? gemmFlops(backwardGemms(shape, none, !s.splitBackward))
                                             : gemmFlops(weightGradGemms(shape, none));
                    const double us = durationOf.at(opIdentity(plan.lowered.opOf(in)));
                    if (flopsPerUs == 0) flopsPerUs = flops / us;
                    CHECK(flops / us == Approx(flopsPerUs).epsilon(1e-9));
                }
                CHECK(held.empty()); // every buffer given back by the iteration's end
                for (const auto& [key, times] : taken) CHECK(times == 1);
                CHECK(rp.keyValueElements > 0);
            }
        }
    }
}

TEST_CASE("sequence slices: each transfer carries its slice's tokens, as the prediction prices it",
          "[runtime][plan][slices]") {
    for (const std::string workload : {"model", "sleep"}) {
        DYNAMIC_SECTION(workload) {
            RunRequest r = request("seq1f1b");
            r.workload = workload == "model" ? Workload::Model : Workload::Sleep;
            r.sets = {"parallel.slices=2", "parallel.microbatches=4", "costs.mode=analytic",
                      "parallel.slice_split=balanced", "model.attention=causal"};
            const RunPlan plan = makeRunPlan(r);
            REQUIRE(plan.sliceLengths.size() == 2);
            REQUIRE(plan.sliceLengths[0] > plan.sliceLengths[1]); // a balanced cut: the first is longer
            const double dtype = dtypeBytes(plan.project.model.dtype);
            const std::vector<double>& shares = plan.prediction.setup.p2pSliceShares;
            REQUIRE(shares.size() == 2);
            int transfers = 0;
            for (int rank = 0; rank < plan.lowered.ranks; ++rank) {
                const RankPlan rp = makeRankPlan(plan, rank);
                for (const Step& step : rp.steps) {
                    const Instruction& in = step.instr;
                    if (!isTransfer(in)) continue;
                    ++transfers;
                    // What the executor sends (its slice's shape) is what the lowering says ...
                    const StageShape& shape = rp.stages[std::size_t(step.shape)].shapeOf(in.mb);
                    CHECK(shape.seqLen == plan.sliceLengths[std::size_t(in.mb % 2)]);
                    CHECK(double(in.bytes) == double(shape.tokens() * shape.hidden) * dtype);
                    // ... and what the prediction times the transfer at.
                    CHECK(double(in.bytes) ==
                          Approx(plan.prediction.setup.p2pBytesPerTransfer * shares[std::size_t(in.mb % 2)]));
                }
            }
            CHECK(transfers > 0);
        }
    }
}

TEST_CASE("labels are torch's profiler names", "[runtime][plan]") {
    const RunPlan plan = makeRunPlan(request("1f1b"));
    const RankPlan rank1 = makeRankPlan(plan, 1);
    std::set<std::string> labels;
    for (const Step& s : rank1.steps) labels.insert(s.label);
    CHECK(labels.count("PP:1F0"));
    CHECK(labels.count("PP:1RECV_F0"));
    CHECK(labels.count("PP:1SEND_F0"));
    CHECK(labels.count("PP:1B7"));
    CHECK(labels.count("PP:1REDUCE_GRAD"));
    CHECK(labels.count("PP:1OPTIMIZER"));
}

TEST_CASE("the run plan refuses what it cannot run, naming the rule", "[runtime][plan]") {
    RunRequest r = request("1f1b");
    r.sets = {"parallel.tp=2", "cluster.nodes=2"};
    CHECK_THROWS_WITH(makeRunPlan(r), Catch::Contains("parallel.tp = 2"));
    r.sets = {"costs.mode=unit"};
    r.workload = Workload::Sleep;
    CHECK_THROWS_WITH(makeRunPlan(r), Catch::Contains("unit costs have no µs"));
    r.sets = {};
    r.scale = 0;
    CHECK_THROWS_WITH(makeRunPlan(r), Catch::Contains("--scale"));
    r.scale = 1;
    r.schedule = "no-such-schedule";
    CHECK_THROWS_AS(makeRunPlan(r), Error);
}

TEST_CASE("the scale shrinks the model and keeps hidden a multiple of the heads", "[runtime][plan]") {
    Project p = defaultProject();
    const Project s = scaledProject(p, 0.1);
    CHECK(s.model.hidden % s.model.heads == 0);
    CHECK(s.model.hidden <= p.model.hidden / 9);
    CHECK(s.model.seqLen == int(p.model.seqLen * 0.1 + 0.5));
    CHECK(s.model.layers == p.model.layers);
}

TEST_CASE("data-parallel replicas: each runs its pipeline's program among its own ranks", "[runtime][plan]") {
    RunRequest r = request("zb-v");
    r.sets = {"parallel.pp=2", "parallel.dp=2"};
    const RunPlan plan = makeRunPlan(r);
    REQUIRE(plan.lowered.ranks == 2);
    for (int world = 0; world < 4; ++world) {
        const RankPlan replica = replicaRankPlan(plan, world, 2);
        const RankPlan pipeline = makeRankPlan(plan, world % 2);
        REQUIRE(replica.steps.size() == pipeline.steps.size());
        CHECK(replica.rank == world);
        for (std::size_t i = 0; i < replica.steps.size(); ++i) {
            const Instruction& a = replica.steps[i].instr;
            const Instruction& b = pipeline.steps[i].instr;
            CHECK(a.kind == b.kind);
            if (a.kind == InstrKind::Send || a.kind == InstrKind::Recv) {
                CHECK(a.peer == b.peer + world / 2 * 2); // a peer of its own replica
                CHECK(a.peer / 2 == world / 2);
            }
        }
        for (const int peer : peersOf(replica)) CHECK(peer / 2 == world / 2);
    }
    CHECK_THROWS(replicaRankPlan(plan, 4, 2));
    // One all-reduce per stage over the same ranks of every replica.
    const auto collectives = replicaCollectives(plan.lowered, 2);
    REQUIRE(collectives.size() == plan.lowered.collectives.size());
    for (std::size_t c = 0; c < collectives.size(); ++c) {
        std::vector<int> expected;
        for (const int k : {0, 1})
            for (const int rank : plan.lowered.collectives[c].ranks) expected.push_back(k * 2 + rank);
        std::sort(expected.begin(), expected.end());
        CHECK(collectives[c] == expected);
    }
}

TEST_CASE("a schedule file runs like the registered schedule whose order it holds", "[runtime][plan]") {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("stagecraft-run-plan-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    EvaluationInput tiny;
    tiny.path = tinyProject();
    const Schedule order = orderFromProject(loadInputProject(tiny), "zb-h1");
    const RunPlan registered = makeRunPlan(request("zb-h1"));
    for (const std::string name : {"zb-h1.csv", "zb-h1.json"}) {
        DYNAMIC_SECTION(name) {
            writeScheduleFile(order, dir / name);
            RunRequest r = request("");
            r.scheduleFile = (dir / name).string();
            const RunPlan plan = makeRunPlan(r);
            // Named after the file, as every front end shows an imported schedule.
            CHECK(plan.schedule == name);
            CHECK(plan.prediction.report.iterationUs == registered.prediction.report.iterationUs);
            REQUIRE(plan.lowered.ranks == registered.lowered.ranks);
            for (int rank = 0; rank < plan.lowered.ranks; ++rank)
                CHECK(makeRankPlan(plan, rank).steps.size() == makeRankPlan(registered, rank).steps.size());
        }
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("a schedule file that is wrong is refused, naming the file, the row and the rule",
          "[runtime][plan]") {
    RunRequest r = request("");
    r.scheduleFile = std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/runtime/zb-h1-broken.csv";
    CHECK_THROWS_WITH(makeRunPlan(r),
                      Catch::Contains("zb-h1-broken.csv row 2, column 1: device 1 position 0: 1I0 "
                                      "runs before its dependency 1F0"));
    r.scheduleFile = std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/runtime/no-such-order.csv";
    CHECK_THROWS_WITH(makeRunPlan(r), Catch::Contains("no-such-order.csv"));
    r.scheduleFile = tinyProject(); // a project, not a schedule file
    CHECK_THROWS_WITH(makeRunPlan(r), Catch::Contains("not a schedule file"));
    r = request("1f1b"); // a name and a file at once: core refuses the pair
    r.scheduleFile = std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/runtime/zb-h1-broken.csv";
    CHECK_THROWS_WITH(makeRunPlan(r), Catch::Contains("a schedule file is its own schedule"));
}
