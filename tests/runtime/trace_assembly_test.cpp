// Trace assembly from hand-made stamps: stamps that replay the prediction give back the
// prediction; a consumer that starts before its producer ended, or a receive that ends before its
// send started, is counted; memory follows the buffers taken and given back.
#include "exec/trace_assembly.h"
#include "sim/overlay.h"

#include <catch2/catch.hpp>
#include <unordered_map>

using namespace stagecraft;
using namespace stagecraft::runtime;

namespace {

std::uint64_t key(OpKind kind, int pipe, int stage, int mb) {
    return (std::uint64_t(kind) << 56) | (std::uint64_t(pipe) << 48) |
           (std::uint64_t(std::uint32_t(stage)) << 24) | std::uint64_t(std::uint32_t(mb + 1));
}

RunPlan tinyPlan(const std::string& schedule) {
    RunRequest r;
    r.projectPath = std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/runtime/tiny.stagecraft.json";
    r.schedule = schedule;
    return makeRunPlan(r);
}

/// Stamps that replay the prediction, `shift` µs later: compute ops at their predicted times, a
/// send and its receive posted when the producer ends, the receive ending when the consumer starts.
MeasuredRun replayPrediction(const RunPlan& plan, int iterations, double period) {
    std::unordered_map<std::uint64_t, TimelineEvent> predicted;
    for (const TimelineEvent& e : plan.prediction.timeline.events)
        if (e.lane == Lane::Compute || e.comm == CommKind::Collective)
            predicted[key(e.op.kind, e.op.pipe, e.op.stage, e.op.mb)] = e;
    MeasuredRun run;
    run.ranks.resize(std::size_t(plan.lowered.ranks));
    run.clockOffsetUs.assign(std::size_t(plan.lowered.ranks), 0.0);
    run.staticBytes.assign(std::size_t(plan.lowered.ranks), 1000);
    for (int it = 0; it < iterations; ++it)
        for (int r = 0; r < plan.lowered.ranks; ++r) {
            const RankPlan rp = makeRankPlan(plan, r);
            RankIteration record;
            record.iterationStart = it * period;
            for (std::size_t i = 0; i < rp.steps.size(); ++i) {
                const Instruction& in = rp.steps[i].instr;
                Stamp s;
                if (in.kind == InstrKind::Compute || in.kind == InstrKind::GradSync ||
                    in.kind == InstrKind::Optimizer) {
                    const OpKind kind = in.kind == InstrKind::Compute    ? in.op
                                        : in.kind == InstrKind::GradSync ? OpKind::GradSync
                                                                         : OpKind::Optimizer;
                    const TimelineEvent& e = predicted.at(
                        key(kind, in.pipe, in.stage, in.kind == InstrKind::Compute ? in.mb : -1));
                    s = {e.start, e.end};
                } else if (in.kind == InstrKind::Send || in.kind == InstrKind::Recv) {
                    const int sendStage = in.kind == InstrKind::Send ? in.stage
                                          : in.dir == Direction::F   ? in.stage - 1
                                                                     : in.stage + 1;
                    const int recvStage = in.dir == Direction::F ? sendStage + 1 : sendStage - 1;
                    const OpKind kind = in.dir == Direction::F ? OpKind::F : OpKind::B;
                    const TimelineEvent& producer = predicted.at(key(kind, in.pipe, sendStage, in.mb));
                    const TimelineEvent& consumer = predicted.at(key(kind, in.pipe, recvStage, in.mb));
                    s = {producer.end, in.kind == InstrKind::Send ? producer.end : consumer.start};
                }
                if (s.start >= 0) {
                    s.start += it * period;
                    s.end += it * period;
                }
                record.stamps.push_back(s);
                if (rp.steps[i].take) record.memory.push_back({std::int32_t(i), 100});
                if (rp.steps[i].giveBack) record.memory.push_back({std::int32_t(i), -100});
            }
            run.ranks[std::size_t(r)].push_back(std::move(record));
        }
    return run;
}

} // namespace

TEST_CASE("stamps that replay the prediction assemble into the prediction", "[runtime][trace]") {
    for (const char* schedule : {"1f1b", "zb-v", "chimera"}) {
        DYNAMIC_SECTION(schedule) {
            const RunPlan plan = tinyPlan(schedule);
            const AssembledTrace trace = assembleTrace(plan, replayPrediction(plan, 1, 0), 0);
            CHECK(trace.causalityViolations == 0);
            CHECK(trace.dependencyViolations == 0);
            CHECK(trace.completeIterations == 1);
            REQUIRE(trace.iterations.size() == trace.timeline.events.size());
            const OverlayReport report = compareTimelines(plan.prediction.timeline, trace.timeline);
            CHECK(report.maxAbsDurationError == Approx(0).margin(1e-9));
            CHECK(report.makespanError == Approx(0).margin(1e-9));
            for (const double peak : trace.peakBytes) CHECK(peak > 1000);
        }
    }
}

