// The model workload's GEMMs are the cost model's FLOPs exactly, and every operand stays inside
// its buffer.
#include "plan/workload.h"
#include "sim/transformer_math.h"

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

void requireInside(const std::vector<Gemm>& gemms, const StageShape& s) {
    const std::uint64_t sizes[3] = {activationLayout(s).elements, weightLayout(s).elements,
                                    weightLayout(s).elements};
    for (const Gemm& g : gemms) {
        const auto extent = [&](std::int64_t stride, std::int64_t rows, std::int64_t cols) {
            return std::uint64_t((g.batch - 1) * stride + rows * cols);
        };
        CHECK(g.a.offset + extent(g.strideA, g.m, g.k) <= sizes[g.a.buffer]);
        CHECK(g.b.offset + extent(g.strideB, g.k, g.n) <= sizes[g.b.buffer]);
        CHECK(g.c.offset + extent(g.strideC, g.m, g.n) <= sizes[g.c.buffer]);
    }
}

} // namespace

TEST_CASE("model workload GEMMs carry exactly the cost model's FLOPs", "[runtime][workload]") {
    const StageBuffers buffers{0, 1, 2};
    for (const std::int64_t vocab : {0, 96}) {
        StageShape s;
        s.layers = 3;
        s.hidden = 48;
        s.heads = 4;
        s.seqLen = 20;
        s.microBatch = 2;
        s.vocab = vocab;
        const TransformerShape t = mathShape(s);
        const double head = vocab > 0 ? lmHeadFlops(t) : 0.0;
        CHECK(gemmFlops(forwardGemms(s, buffers)) == Approx(3 * layerForwardFlops(t) + head));
        CHECK(gemmFlops(backwardGemms(s, buffers, false)) == Approx(3 * layerBackwardInputFlops(t) + head));
        CHECK(gemmFlops(weightGradGemms(s, buffers)) == Approx(3 * layerBackwardWeightFlops(t) + head));
        CHECK(gemmFlops(backwardGemms(s, buffers, true)) ==
              Approx(3 * (layerBackwardInputFlops(t) + layerBackwardWeightFlops(t)) + 2 * head));
        requireInside(forwardGemms(s, buffers), s);
        requireInside(backwardGemms(s, buffers, true), s);
        requireInside(weightGradGemms(s, buffers), s);
        CHECK(optimizerStep(s, buffers).n == weightLayout(s).elements);
    }
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
