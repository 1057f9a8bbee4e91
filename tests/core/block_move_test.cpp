// Moving a block of one device's ops as one step: the edits keep the block's order and put it
// at the gap, or shift it as one; what they refuse is named.
#include "edit/block_move.h"
#include "error.h"
#include "generators/registry.h"
#include "ir/op_name.h"

#include <catch2/catch.hpp>

namespace {

using namespace stagecraft;

Op op(const char* name) {
    return *parseOpName(name);
}

ScheduleEditor zbH1() {
    const Schedule zb = generateSchedule("zb-h1", {4, 8, 1}); // splits its backward: costs as they are
    return ScheduleEditor(zb, fullStageCosts(zb, 1, 1, 1));
}

std::vector<Op> slice(const ScheduleEditor& editor, int device, std::size_t from, std::size_t count) {
    const auto& order = editor.schedule().order[std::size_t(device)];
    return {order.begin() + std::ptrdiff_t(from), order.begin() + std::ptrdiff_t(from + count)};
}

} // namespace

TEST_CASE("blockMove puts a block at a gap in its order", "[edit]") {
    ScheduleEditor editor = zbH1();
    // Device 0: F0 F1 F2 F3 I0 W0 F4 I1 W1 ...; the block W0 and W1 (not contiguous) after 0F5.
    const std::vector<Edit> edits = blockMove(editor, {op("0W1"), op("0W0")}, MoveAnchor::After, op("0F5"));
    REQUIRE(edits.size() == 2);
    CHECK(formatEdit(edits[0], true) == "move 0W0 after 0F5");
    CHECK(formatEdit(edits[1], true) == "move 0W1 after 0W0");
    for (const EditOutcome& o : editor.applyAll(edits)) (void)o;
    CHECK(editor.runs());
    const OpRef f5 = editor.find(op("0F5"));
    CHECK(editor.find(op("0W0")).index == f5.index + 1);
    CHECK(editor.find(op("0W1")).index == f5.index + 2);
}

TEST_CASE("blockShift moves a contiguous block as one", "[edit]") {
    ScheduleEditor editor = zbH1();
    const std::vector<Op> before = editor.schedule().order[0];
    const std::vector<Op> block = slice(editor, 0, 1, 3); // F1 F2 F3
    editor.applyAll(blockShift(editor, block, +1));
    // F0 I0 F1 F2 F3 ...: the block passed 0I0, in order.
    const auto& now = editor.schedule().order[0];
    CHECK(opName(now[1], true) == "0I0");
    CHECK(opName(now[2], true) == "0F1");
    CHECK(opName(now[4], true) == "0F3");
    editor.applyAll(blockShift(editor, block, -1));
    CHECK(editor.schedule().order[0] == before);
}

TEST_CASE("a block is ops of one device, moved next to an op outside it", "[edit]") {
    ScheduleEditor editor = zbH1();
    try {
        blockMove(editor, {op("0F1"), op("1F1")}, MoveAnchor::After, op("0F5"));
        FAIL("no error");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "edit.target");
        CHECK(e.message() == "1F1 runs on device 1, 0F1 on device 0: a block is ops of one device");
    }
    try {
        blockMove(editor, {op("0F1"), op("0F2")}, MoveAnchor::Before, op("0F2"));
        FAIL("no error");
    } catch (const ValidationError& e) {
        CHECK(e.message() == "0F2 is in the block: a block moves next to an op outside it");
    }
}
