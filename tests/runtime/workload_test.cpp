// The model workload's GEMMs are the cost model's FLOPs exactly, and every operand stays inside
// its buffer.
#include "plan/workload.h"
#include "sim/transformer_math.h"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace stagecraft;
using namespace stagecraft::runtime;

namespace {

TransformerShape mathShape(const StageShape& s) {
    TransformerShape t;
    t.layers = int(s.layers);
    t.hidden = double(s.hidden);
    t.heads = double(s.heads);
    t.seqLen = double(s.seqLen);
    t.vocab = double(s.vocab);
    t.microBatch = double(s.microBatch);
    t.dtypeBytes = 4;
    return t;
}

/// The elements an operand of `g` spans from its offset: A (0), B (1) or C (2).
std::uint64_t extentOf(const Gemm& g, int operand) {
    const auto span = [&](std::int64_t stride, std::int64_t rows, std::int64_t cols) {
        return std::uint64_t((g.batch - 1) * stride + rows * cols);
    };
    return operand == 0   ? span(g.strideA, g.m, g.k)
           : operand == 1 ? span(g.strideB, g.k, g.n)
                          : span(g.strideC, g.m, g.n);
}

/// Buffers 0..3: activations, weights, weight gradients, keys and values.
void requireInside(const std::vector<Gemm>& gemms, const StageShape& s) {
    const std::uint64_t sizes[4] = {activationLayout(s).elements, weightLayout(s).elements,
                                    weightLayout(s).elements, keyValueElements(s)};
    for (const Gemm& g : gemms) {
        CHECK(g.a.offset + extentOf(g, 0) <= sizes[g.a.buffer]);
        CHECK(g.b.offset + extentOf(g, 1) <= sizes[g.b.buffer]);
        CHECK(g.c.offset + extentOf(g, 2) <= sizes[g.c.buffer]);
    }
}

/// Every GEMM of the shape's forward, backward and weight gradient inside its buffers.
void requireAllInside(const StageShape& s, const StageBuffers& buffers) {
    requireInside(forwardGemms(s, buffers), s);
    requireInside(backwardGemms(s, buffers, true), s);
    requireInside(weightGradGemms(s, buffers), s);
}

/// h = 48 in 4 heads, micro-batches of 2.
StageShape shapeOf(std::int64_t layers, std::int64_t seqLen, std::int64_t vocab) {
    StageShape s;
    s.layers = layers;
    s.hidden = 48;
    s.heads = 4;
    s.seqLen = seqLen;
    s.microBatch = 2;
    s.vocab = vocab;
    return s;
}

/// Element ranges [begin, end) of one buffer.
using Ranges = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

bool covered(const Ranges& written, std::uint64_t begin, std::uint64_t end) {
    std::vector<bool> seen(end - begin, false);
    for (const auto& [b, e] : written)
        for (std::uint64_t at = std::max(b, begin); at < std::min(e, end); ++at) seen[at - begin] = true;
    return std::all_of(seen.begin(), seen.end(), [](bool v) { return v; });
}

} // namespace

TEST_CASE("model workload GEMMs carry exactly the cost model's FLOPs", "[runtime][workload]") {
    const StageBuffers buffers{0, 1, 2, 3};
    for (const std::int64_t vocab : {0, 96}) {
        const StageShape s = shapeOf(3, 20, vocab);
        const TransformerShape t = mathShape(s);
        const double head = vocab > 0 ? lmHeadFlops(t) : 0.0;
        CHECK(gemmFlops(forwardGemms(s, buffers)) == Approx(3 * layerForwardFlops(t) + head));
        CHECK(gemmFlops(backwardGemms(s, buffers, false)) == Approx(3 * layerBackwardInputFlops(t) + head));
        CHECK(gemmFlops(weightGradGemms(s, buffers)) == Approx(3 * layerBackwardWeightFlops(t) + head));
        CHECK(gemmFlops(backwardGemms(s, buffers, true)) ==
              Approx(3 * (layerBackwardInputFlops(t) + layerBackwardWeightFlops(t)) + 2 * head));
        requireAllInside(s, buffers);
        CHECK(optimizerStep(s, buffers).n == weightLayout(s).elements);
    }
}

TEST_CASE("sequence slices compute their rectangles of the attention on their micro-batch's keys and values",
          "[runtime][workload][slices]") {
    // L = 32 tokens cut 8, 8, 16: slice q of s tokens ending at P attends to the P keys so far.
    const StageBuffers buffers{0, 1, 2, 3};
    const StageShape whole = shapeOf(2, 32, 96);
    const std::vector<int> lengths{8, 8, 16};
    Ranges keysWritten;
    for (int q = 0; q < 3; ++q) {
        const StageShape s = sliceShape(whole, lengths, q);
        INFO("slice " << q);
        CHECK(s.seqLen == lengths[std::size_t(q)]);
        CHECK(s.keys() == std::int64_t(q == 2 ? 32 : 8 * (q + 1)));
        CHECK(s.lastSlice == (q == 2));
        const double T = double(s.tokens()), h = 48, sP = double(s.seqLen * s.keys()) * 2 /* b */ * h;
        const double head = 2 * T * h * 96;
        // Linear work grows with the slice's tokens, attention with its rectangle s x P.
        CHECK(gemmFlops(forwardGemms(s, buffers)) == Approx(2 * (24 * T * h * h + 4 * sP) + head));
        CHECK(gemmFlops(backwardGemms(s, buffers, false)) == Approx(2 * (24 * T * h * h + 8 * sP) + head));
        CHECK(gemmFlops(weightGradGemms(s, buffers)) == Approx(2 * 24 * T * h * h + head));
        requireAllInside(s, buffers);
        // The forward reads only keys and values that this slice or an earlier one wrote.
        for (const Gemm& g : forwardGemms(s, buffers))
            if (g.c.buffer == 3) keysWritten.emplace_back(g.c.offset, g.c.offset + extentOf(g, 2));
        for (const Gemm& g : forwardGemms(s, buffers))
            for (const auto& [operand, extent] :
                 {std::pair{g.a, extentOf(g, 0)}, std::pair{g.b, extentOf(g, 1)}})
                if (operand.buffer == 3) CHECK(covered(keysWritten, operand.offset, operand.offset + extent));
        // Its backward adds to dK and dV over every key so far, except the last slice's, which
        // runs first and writes them.
        for (const Gemm& g : backwardGemms(s, buffers, false))
            if (g.c.buffer == 3) CHECK(g.accumulate == (q != 2));
    }
    CHECK(keyValueElements(sliceShape(whole, lengths, 0)) == 2 * 4 * 32 * 2 * 48);
    CHECK(keyValueElements(whole) == 0);
}

TEST_CASE("the activation layout keeps the boundary tensors apart", "[runtime][workload]") {
    StageShape s;
    s.layers = 2;
    const ActivationLayout a = activationLayout(s);
    const auto th = std::uint64_t(s.tokens() * s.hidden);
    const std::uint64_t starts[] = {a.input, a.inputGrad, a.outputGrad, a.output};
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = i + 1; j < 4; ++j)
            CHECK((starts[i] + th <= starts[j] || starts[j] + th <= starts[i]));
    CHECK(a.output + th <= a.elements);
}