TEST_CASE("several iterations, violations and waits are reported", "[runtime][trace]") {
    const RunPlan plan = tinyPlan("1f1b");
    const double period = plan.prediction.report.iterationUs * 2;
    MeasuredRun run = replayPrediction(plan, 2, period);
    AssembledTrace trace = assembleTrace(plan, run, 0);
    REQUIRE(trace.iterationUs.size() == 2);
    CHECK(trace.iterationUs[0] == Approx(trace.iterationUs[1]));
    CHECK(std::count(trace.iterations.begin(), trace.iterations.end(), 1u) * 2 ==
          std::ptrdiff_t(trace.iterations.size()));

    // Rank 1 forgets to wait: its first forward starts before rank 0's ended.
    const RankPlan rank1 = makeRankPlan(plan, 1);
    for (std::size_t i = 0; i < rank1.steps.size(); ++i)
        if (rank1.steps[i].instr.kind == InstrKind::Compute) {
            run.ranks[1][0].stamps[i].start = 0;
            break;
        }
    // A receive on rank 2 that ends before its send started: a clock error.
    const RankPlan rank2 = makeRankPlan(plan, 2);
    for (std::size_t i = 0; i < rank2.steps.size(); ++i)
        if (rank2.steps[i].instr.kind == InstrKind::Recv) {
            run.ranks[2][0].stamps[i] = {0, 0};
            break;
        }
    trace = assembleTrace(plan, run, 0);
    CHECK(trace.dependencyViolations >= 1);
    CHECK(trace.causalityViolations >= 1);

    // A rank that stopped in iteration 1 leaves one complete iteration.
    run.ranks[3].pop_back();
    CHECK(assembleTrace(plan, run, 0).completeIterations == 1);
}

TEST_CASE("a transfer posted on one side first waits for the other", "[runtime][trace]") {
    const RunPlan plan = tinyPlan("gpipe");
    MeasuredRun run = replayPrediction(plan, 1, 0);
    const RankPlan rank1 = makeRankPlan(plan, 1);
    for (std::size_t i = 0; i < rank1.steps.size(); ++i)
        if (rank1.steps[i].instr.kind == InstrKind::Recv)
            run.ranks[1][0].stamps[i].start = 0; // posted at once
    const AssembledTrace trace = assembleTrace(plan, run, 0);
    REQUIRE_FALSE(trace.waits.empty());
    for (const TraceSlice& w : trace.waits) {
        CHECK(w.category == "wait");
        CHECK(w.end > w.start);
    }
    CHECK(trace.waits.front().name.rfind("wait RECV_", 0) == 0);
}

TEST_CASE("a send that returned before its receive was posted waited only while it ran", "[runtime][trace]") {
    // Core's rule (io/measured_transfer.h): the wait ends when the other side posted or when the
    // waiting side's own call returned (an eager send), whichever came first.
    const RunPlan plan = tinyPlan("gpipe");
    MeasuredRun run = replayPrediction(plan, 1, 0);
    const RankPlan rank0 = makeRankPlan(plan, 0);
    const RankPlan rank1 = makeRankPlan(plan, 1);
    std::size_t send = 0, recv = 0;
    while (rank0.steps[send].instr.kind != InstrKind::Send) ++send;
    while (rank1.steps[recv].instr.kind != InstrKind::Recv) ++recv;
    Stamp& sent = run.ranks[0][0].stamps[send];
    Stamp& received = run.ranks[1][0].stamps[recv];
    received.start = sent.start + 50; // posted well after the send returned
    received.end = received.start + 2;
    sent.end = sent.start + 1;
    const AssembledTrace trace = assembleTrace(plan, run, 0);
    const auto wait = std::find_if(trace.waits.begin(), trace.waits.end(), [&](const TraceSlice& w) {
        return w.device == 0 && w.start == sent.start;
    });
    REQUIRE(wait != trace.waits.end());
    CHECK(wait->end == sent.end); // not the receive's posting
    CHECK(wait->name.rfind("wait SEND_", 0) == 0);
}

TEST_CASE("clock offsets measured before and after the run are interpolated per iteration",
          "[runtime][trace]") {
    MeasuredRun run;
    run.clockOffsetUs = {0, 10};
    run.ranks.resize(2);
    for (const double start : {0.0, 500.0, 1000.0, 2000.0}) {
        RankIteration it;
        it.iterationStart = start;
        run.ranks[0].push_back(it);
    }
    CHECK(clockOffsetAt(run, 1, 1) == 10); // measured once: constant
    run.clockOffsetEndUs = {0, 14};
    run.clockEndAtUs = 1000;
    CHECK(clockOffsetAt(run, 1, 0) == 10);
    CHECK(clockOffsetAt(run, 1, 1) == Approx(12));
    CHECK(clockOffsetAt(run, 1, 2) == Approx(14));
    CHECK(clockOffsetAt(run, 1, 3) == Approx(14)); // never past the last measurement
    CHECK(clockOffsetAt(run, 0, 2) == 0);
    CHECK(clockOffsetAt(run, 1, 9) == 10); // an iteration rank 0 did not record
}

TEST_CASE("an iteration spans its first op to its last, not its early-posted receives", "[runtime][trace]") {
    const RunPlan plan = tinyPlan("gpipe");
    const double period = plan.prediction.report.iterationUs * 2;
    MeasuredRun run = replayPrediction(plan, 2, period);
    const double makespan = iterationSpanUs(plan.lowered, run, 1);
    CHECK(makespan == Approx(plan.prediction.report.iterationUs));
    // Rank 1 posts every receive of iteration 1 at once, long before its ops: the span holds.
    const RankPlan rank1 = makeRankPlan(plan, 1);
    for (std::size_t i = 0; i < rank1.steps.size(); ++i)
        if (rank1.steps[i].instr.kind == InstrKind::Recv) run.ranks[1][1].stamps[i].start = period - 500;
    CHECK(iterationSpanUs(plan.lowered, run, 1) == Approx(makespan));
    // The trace reports the same span, and an iteration no rank recorded spans nothing.
    CHECK(assembleTrace(plan, run, 0).iterationUs.at(1) == Approx(makespan));
    CHECK(iterationSpanUs(plan.lowered, run, 2) == 0);
}
