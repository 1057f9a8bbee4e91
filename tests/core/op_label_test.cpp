// Op labels of charts: kind letter, micro-batch, chunk letter, prime for the second pipe; the
// text Gantt and the chart layout both print these.
#include "generators/registry.h"
#include "ir/op_label.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

namespace {

Op op(OpKind kind, int mb, int stage = 0, int pipe = 0, int chunk = 0) {
    Op o;
    o.kind = kind;
    o.mb = mb;
    o.stage = stage;
    o.pipe = std::uint8_t(pipe);
    o.chunk = std::uint16_t(chunk);
    return o;
}

} // namespace

TEST_CASE("opLabel: one chunk per pipe has no chunk letter", "[tidy]") {
    const ChunkShape shape{1, 4, 1};
    CHECK(chunksPerPipe(shape) == 1);
    CHECK(opLabel(shape, op(OpKind::F, 3)) == "F3");
    CHECK(opLabel(shape, op(OpKind::B, 0)) == "B0");
    CHECK(opLabel(shape, op(OpKind::W, 7)) == "W7");
    CHECK(opLabel(shape, op(OpKind::GradSync, -1)) == "S");
    CHECK(opLabel(shape, op(OpKind::Optimizer, -1)) == "O");
    CHECK(shortOpLabel(shape, op(OpKind::F, 3)) == "3");
    CHECK(shortOpLabel(shape, op(OpKind::GradSync, -1)) == "S");
}

TEST_CASE("opLabel: interleaved chunks take letters from the placement's chunk", "[tidy]") {
    const ChunkShape shape{1, 8, 2};
    CHECK(chunksPerPipe(shape) == 2);
    CHECK(chunkInPipe(shape, op(OpKind::F, 3, 5, 0, 1)) == 1);
    CHECK(opLabel(shape, op(OpKind::F, 3, 5, 0, 1)) == "F3b");
    CHECK(opLabel(shape, op(OpKind::B, 0, 1, 0, 0)) == "B0a");
    CHECK(shortOpLabel(shape, op(OpKind::F, 3, 5, 0, 1)) == "3b");
    // Past 'z' the letter stays 'z'; a chunk beyond the shape is clamped to the last one.
    CHECK(opLabel({1, 64, 32}, op(OpKind::F, 0, 0, 0, 30)) == "F0z");
    CHECK(chunkInPipe(shape, op(OpKind::F, 0, 0, 0, 9)) == 1);
}

TEST_CASE("opLabel: two pipes take the chunk from the stage and mark pipe 1 with a prime", "[tidy]") {
    const ChunkShape chimera{2, 4, 2}; // one chunk per pipe
    CHECK(chunksPerPipe(chimera) == 1);
    CHECK(opLabel(chimera, op(OpKind::F, 2, 3, 1)) == "F2'");
    CHECK(opLabel(chimera, op(OpKind::GradSync, -1, 3, 1)) == "S'");
    CHECK(shortOpLabel(chimera, op(OpKind::B, 2, 3, 1)) == "2'");
    const ChunkShape bitpipe{2, 8, 4}; // two chunks per pipe: stages 0-3 are 'a', 4-7 are 'b'
    CHECK(chunksPerPipe(bitpipe) == 2);
    CHECK(chunkInPipe(bitpipe, op(OpKind::F, 1, 3, 0)) == 0);
    CHECK(chunkInPipe(bitpipe, op(OpKind::F, 1, 4, 1)) == 1);
    CHECK(opLabel(bitpipe, op(OpKind::F, 1, 4, 1)) == "F1b'");
    CHECK(opLabel(bitpipe, op(OpKind::W, 1, 0, 0)) == "W1a");
    // No stages (a shape read from a file without them): the placement's chunk, clamped.
    CHECK(chunkInPipe({2, 0, 4}, op(OpKind::F, 0, 5, 1, 1)) == 1);
}

TEST_CASE("opLabel of a schedule uses its chunk shape", "[tidy]") {
    const Schedule s = generateSchedule("interleaved", {4, 8, 2});
    const ChunkShape shape = chunkShapeOf(s);
    CHECK(shape.pipes == 1);
    CHECK(shape.stagesPerPipe == 8);
    CHECK(shape.chunksPerDevice == 2);
    CHECK(opLabel(s, s.order[0].front()) == "F0a");
    for (const auto& ops : s.order)
        for (const Op& o : ops) REQUIRE(opLabel(s, o) == opLabel(shape, o));
}
