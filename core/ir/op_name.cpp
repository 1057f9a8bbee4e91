#include "ir/op_name.h"

#include "ir/action.h"
#include "ir/parse_support.h"

namespace stagecraft {
namespace {

using parse::fail;
using parse::trim;

} // namespace

std::string opName(const Op& op, bool splitBackward) {
    if (isComputeKind(op.kind)) return actionString(op, splitBackward);
    std::string out;
    if (op.pipe != 0) out = "p" + std::to_string(op.pipe) + ":";
    out += std::to_string(op.stage);
    out += op.kind == OpKind::GradSync ? kSyncSuffix : kOptimizerSuffix;
    return out;
}

std::optional<Op> parseOpName(std::string_view raw, std::string* why) {
    const std::string_view text = trim(raw);
    for (const auto& [suffix, kind] :
         {std::pair{kSyncSuffix, OpKind::GradSync}, std::pair{kOptimizerSuffix, OpKind::Optimizer}}) {
        if (text.size() <= suffix.size() || !text.ends_with(suffix)) continue;
        // "<prefix><stage>SYNC" reads like the action "<prefix><stage>F0": one grammar for both.
        const std::optional<Action> head =
            parseAction(std::string(text.substr(0, text.size() - suffix.size())) + "F0");
        if (!head)
            return fail(why, "'" + std::string(text) + "': a gradient sync is '<stage>" +
                                 std::string(kSyncSuffix) + "' and an optimizer step '<stage>" +
                                 std::string(kOptimizerSuffix) +
                                 "', with 'p1:' in front for the second pipe, as in 'p1:3SYNC'");
        Op op;
        op.kind = kind;
        op.pipe = std::uint8_t(head->pipe);
        op.stage = head->stage;
        op.mb = -1;
        return op;
    }
    const std::optional<Action> action = parseAction(text, why);
    if (!action) return std::nullopt;
    Op op;
    op.kind = opKindOf(action->type);
    op.pipe = std::uint8_t(action->pipe);
    op.stage = action->stage;
    op.mb = action->mb;
    return op;
}

} // namespace stagecraft
