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
