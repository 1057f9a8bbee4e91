// The lowering pass: every registered schedule becomes per-rank programs that the static replay
// proves deadlock-free under NCCL semantics (with and without groups) and MPI semantics; every
// dependency between ranks is one send and one receive in one global order; the buffer counts
// equal the in-flight activations counted independently from the compute order.
#include "error.h"
#include "generators/registry.h"
#include "ir/op_index.h"
#include "passes/iteration_tail.h"
#include "passes/lower.h"
#include "passes/replay.h"
#include "test_support.h"
#include "text/text_programs.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

using namespace stagecraft;

namespace {

/// Most micro-batches live at once per device, F to its last backward op: the papers' count,
/// computed from the compute order alone.
std::vector<int> inFlight(const Schedule& s) {
    std::vector<int> peaks(std::size_t(s.devices), 0);
    const OpKind release = s.splitBackward ? OpKind::W : OpKind::B;
    for (int d = 0; d < s.devices; ++d) {
        int live = 0;
        for (const Op& op : s.order[std::size_t(d)]) {
            live += op.kind == OpKind::F ? 1 : op.kind == release ? -1 : 0;
            peaks[std::size_t(d)] = std::max(peaks[std::size_t(d)], live);
        }
    }
    return peaks;
}

/// Every structural promise of a lowering, checked against the schedule it came from.
void checkLowered(const Schedule& s, const Lowered& l) {
    const OpIndex index(s);
    std::size_t sends = 0, recvs = 0, others = 0;
    std::set<std::int64_t> tags;
    for (const Program& p : l.programs)
        for (const Instruction& in : p.instructions) {
            if (in.kind == InstrKind::Send || in.kind == InstrKind::Recv) {
                (in.kind == InstrKind::Send ? sends : recvs)++;
                REQUIRE(in.peer != p.rank);
                REQUIRE(in.peer == l.placement[in.pipe][std::size_t(peerStage(in))].device);
                if (in.kind == InstrKind::Send) REQUIRE(tags.insert(in.tag).second);
                REQUIRE(in.bytes == 1);
            } else {
                ++others;
            }
        }
    // One send and one receive per dependency between ranks; every op exactly once.
    REQUIRE(sends == index.crossDeviceDependencies());
    REQUIRE(recvs == sends);
    REQUIRE(others == s.opCount());
    REQUIRE(l.matches.size() == sends);
    // The global order: every rank posts its transfers in it.
    std::vector<int> lastPosition(std::size_t(l.ranks), -1);
    for (const Match& m : l.matches) {
        const Instruction& send = l.programs[std::size_t(m.sendRank)].instructions[std::size_t(m.sendIndex)];
        const Instruction& recv = l.programs[std::size_t(m.recvRank)].instructions[std::size_t(m.recvIndex)];
        REQUIRE(send.kind == InstrKind::Send);
        REQUIRE(recv.kind == InstrKind::Recv);
        REQUIRE(send.tag == recv.tag);
        REQUIRE(m.sendIndex > lastPosition[std::size_t(m.sendRank)]);
        lastPosition[std::size_t(m.sendRank)] = m.sendIndex;
        REQUIRE(m.recvIndex > lastPosition[std::size_t(m.recvRank)]);
        lastPosition[std::size_t(m.recvRank)] = m.recvIndex;
    }
    REQUIRE(l.peakBuffers == inFlight(s));
    for (int pipe = 0; pipe < l.pipes; ++pipe)
        for (int stage = 0; stage < l.stagesPerPipe; ++stage) {
            const int rank = l.placement[std::size_t(pipe)][std::size_t(stage)].device;
            REQUIRE(l.buffers[std::size_t(pipe * l.stagesPerPipe + stage)] <=
                    l.peakBuffers[std::size_t(rank)]);
        }
}

void requireReplays(const Lowered& l) {
    for (const ReplayOptions options :
         {ReplayOptions{CommSemantics::Nccl, true}, ReplayOptions{CommSemantics::Nccl, false},
          ReplayOptions{CommSemantics::Mpi, true}, ReplayOptions{CommSemantics::Mpi, false}}) {
        const ReplayResult result = replay(l, options);
        INFO(semanticsName(options.semantics)
             << (options.groups ? " grouped: " : " one at a time: ") << result.message);
        REQUIRE(result.ok());
        REQUIRE(result.completed.size() == l.matches.size());
    }
}

} // namespace

