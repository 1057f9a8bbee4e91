#include "passes/post_queues.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

namespace {

Instruction transfer(InstrKind kind, int peer) {
    Instruction in;
    in.kind = kind;
    in.peer = peer;
    return in;
}

Instruction compute() {
    return Instruction{};
}

} // namespace

TEST_CASE("a rank posts its transfers per peer in program order", "[post_queues]") {
    // 0: compute, 1: send to 3, 2: compute, 3: send to 1, 4: send to 3, 5: recv from 1, 6: recv from 1
    const std::vector<Instruction> program = {
        compute(),
        transfer(InstrKind::Send, 3),
        compute(),
        transfer(InstrKind::Send, 1),
        transfer(InstrKind::Send, 3),
        transfer(InstrKind::Recv, 1),
        transfer(InstrKind::Recv, 1),
    };
    PostQueues sends = postQueues(program, InstrKind::Send);
    REQUIRE(sends.peers.size() == 2);
    CHECK(sends.peers[0].peer == 1); // peers ascending
    CHECK(sends.peers[0].instructions == std::vector<std::int32_t>{3});
    CHECK(sends.peers[1].instructions == std::vector<std::int32_t>{1, 4});

    SECTION("a send goes once its tensor is computed, never ahead of an earlier one to its peer") {
        // Send 3's tensor is ready from the start; send 1's only after instruction 2, and send 4
        // (tensor ready from 1) queues behind send 1 on peer 3.
        const std::vector<std::int32_t> postFrom = {-1, 3, -1, 0, 1, -1, -1};
        std::vector<std::size_t> posted;
        auto post = [&](std::size_t at) { posted.push_back(at); };
        auto from = [&](std::size_t at) { return postFrom[at]; };
        postDueSends(sends, 0, from, post);
        CHECK(posted == std::vector<std::size_t>{3});
        postDueSends(sends, 3, from, post);
        CHECK(posted == std::vector<std::size_t>{3, 1, 4});
        sends.restart();
        CHECK(sends.peers[1].next == 0);
    }

    SECTION("a receive is posted when its slot is free, or when the program reaches it") {
        PostQueues receives = postQueues(program, InstrKind::Recv);
        const std::vector<std::int32_t> postFrom = {-1, -1, -1, -1, -1, 2, 6};
        auto from = [&](std::size_t at) { return postFrom[at]; };
        std::vector<std::pair<std::size_t, bool>> posted;
        auto post = [&](std::size_t at, bool due) {
            posted.emplace_back(at, due);
            return true;
        };
        postDueReceives(receives, 1, program[1], true, from, post);
        CHECK(posted.empty());
        postDueReceives(receives, 2, program[2], true, from, post); // 5's slot is free from 2 on
        CHECK(posted == std::vector<std::pair<std::size_t, bool>>{{5, false}});
        // Reaching receive 6 posts it, due.
        postDueReceives(receives, 6, program[6], true, from, post);
        CHECK(posted.back() == std::pair<std::size_t, bool>{6, true});

        // Not posting early: only what the program reaches, and a refused post stops its peer.
        receives.restart();
        posted.clear();
        postDueReceives(receives, 2, program[2], false, from, post);
        CHECK(posted.empty());
        auto refuse = [&](std::size_t, bool) { return false; };
        postDueReceives(receives, 6, program[6], false, from, refuse);
        CHECK(receives.peers[0].next == 0);
        postDueReceives(receives, 6, program[6], false, from, post);
        CHECK(posted == std::vector<std::pair<std::size_t, bool>>{{5, true}, {6, true}});
    }
}
