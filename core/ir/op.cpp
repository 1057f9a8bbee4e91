#include "op.h"

#include <array>

namespace stagecraft {

namespace {

/// Each kind's name and its one-letter chart label, in OpKind's order (its values index it).
struct KindText {
    const char* name;
    const char* letter;
};
constexpr std::array<KindText, kOpKindCount> kKindText{{
    {"F", "F"},
    {"B", "B"},
    {"W", "W"},
    {"GradSync", "S"},
    {"Optimizer", "O"},
    {"R", "R"},
}};
static_assert(int(OpKind::GradSync) == 3 && int(OpKind::Optimizer) == 4 && int(OpKind::R) == 5,
              "kKindText follows OpKind's order");

} // namespace

const char* opKindName(OpKind kind) {
    return std::size_t(kind) < kKindText.size() ? kKindText[std::size_t(kind)].name : "?";
}

const char* opKindLetter(OpKind kind) {
    return std::size_t(kind) < kKindText.size() ? kKindText[std::size_t(kind)].letter : "?";
}

} // namespace stagecraft