TEST_CASE("Every registered schedule lowers to deadlock-free programs over p, m, v", "[lower][property]") {
    int lowered = 0;
    auto visit = [&](const GeneratorInfo& info, const ScheduleParams& params) {
        INFO(info.name << " p=" << params.pp << " m=" << params.microbatches << " v=" << params.chunks);
        for (bool tail : {false, true}) {
            Schedule s = generateSchedule(info.name, params);
            if (tail) s = addIterationTail(s, {});
            const Lowered l = lower(s);
            checkLowered(s, l);
            requireReplays(l);
            ++lowered;
        }
    };
    test::forEachAcceptedParams(8, 16, 3, visit);
    for (const GeneratorInfo& info : generators())
        for (int p : {12, 16, 32})
            for (int m : {p, 2 * p}) {
                const ScheduleParams params{p, m, 2};
                if (!constraintViolation(info, params)) visit(info, params);
            }
    CHECK(lowered > 2000);
}

TEST_CASE("1F1B steady state pairs a send with the next receive, as Megatron does", "[lower]") {
    const Lowered l = lower(generateSchedule("1f1b", {4, 8, 1}));
    // Rank 1 in steady state: [send_backward, recv_forward] F [recv_backward, send_forward] B.
    const auto& ins = l.programs[1].instructions;
    auto text = [&](std::size_t i) { return describeInstruction(l, ins[i]); };
    std::size_t b0 = 0;
    while (!(ins[b0].kind == InstrKind::Compute && ins[b0].op == OpKind::B)) ++b0;
    CHECK(text(b0) == "B s1 mb0 slot 0");
    CHECK(text(b0 + 1) == "RECV_F s0->s1 mb3 from r0 tag 18 slot 0 bytes 1 group 3");
    CHECK(text(b0 + 2) == "SEND_B s1->s0 mb0 to r0 tag 1 slot -1 bytes 1 group 3");
    CHECK(text(b0 + 3) == "F s1 mb3 slot 0");
    CHECK(text(b0 + 4) == "RECV_B s2->s1 mb1 from r2 tag 9 slot 1 bytes 1 group 4");
    CHECK(text(b0 + 5) == "SEND_F s1->s2 mb3 to r2 tag 20 slot 0 bytes 1 group 4");
    CHECK(l.buffers == std::vector<int>{4, 3, 2, 1});
}

TEST_CASE("Neighbouring stages on one rank exchange locally", "[lower]") {
    // ZB-V: stages p-1 and p share the last rank (the V's turn); BitPipe's chunks meet likewise.
    const Schedule s = generateSchedule("zb-v", {4, 8, 1});
    const Lowered l = lower(s);
    for (const Program& p : l.programs)
        for (const Instruction& in : p.instructions)
            if (in.kind == InstrKind::Send || in.kind == InstrKind::Recv)
                CHECK(std::min(in.stage, peerStage(in)) != 3); // no transfer over the s3->s4 boundary
    CHECK(l.buffers.size() == 8);
}

TEST_CASE("Boundary bytes are carried by both directions and checked", "[lower]") {
    const Schedule s = generateSchedule("1f1b", {3, 3, 1});
    LowerOptions options;
    options.boundaryBytes = {1000, 2000};
    const Lowered l = lower(s, options);
    for (const Program& p : l.programs)
        for (const Instruction& in : p.instructions)
            if (in.kind == InstrKind::Send || in.kind == InstrKind::Recv)
                CHECK(in.bytes == (std::min(in.stage, peerStage(in)) == 0 ? 1000u : 2000u));
    options.boundaryBytes = {1000};
    CHECK(test::errorSummary([&] { lower(s, options); }) ==
          "lower.bytes [boundaryBytes] | bytes are given for 1 stage boundaries, the schedule has 2 (stages "
          "per "
          "pipe - 1)");
    options.boundaryBytes = {1000, 0};
    CHECK(test::errorSummary([&] { lower(s, options); }) ==
          "lower.bytes [boundaryBytes] | boundary s1->s2 carries 0 bytes: every transfer carries at least "
          "one byte");
}

TEST_CASE("BitPipe's gradient syncs are posted in one order on every rank", "[lower][bitpipe]") {
    // As generated, rank 0 posts the sync of stage 3 before stage 0 and rank 3 the other way
    // round; one FIFO collective lane per rank would then wait forever. The lowering orders them.
    const Schedule s = addIterationTail(generateSchedule("bitpipe", {4, 4, 1}), {});
    const Lowered l = lower(s);
    std::vector<std::vector<int>> laneOrder(std::size_t(l.ranks));
    for (const Program& p : l.programs)
        for (const Instruction& in : p.instructions)
            if (in.kind == InstrKind::GradSync) laneOrder[std::size_t(p.rank)].push_back(in.ref);
    // Any two collectives two ranks share come in the same order on both.
    for (std::size_t a = 0; a < laneOrder.size(); ++a)
        for (std::size_t b = a + 1; b < laneOrder.size(); ++b) {
            std::vector<int> onA, onB;
            for (int c : laneOrder[a])
                if (std::count(laneOrder[b].begin(), laneOrder[b].end(), c)) onA.push_back(c);
            for (int c : laneOrder[b])
                if (std::count(laneOrder[a].begin(), laneOrder[a].end(), c)) onB.push_back(c);
            CHECK(onA == onB);
        }
    REQUIRE(l.collectives.size() == 8);
    CHECK(l.collectives[0].ranks == std::vector<int>{0, 3});
    requireReplays(l);
}

