// The executor's ordering logic on a device layer whose streams are queues in virtual time
// (virtual_layer.h): the run-ahead window bounds what the host issues ahead of the device, no
// slot is written while a transfer still reads it (or the other way round) in any registered
// schedule, nothing is allocated inside an iteration, and a transfer that never completes is
// reported at its own instruction with its peer.
#include "exec/executor.h"
#include "generators/registry.h"
#include "virtual_layer.h"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace stagecraft;
using namespace stagecraft::runtime;
using stagecraft::runtime::testing::VirtualLayer;

namespace {

RunPlan tinyPlan(const std::string& schedule, Workload workload = Workload::Model) {
    RunRequest r;
    r.projectPath = std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/runtime/tiny.stagecraft.json";
    r.schedule = schedule;
    r.workload = workload;
    r.sets = {"costs.mode=manual"};
    return makeRunPlan(r);
}

struct Harness {
    Harness(const RunPlan& plan, int rank, VirtualLayer::Options layerOptions, ExecutorOptions options)
        : rankPlan(makeRankPlan(plan, rank)), layer(layerOptions) {
        LayerSetup setup;
        setup.rank = rank;
        setup.ranks = plan.lowered.ranks;
        setup.records = std::int32_t(rankPlan.steps.size());
        layer.setup(setup);
        executor = std::make_unique<Executor>(plan, rankPlan, layer, options);
        executor->allocateStatic();
        layer.anchor();
    }
    RankPlan rankPlan;
    VirtualLayer layer;
    std::unique_ptr<Executor> executor;
};

} // namespace

TEST_CASE("the run-ahead window bounds the instructions the host issues ahead of the device",
          "[runtime][executor]") {
    const RunPlan plan = tinyPlan("1f1b");
    // Groups are posted whole (at most two transfers here), so the window may be passed by one.
    for (const int window : {2, 4, 8}) {
        Harness h(plan, 1, {}, ExecutorOptions{window, false});
        for (int it = 0; it < 2; ++it) h.executor->run(it, std::chrono::seconds(10));
        CHECK(h.layer.mostInFlight() <= window + 1);
    }
    Harness unbounded(plan, 1, {}, ExecutorOptions{0, false});
    unbounded.executor->run(0, std::chrono::seconds(10));
    CHECK(unbounded.layer.mostInFlight() > 9); // without the window the host runs far ahead
}

TEST_CASE("slots are reused only after the transfers on them end, in every schedule", "[runtime][executor]") {
    for (const GeneratorInfo& info : generators()) {
        if (info.usesCosts) continue;
        const RunPlan plan = tinyPlan(std::string(info.name));
        for (const bool early : {false, true}) {
            DYNAMIC_SECTION(info.name << (early ? ", early posts" : ", posts in place")) {
                for (int rank = 0; rank < plan.lowered.ranks; ++rank) {
                    // Sends that complete long after they are posted: a slot's next micro-batch
                    // would otherwise come while a send still reads it.
                    VirtualLayer::Options slow;
                    slow.gemmUs = 0.1;
                    slow.sendUs = 5000;
                    Harness h(plan, rank, slow, ExecutorOptions{8, early});
                    const std::uint64_t allocated = h.layer.allocations();
                    for (int it = 0; it < 2; ++it) {
                        const RankIteration record = h.executor->run(it, std::chrono::seconds(10));
                        CHECK(record.allocations == 0);
                    }
                    CHECK(h.layer.allocations() == allocated);
                    INFO("rank " << rank);
                    CHECK(h.layer.races().empty());
                    if (!h.layer.races().empty()) FAIL_CHECK(h.layer.races().front());
                }
            }
        }
    }
}

TEST_CASE("a transfer that never completes is reported at its instruction, with its peer",
          "[runtime][executor]") {
    const RunPlan plan = tinyPlan("1f1b", Workload::Sleep);
    for (const bool early : {false, true}) {
        VirtualLayer::Options options;
        options.hungPeer = 1;
        Harness h(plan, 2, options, ExecutorOptions{4, early});
        try {
            h.executor->run(0, std::chrono::milliseconds(50));
            FAIL("the run should have stopped");
        } catch (const ExecutionFault& fault) {
            const Instruction& stuck = h.rankPlan.steps.at(std::size_t(fault.position)).instr;
            CHECK(stuck.peer == 1);
            CHECK((stuck.kind == InstrKind::Recv || stuck.kind == InstrKind::Send));
            CHECK_THAT(fault.instruction, Catch::Contains("rank 1"));
            CHECK_THAT(std::string(fault.what()), Catch::Contains("did not complete before the deadline"));
        }
    }
}

TEST_CASE("a compute is given the posted receives its rank's next compute waits for", "[runtime][executor]") {
    // The host backend copies those tensors even in an op's last moments (ComputeWork::next).
    int given = 0; // receives that had to be listed: some, or the check below is empty
    for (const char* schedule : {"1f1b", "interleaved", "zb-h1"}) {
        const RunPlan plan = tinyPlan(schedule, Workload::Sleep);
        for (int rank = 0; rank < plan.lowered.ranks; ++rank) {
            Harness h(plan, rank, {}, ExecutorOptions{8, true});
            h.executor->run(0, std::chrono::seconds(10));
            const std::vector<Step>& steps = h.rankPlan.steps;
            const auto computes = [&](std::size_t i) {
                return steps[i].instr.kind == InstrKind::Compute ||
                       steps[i].instr.kind == InstrKind::Optimizer;
            };
            for (std::size_t i = 0; i < steps.size(); ++i) {
                if (!computes(i)) continue;
                std::size_t j = i + 1;
                while (j < steps.size() && !computes(j)) ++j;
                INFO(schedule << ", rank " << rank << ", " << steps[i].label);
                REQUIRE(i < h.layer.nextInputs().size());
                const std::vector<std::int32_t>& next = h.layer.nextInputs()[i];
                const std::vector<std::int32_t> none;
                const std::vector<std::int32_t>& after = j < steps.size() ? steps[j].after : none;
                for (const std::int32_t r : next)
                    CHECK(std::find(after.begin(), after.end(), r) != after.end());
                // Every receive the next compute waits for that is posted by now is listed.
                const std::vector<std::int32_t>& posted = h.layer.postedBefore()[i];
                for (const std::int32_t r : after)
                    if (steps[std::size_t(r)].instr.kind == InstrKind::Recv &&
                        std::find(posted.begin(), posted.end(), r) != posted.end()) {
                        CHECK(std::find(next.begin(), next.end(), r) != next.end());
                        ++given;
                    }
            }
        }
    }
    CHECK(given > 0);
}
