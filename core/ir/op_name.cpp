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

/// The largest unit a name may give (units are micro-batches of a sliced schedule).
constexpr int kMaxUnit = 1 << 30;

} // namespace

bool isRecomputeName(std::string_view text) {
    return recomputeLetter(trim(text)) != std::string_view::npos;
}

std::string opName(const Op& op, bool splitBackward, int slices) {
    if (slices > 1 && isComputeKind(op.kind) && op.mb >= 0) {
        Op whole = op;
        whole.mb = op.mb / slices;
        return opName(whole, splitBackward) + "." + std::to_string(op.mb % slices);
    }
    if (isComputeKind(op.kind) && op.kind != OpKind::R) return actionString(op, splitBackward);
    // The ops torch names no action for read like one: pipe prefix and stage, then the kind.
    std::string out;
    if (op.pipe != 0) out = "p" + std::to_string(op.pipe) + ":";
    out += std::to_string(op.stage);
    if (op.kind == OpKind::R) return out + "R" + std::to_string(op.mb);
    out += op.kind == OpKind::GradSync ? kSyncSuffix : kOptimizerSuffix;
    return out;
}

std::optional<Op> parseOpName(std::string_view raw, std::string* why, int slices) {
    const std::string_view text = trim(raw);
    if (const std::size_t dot = text.rfind('.'); dot != std::string_view::npos) {
        // "<op>.<slice>": a slice of a micro-batch cut along the sequence (Seq1F1B).
        const std::string_view slice = text.substr(dot + 1);
        if (!isDigits(slice) || slice.size() > 9)
            return fail(why, "'" + std::string(text) +
                                 "': a slice follows the micro-batch as '.<slice>', as in '2F3.1'");
        if (slices <= 1)
            return fail(why, "'" + std::string(text) + "' names slice " + std::string(slice) +
                                 ", but the schedule cuts no micro-batch into sequence slices");
        const int q = std::stoi(std::string(slice));
        if (q >= slices)
            return fail(why, "'" + std::string(text) + "' names slice " + std::to_string(q) +
                                 ", but micro-batches have " + std::to_string(slices) + " slices (0.." +
                                 std::to_string(slices - 1) + ")");
        std::optional<Op> op = parseOpName(text.substr(0, dot), why);
        if (!op) return std::nullopt;
        if (!isComputeKind(op->kind))
            return fail(why, "'" + std::string(text) + "': only F, B, W and R ops have sequence slices");
        if (op->mb > (kMaxUnit - q) / slices)
            return fail(why, "'" + std::string(text) + "': micro-batch " + std::to_string(op->mb) +
                                 " is out of range");
        op->mb = op->mb * slices + q;
        return op;
    }
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
