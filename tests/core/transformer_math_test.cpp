// Transformer arithmetic against hand-computed values and the zero-bubble paper's formulas.
#include "generators/registry.h"
#include "passes/iteration_tail.h"
#include "project/layer_split.h"
#include "sim/transformer_math.h"
#include "validate/validator.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

TEST_CASE("Layer split: even, or one fewer on the first and last stage", "[costs]") {
    CHECK(splitLayers(24, 4) == std::vector<int>{6, 6, 6, 6});
    CHECK(splitLayers(22, 8) == std::vector<int>{2, 3, 3, 3, 3, 3, 3, 2}); // ZB 1.5B model on 8 stages
    CHECK(splitLayers(30, 8) == std::vector<int>{3, 4, 4, 4, 4, 4, 4, 3});
    CHECK(splitLayers(23, 8).empty());
    CHECK(splitLayers(6, 8).empty()); // (6 + 2) / 8 = 1 would leave the ends empty
    CHECK(splitLayers(0, 4).empty());
}

TEST_CASE("FLOPs, parameters and activation bytes per layer", "[costs]") {
    TransformerShape t;
    t.hidden = 4096, t.heads = 32, t.seqLen = 1024, t.vocab = 50257, t.microBatch = 3, t.dtypeBytes = 2;
    const double sbh = 1024.0 * 3 * 4096;
    CHECK(layerForwardFlops(t) == Approx(sbh * (24 * 4096 + 4 * 1024)));
    CHECK(layerBackwardInputFlops(t) == Approx(sbh * (24 * 4096 + 8 * 1024)));
    CHECK(layerBackwardWeightFlops(t) == Approx(24 * sbh * 4096));
    // B + W is about twice F (ZB Table 1).
    CHECK((layerBackwardInputFlops(t) + layerBackwardWeightFlops(t)) / layerForwardFlops(t) ==
          Approx(2.0).epsilon(0.05));
    CHECK(layerParams(t) == Approx(12.0 * 4096 * 4096 + 13 * 4096));
    CHECK(layerActivationBytes(t) == Approx(sbh * (34 + 5.0 * 32 * 1024 / 4096)));
    CHECK(layerWeightGradActivationBytes(t) == Approx(32 * sbh));
    CHECK(boundaryBytes(t) == Approx(sbh * 2));
    t.tp = 4;
    CHECK(layerForwardFlops(t) == Approx(sbh * (24 * 4096 + 4 * 1024) / 4));
    t.dtypeBytes = 4;
    CHECK(layerActivationBytes(t) == Approx(sbh * (34 + 5.0 * 32 * 1024 / 4096) * 2 / 4));
}

TEST_CASE("Ring collectives", "[costs]") {
    CHECK(ringAllReduceUs(1e6, 1, 100, 5) == 0);
    CHECK(ringAllReduceUs(1e6, 2, 100, 5) == Approx(1e6 / 100 + 10));
    CHECK(ringAllReduceUs(1e6, 4, 100, 5) == Approx(1.5 * 1e6 / 100 + 30));
    CHECK(ringReduceScatterUs(1e6, 4, 100, 5) == Approx(0.75 * 1e6 / 100 + 15));
}

TEST_CASE("Iteration tail: one sync per stage after its last backward, optimizer at the end", "[passes]") {
    for (const char* name : {"1f1b", "interleaved", "zb-v", "breadth-first"}) {
        INFO(name);
        const Schedule s = generateSchedule(name, {4, 8, 2});
        const Schedule t = addIterationTail(s, {});
        validate(t);
        for (int d = 0; d < t.devices; ++d) {
            int syncs = 0, steps = 0;
            for (std::size_t i = 0; i < t.order[d].size(); ++i) {
                const Op& op = t.order[d][i];
                if (op.kind == OpKind::GradSync) {
                    ++syncs;
                    // Posted right after the stage's last backward.
                    const Op& before = t.order[d][i - 1];
                    CHECK(before.stage == op.stage);
                    CHECK(before.kind == (t.splitBackward ? OpKind::W : OpKind::B));
                }
                if (op.kind == OpKind::Optimizer) {
                    ++steps;
                    CHECK(i >= t.order[d].size() - std::size_t(t.chunksPerDevice));
                }
            }
            CHECK(syncs == t.chunksPerDevice);
            CHECK(steps == t.chunksPerDevice);
        }
    }
}