namespace {

/// A hand-written two-rank program with a split backward: rank 0 computes its third forward
/// before it takes the first gradient but sends it only after that micro-batch's backward; rank 1
/// sends each gradient right after its backward and computes the weight gradient before it
/// receives the next forward. Under NCCL rank 0's send of mb1 waits for rank 1's receive, which
/// comes after rank 1's send of mb0's gradient, which waits for rank 0's receive, which comes
/// after rank 0's send.
Lowered handMade() {
    Lowered l;
    l.name = "hand-made";
    l.ranks = 2;
    l.stagesPerPipe = 2;
    l.microbatches = 3;
    l.splitBackward = true;
    l.placement = {{{0, 0}, {1, 0}}};
    auto compute = [](OpKind kind, int stage, int mb) {
        Instruction in;
        in.op = kind;
        in.stage = stage;
        in.mb = mb;
        return in;
    };
    auto transfer = [](InstrKind kind, Direction dir, int stage, int mb) {
        Instruction in;
        in.kind = kind;
        in.dir = dir;
        in.stage = stage;
        in.mb = mb;
        return in;
    };
    using K = InstrKind;
    using D = Direction;
    const auto F = OpKind::F, B = OpKind::B, W = OpKind::W;
    Program r0{0,
               {compute(F, 0, 0), transfer(K::Send, D::F, 0, 0), compute(F, 0, 1),
                transfer(K::Send, D::F, 0, 1), compute(F, 0, 2), transfer(K::Recv, D::B, 0, 0),
                compute(B, 0, 0), compute(W, 0, 0), transfer(K::Send, D::F, 0, 2),
                transfer(K::Recv, D::B, 0, 1), compute(B, 0, 1), compute(W, 0, 1),
                transfer(K::Recv, D::B, 0, 2), compute(B, 0, 2), compute(W, 0, 2)}};
    Program r1{1, {}};
    for (int mb = 0; mb < 3; ++mb)
        for (const Instruction& in : {transfer(K::Recv, D::F, 1, mb), compute(F, 1, mb), compute(B, 1, mb),
                                      transfer(K::Send, D::B, 1, mb), compute(W, 1, mb)})
            r1.instructions.push_back(in);
    l.programs = {r0, r1};
    annotatePrograms(l);
    return l;
}

} // namespace

TEST_CASE("A bad order is refused under NCCL with its ring and accepted under MPI", "[lower][replay]") {
    const Lowered l = handMade();
    const ReplayResult nccl = replay(l, {CommSemantics::Nccl, true});
    REQUIRE(nccl.id == "lower.deadlock");
    CHECK(nccl.ring == std::vector<int>{0, 1});
    CHECK(nccl.message == "deadlock under NCCL semantics: ranks wait on each other in a ring: rank 0 waits "
                          "at 3 (SEND_F s0->s1 mb1 "
                          "to r1 tag 2 slot 1 bytes 1) for rank 1 to post the matching RECV_F; rank 1 waits "
                          "at 3 (SEND_B s1->s0 "
                          "mb0 to r0 tag 1 slot -1 bytes 1) for rank 0 to post the matching RECV_B");
    CHECK(test::errorSummary([&] {
              requireDeadlockFree(l, {CommSemantics::Nccl, true});
          }) == "lower.deadlock [rank 0] | 'hand-made': " + nccl.message);
    // MPI's sends do not wait for their receives: the same programs finish.
    const ReplayResult mpi = replay(l, {CommSemantics::Mpi, true});
    CHECK(mpi.ok());
    CHECK(mpi.completed.size() == 6);
}

