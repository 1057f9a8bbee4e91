#include "ir/action.h"

#include "ir/op_name.h"
#include "ir/parse_support.h"

#include <charconv>
#include <stdexcept>

namespace stagecraft {

namespace {

constexpr char kTypeLetters[] = {'F', 'I', 'B', 'W'};

/// Reads a non-negative decimal integer that fits an int; advances `pos` past it.
std::optional<int> readNumber(std::string_view text, std::size_t& pos) {
    const std::size_t begin = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
    if (pos == begin) return std::nullopt;
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data() + begin, text.data() + pos, value);
    if (ec != std::errc() || end != text.data() + pos) return std::nullopt;
    return value;
}

using parse::fail;
using parse::isDigits;
using parse::trim;

} // namespace

Action actionOf(const Op& op, bool splitBackward) {
    Action action{op.pipe, op.stage, ActionType::F, op.mb};
    switch (op.kind) {
    case OpKind::F:
        action.type = ActionType::F;
        break;
    case OpKind::B:
        action.type = splitBackward ? ActionType::I : ActionType::B;
        break;
    case OpKind::W:
        action.type = ActionType::W;
        break;
    case OpKind::R:
    case OpKind::GradSync:
    case OpKind::Optimizer:
        throw std::logic_error("actionOf: " + opName(op, splitBackward) + " is not a torch compute action");
    }
    return action;
}

OpKind opKindOf(ActionType type) {
    switch (type) {
    case ActionType::F:
        return OpKind::F;
    case ActionType::I:
    case ActionType::B:
        return OpKind::B;
    case ActionType::W:
        return OpKind::W;
    }
    return OpKind::F;
}

std::string formatAction(const Action& action) {
    std::string out;
    if (action.pipe != 0) out = "p" + std::to_string(action.pipe) + ":";
    out += std::to_string(action.stage);
    out += kTypeLetters[static_cast<int>(action.type)];
    out += std::to_string(action.mb);
    return out;
}

std::string actionString(const Op& op, bool splitBackward) {
    return formatAction(actionOf(op, splitBackward));
}

std::optional<Action> parseAction(std::string_view raw, std::string* why) {
    const std::string_view text = trim(raw);
    const std::string quoted = "'" + std::string(text) + "'";
    if (text.empty()) return fail(why, "empty action");
    Action action;
    std::size_t pos = 0;
    if (text.front() == 'p') {
        ++pos;
        const auto pipe = readNumber(text, pos);
        if (!pipe || pos >= text.size() || text[pos] != ':' || *pipe > 255)
            return fail(why, quoted + ": a pipe prefix is 'p<pipe>:' with pipe 0..255, as in 'p1:2F3'");
        action.pipe = *pipe;
        ++pos;
    }
    const auto stage = readNumber(text, pos);
    if (!stage)
        return fail(why, quoted + ": an action starts with its stage number, as in '2F0' (stage 2, forward, "
                                  "micro-batch 0)");
    action.stage = *stage;
    if (pos >= text.size()) return fail(why, quoted + ": the stage number must be followed by F, I, B or W");
    switch (text[pos]) {
    case 'F':
        action.type = ActionType::F;
        break;
    case 'I':
        action.type = ActionType::I;
        break;
    case 'B':
        action.type = ActionType::B;
        break;
    case 'W':
        action.type = ActionType::W;
        break;
    case 'R':
        // "2R3" is a recompute, which torch cannot name; "0RESHARD" and the like fall through.
        if (isDigits(text.substr(pos + 1)))
            return fail(why, quoted +
                                 ": torch's action set has no recompute (R); schedules with recompute ops "
                                 "are written as Stagecraft JSON");
        [[fallthrough]];
    default:
        return fail(why, quoted + ": '" + std::string(1, text[pos]) +
                             "' is not a compute action type; expected F, I, B or W after the stage number");
    }
    ++pos;
    const auto mb = readNumber(text, pos);
    if (!mb) return fail(why, quoted + ": the action type must be followed by a micro-batch number");
    action.mb = *mb;
    if (pos != text.size())
        return fail(why, quoted + ": unexpected '" + std::string(text.substr(pos)) +
                             "' after the micro-batch number");
    return action;
}

} // namespace stagecraft
