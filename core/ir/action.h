#pragma once
// torch.distributed.pipelining action strings ("0F1", "2I0", "2W0", "1B3"): the names compute ops
// carry in CSV schedules, Chrome traces, NVTX ranges and charts. Printing and parsing are exact
// inverses. The grammar is torch's `STAGE TYPE MB`; Stagecraft adds one prefix for the second pipe
// of bidirectional schedules, which torch cannot express: "p1:2F3".

#include "ir/op.h"

#include <optional>
#include <string>
#include <string_view>

namespace stagecraft {

/// torch's compute action types. `B` is a whole backward; `I` and `W` are its input- and
/// weight-gradient halves.
enum class ActionType : std::uint8_t { F, I, B, W };

struct Action {
    int pipe = 0; ///< 0 for every schedule torch can express
    int stage = 0;
    ActionType type = ActionType::F;
    int mb = 0;
    friend bool operator==(const Action&, const Action&) = default;
};

/// The action of a torch compute op (F, B, W). `splitBackward` tells whether B is torch's `I` (the
/// schedule splits the backward) or its full `B`. Throws std::logic_error for R (torch has no
/// recompute action), GradSync and Optimizer.
Action actionOf(const Op& op, bool splitBackward);

/// The op kind an action type stands for (I -> B; B -> B: the schedule must not split then).
OpKind opKindOf(ActionType type);

/// "0F1", "2I0", "p1:3B2".
std::string formatAction(const Action& action);
/// The action string of a compute op (see actionOf).
std::string actionString(const Op& op, bool splitBackward);

/// Parses one simple action. Leading and trailing blanks are ignored (torch allows hand-edited
/// cells); anything else that does not follow the grammar is refused, a recompute ("2R0") with a
/// sentence saying torch has none. On failure returns nullopt
/// and, when `why` is given, sets it to a sentence naming the text and the rule.
std::optional<Action> parseAction(std::string_view text, std::string* why = nullptr);

} // namespace stagecraft
