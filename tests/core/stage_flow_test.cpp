// The one rule of data between stages (ir/stage_flow.h), which the op index, the replay of
// lowered programs and the calibration of transfer times share.
#include "ir/stage_flow.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

TEST_CASE("A forward takes the previous stage's forward, a backward the next stage's backward",
          "[ir][stage_flow]") {
    struct Row {
        OpKind kind;
        int stage, stages, from;
    };
    const Row rows[] = {
        {OpKind::F, 0, 4, -1}, {OpKind::F, 1, 4, 0},         {OpKind::F, 3, 4, 2},
        {OpKind::B, 3, 4, -1}, {OpKind::B, 2, 4, 3},         {OpKind::B, 0, 4, 1},
        {OpKind::W, 1, 4, -1}, {OpKind::GradSync, 1, 4, -1}, {OpKind::Optimizer, 1, 4, -1},
        {OpKind::F, 4, 4, -1}, {OpKind::B, -1, 4, -1},       {OpKind::F, 0, 1, -1},
        {OpKind::B, 0, 1, -1},
    };
    for (const Row& r : rows) {
        INFO(opKindName(r.kind) << " stage " << r.stage << " of " << r.stages);
        CHECK(producerStage(r.kind, r.stage, r.stages) == r.from);
    }
    static_assert(producerStage(OpKind::F, 2, 3) == 1);
}

TEST_CASE("An op's consumer is its producer's inverse, and a transfer's peer follows the data",
          "[ir][stage_flow]") {
    for (const OpKind kind : {OpKind::F, OpKind::B, OpKind::W, OpKind::GradSync})
        for (int stages : {1, 2, 5})
            for (int stage = 0; stage < stages; ++stage) {
                INFO(opKindName(kind) << " stage " << stage << " of " << stages);
                const int to = consumerStage(kind, stage, stages);
                if (to >= 0) CHECK(producerStage(kind, to, stages) == stage);
                const int from = producerStage(kind, stage, stages);
                if (from >= 0) CHECK(consumerStage(kind, from, stages) == stage);
            }
    CHECK(consumerStage(OpKind::F, 3, 4) == -1); // the last stage's forward feeds no stage
    CHECK(consumerStage(OpKind::B, 0, 4) == -1); // nor the first stage's backward
    CHECK(consumerStage(OpKind::W, 1, 4) == -1);
    // A send of an activation goes to the next stage, its receive comes from the previous one;
    // gradients the other way.
    CHECK(transferPeerStage(OpKind::F, true, 1) == 2);
    CHECK(transferPeerStage(OpKind::F, false, 1) == 0);
    CHECK(transferPeerStage(OpKind::B, true, 1) == 0);
    CHECK(transferPeerStage(OpKind::B, false, 1) == 2);
    static_assert(flowStep(OpKind::F) == 1 && flowStep(OpKind::B) == -1 && flowStep(OpKind::W) == 0);
}
