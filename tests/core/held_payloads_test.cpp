// Payloads held back by their sender's core (eval/held_payloads.h): counted by hand on made-up
// transfers, and on the recorded torch runs, where on ranks with a core each a consumer waits
// long for a send-first payload when its sender is busy and almost never when it is blocked, and
// on ranks that share too few cores in every state (docs/fidelity.md).
#include "eval/held_payloads.h"
#include "eval/runtime_fit.h"
#include "torch_runs.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

using namespace stagecraft;

TEST_CASE("a moment is within an interval from its start, not at its end", "[held_payloads]") {
    const Intervals blocked{{10, 20}, {30, 40}};
    CHECK_FALSE(within(blocked, 5));
    CHECK(within(blocked, 10));
    CHECK(within(blocked, 19.9));
    CHECK_FALSE(within(blocked, 20));
    CHECK(within(blocked, 35));
    CHECK_FALSE(within(blocked, 40));
    CHECK_FALSE(within({}, 10));
}

TEST_CASE("a consumer that waited over 0.5 ms past the transfer time waited for a held payload",
          "[held_payloads]") {
    // Transfer time 40 µs: held means a wait over 540 µs.
    const std::vector<std::vector<SendFirstTransfer>> run{{{SenderState::Computing, 3040},
                                                           {SenderState::Computing, 20},
                                                           {SenderState::Computing, 540},
                                                           {SenderState::Blocked, 30},
                                                           {SenderState::Other, 2040}},
                                                          {{SenderState::Computing, 541},
                                                           {SenderState::Blocked, 10},
                                                           {SenderState::Blocked, 1040},
                                                           {SenderState::Other, 0}}};
    const HeldPayloadCount c = countHeldPayloads(run, 40);
    CHECK(c.iterations == 2);
    CHECK(c.transferUs == 40);
    CHECK(c.transfers[std::size_t(SenderState::Computing)] == 4);
    CHECK(c.held[std::size_t(SenderState::Computing)] == 2); // 540 is not over the threshold
    CHECK(c.heldUs[std::size_t(SenderState::Computing)] == Approx(3000 + 501));
    CHECK(c.transfers[std::size_t(SenderState::Blocked)] == 3);
    CHECK(c.held[std::size_t(SenderState::Blocked)] == 1);
    CHECK(c.transfers[std::size_t(SenderState::Other)] == 2);
    CHECK(c.held[std::size_t(SenderState::Other)] == 1);
    CHECK(c.totalHeld() == 4);
    const std::string note = heldPayloadNote(c);
    INFO(note);
    CHECK(note.find("4 payloads sent before their receive was posted") != std::string::npos);
    CHECK(note.find("past the transfer time (40 µs), 2 an iteration") != std::string::npos);
    CHECK(note.find("blocked in a wait 1 of 3 (33.3 %), computing 2 of 4 (50.0 %), posting or between "
                    "actions 1 of 2 (50.0 %)") != std::string::npos);
}

TEST_CASE("fewer than three held payloads make no note, and a state without transfers is left out",
          "[held_payloads]") {
    const std::vector<std::vector<SendFirstTransfer>> two{
        {{SenderState::Computing, 3000}, {SenderState::Computing, 3000}, {SenderState::Blocked, 0}}};
    CHECK(heldPayloadNote(countHeldPayloads(two, 0)).empty());
    CHECK(heldPayloadNote(countHeldPayloads({}, 0)).empty());
    const std::vector<std::vector<SendFirstTransfer>> three{
        {{SenderState::Computing, 3000}, {SenderState::Computing, 3000}, {SenderState::Computing, 3000}}};
    const std::string note = heldPayloadNote(countHeldPayloads(three, 0));
    CHECK(note.find("computing 3 of 3 (100.0 %)") != std::string::npos);
    CHECK(note.find("blocked") == std::string::npos);
}

namespace {

double rate(const HeldPayloadCount& c, SenderState s) {
    const auto i = std::size_t(s);
    return double(c.held[i]) / double(std::max<std::size_t>(c.transfers[i], 1));
}

} // namespace

TEST_CASE("in the recorded torch runs, a busy sender holds its payload back and a blocked one rarely",
          "[held_payloads][torch_runs]") {
    // Two ranks, one core each: the sender's I/O thread shares the core its rank's thread holds.
    const auto files = test::torchRunFiles("pp2_h512", "LoopedBFS");
    REQUIRE(std::filesystem::exists(files.front()));
    const RuntimeFit fit = fitRuntime(readTorchRun(files), "LoopedBFS");
    const HeldPayloadCount& c = fit.heldPayloads;
    CHECK(c.iterations == std::size_t(fit.iterations));
    CHECK(c.transferUs == Approx(fit.costs.transfer.latency));
    CHECK(c.transfers[std::size_t(SenderState::Blocked)] >= 100);
    CHECK(c.held[std::size_t(SenderState::Computing)] >= 20);
    CHECK(rate(c, SenderState::Computing) > 3 * rate(c, SenderState::Blocked));
    CHECK(rate(c, SenderState::Other) > 3 * rate(c, SenderState::Computing));
    bool noted = false;
    for (const std::string& n : fit.notes)
        noted = noted || n.find("payloads sent before") != std::string::npos;
    CHECK(noted);
    // A run counted without a fit (a checked run) is counted as its fit counts it.
    const TransferContention measured = measureContention(readTorchRun(files));
    CHECK(measured.heldPayloads.transferUs == Approx(c.transferUs));
    CHECK(measured.heldPayloads.transfers == c.transfers);
    CHECK(measured.heldPayloads.held == c.held);
    CHECK(measured.postStalls.stalls() == fit.postStalls.stalls());
    CHECK(measured.postStalls.nearPosts == fit.postStalls.nearPosts);
    // Four ranks on two cores: a blocked sender's I/O thread waits for a core the others hold.
    const RuntimeFit four =
        fitRuntime(readTorchRun(test::torchRunFiles("pp4_h512", "LoopedBFS")), "LoopedBFS");
    const HeldPayloadCount& f = four.heldPayloads;
    CHECK(rate(f, SenderState::Blocked) > 0.2);
    CHECK(rate(f, SenderState::Blocked) > 0.5 * rate(f, SenderState::Computing));
}