TEST_CASE("Without groups both sides must post in one order", "[lower][replay]") {
    // 1F1B p=2: rank 1 posts [receive mb1's activation, send mb0's gradient] as one group
    // (Megatron's send_backward_recv_forward) and rank 0 [send mb1's activation, receive mb0's
    // gradient]; one at a time, in program order, that is still one global order.
    Lowered l = lower(generateSchedule("1f1b", {2, 3, 1}));
    CHECK(replay(l, {CommSemantics::Nccl, false}).ok());
    // Rank 0 now receives the gradient before it sends the activation: posted one at a time both
    // ranks receive first and wait for each other, under NCCL and under MPI's blocking receives;
    // posted as one group (what our runtime does) both finish.
    auto& ins = l.programs[0].instructions;
    const auto send = std::find_if(ins.begin(), ins.end(), [](const Instruction& in) {
        return in.kind == InstrKind::Send && in.mb == 1;
    });
    REQUIRE(send != ins.end());
    REQUIRE((send + 1)->kind == InstrKind::Recv);
    std::iter_swap(send, send + 1);
    annotatePrograms(l);
    const ReplayResult nccl = replay(l, {CommSemantics::Nccl, false});
    CHECK(nccl.id == "lower.deadlock");
    CHECK(nccl.ring == std::vector<int>{0, 1});
    CHECK(replay(l, {CommSemantics::Mpi, false}).id == "lower.deadlock");
    CHECK(replay(l, {CommSemantics::Nccl, true}).ok());
    CHECK(replay(l, {CommSemantics::Mpi, true}).ok());
}

TEST_CASE("The replay refuses programs that mismatch, miss a transfer or use data too early",
          "[lower][replay]") {
    SECTION("NCCL matches in order: two sends swapped pair the wrong tensors") {
        Lowered l = lower(generateSchedule("gpipe", {2, 2, 1}));
        auto& ins = l.programs[1].instructions;
        // Rank 1 receives mb0 then mb1; make it post the receive of mb1 first.
        std::vector<std::size_t> recvs;
        for (std::size_t i = 0; i < ins.size(); ++i)
            if (ins[i].kind == InstrKind::Recv && ins[i].dir == Direction::F) recvs.push_back(i);
        REQUIRE(recvs.size() == 2);
        std::swap(ins[recvs[0]].mb, ins[recvs[1]].mb);
        std::swap(ins[recvs[0]].tag, ins[recvs[1]].tag);
        const ReplayResult result = replay(l, {CommSemantics::Nccl, true});
        CHECK(result.id == "lower.mismatch");
        CHECK(result.message ==
              "under NCCL semantics rank 0's send at 1 (SEND_F s0->s1 mb0 to r1 tag 0 slot 0 bytes 1) meets "
              "rank "
              "1's receive at 0 (RECV_F s0->s1 mb1 from r0 tag 2 slot 0 bytes 1): transfers between two "
              "ranks are "
              "matched in the order they are posted, so these would exchange different tensors");
    }
    SECTION("A receive nobody sends") {
        Lowered l = lower(generateSchedule("gpipe", {2, 1, 1}));
        auto& r1 = l.programs[1].instructions;
        r1.erase(std::find_if(r1.begin(), r1.end(),
                              [](const Instruction& in) { return in.kind == InstrKind::Send; }));
        const ReplayResult result = replay(l, {CommSemantics::Mpi, true});
        CHECK(result.id == "lower.unmatched");
        REQUIRE(result.blocked.size() == 1);
        CHECK(result.blocked[0].rank == 0);
        CHECK(result.blocked[0].waitsFor == 1);
        CHECK(result.message ==
              "under MPI semantics ranks wait for transfers no rank posts: rank 0 waits at 2 "
              "(RECV_B s1->s0 mb0 from r1 tag 1 slot 0 bytes 1 group 0) for rank 1 to post the "
              "matching SEND_B, but rank 1 has run its whole program");
    }
    SECTION("A compute op before the receive of its input") {
        Lowered l = lower(generateSchedule("gpipe", {2, 1, 1}));
        auto& r1 = l.programs[1].instructions;
        REQUIRE(r1[0].kind == InstrKind::Recv);
        std::swap(r1[0], r1[1]);
        const ReplayResult result = replay(l, {CommSemantics::Mpi, true});
        CHECK(result.id == "lower.order");
        CHECK(result.message ==
              "rank 1 waits at 0 (F s1 mb0 slot 0) for its input RECV_F s1 mb0, which no earlier "
              "instruction of the rank provides");
    }
}

TEST_CASE("The comm view shows each rank's program in one row", "[lower][text]") {
    const Lowered l = lower(addIterationTail(generateSchedule("1f1b", {2, 3, 1}), {}));
    CHECK(formatCommView(l) ==
          "1f1b: per-rank programs, 6 transfers\n"
          "r0 |F0     F0>r1  F1     [F1>r1 r1>B0] B0     F2     [r1>B1 F2>r1] B1     r1>B2  B2     S      O\n"
          "r1 |r0>F0  F0     B0     [r0>F1 B0>r0] F1     B1     [B1>r0 r0>F2] F2     B2     B2>r0  S      O\n"
          "F3>r1 send to rank 1, r0>F3 receive from rank 0, [...] posted together, S gradient sync, O "
          "optimizer\n");
    CommViewOptions cut;
    cut.maxInstructions = 3;
    CHECK(formatCommView(l, cut).find("r0 |F0    F0>r1 F1    ...\n") != std::string::npos);
}
