#include "ir/op_name.h"

#include "ir/action.h"
#include "ir/parse_support.h"

namespace stagecraft {
namespace {

using parse::fail;
using parse::isDigits;
using parse::trim;

/// Where the kind letter of "<prefix><stage>R<mb>" sits: the 'R' right after the digits of the
/// stage (and the pipe prefix), followed by the micro-batch's digits; npos when the text is no
/// recompute (torch's "0RESHARD", "0RECV_F1").
std::size_t recomputeLetter(std::string_view text) {
    std::size_t pos = text.find(':') == std::string_view::npos ? 0 : text.find(':') + 1;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
    return pos < text.size() && text[pos] == 'R' && isDigits(text.substr(pos + 1)) ? pos
                                                                                   : std::string_view::npos;
}

} // namespace

bool isRecomputeName(std::string_view text) {
    return recomputeLetter(trim(text)) != std::string_view::npos;
}

std::string opName(const Op& op, bool splitBackward) {
    if (isComputeKind(op.kind) && op.kind != OpKind::R) return actionString(op, splitBackward);
    // The ops torch names no action for read like one: pipe prefix and stage, then the kind.
    std::string out;
    if (op.pipe != 0) out = "p" + std::to_string(op.pipe) + ":";
    out += std::to_string(op.stage);
    if (op.kind == OpKind::R) return out + "R" + std::to_string(op.mb);
    out += op.kind == OpKind::GradSync ? kSyncSuffix : kOptimizerSuffix;
    return out;
}

std::optional<Op> parseOpName(std::string_view raw, std::string* why) {
    const std::string_view text = trim(raw);
    if (const std::size_t letter = recomputeLetter(text); letter != std::string_view::npos) {
        std::string forward(text);
        forward[letter] = 'F';
        const std::optional<Action> action = parseAction(forward);
        if (!action)
            return fail(why, "'" + std::string(text) +
                                 "': a recompute is '<stage>R<micro-batch>', with 'p1:' "
                                 "in front for the second pipe, as in '2R0' or 'p1:3R2'");
        Op op;
        op.kind = OpKind::R;
        op.pipe = std::uint8_t(action->pipe);
        op.stage = action->stage;
        op.mb = action->mb;
        return op;
    }
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
