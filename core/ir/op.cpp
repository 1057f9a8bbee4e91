#include "op.h"

namespace stagecraft {

const char* opKindName(OpKind kind) {
    switch (kind) {
    case OpKind::F:
        return "F";
    case OpKind::B:
        return "B";
    case OpKind::W:
        return "W";
    case OpKind::GradSync:
        return "GradSync";
    case OpKind::Optimizer:
        return "Optimizer";
    }
    return "?";
}

std::string describeOp(const Op& op) {
    std::string text = opKindName(op.kind);
    if (op.mb >= 0) text += std::to_string(op.mb);
    text += "@s" + std::to_string(op.stage);
    if (op.pipe > 0) text += std::string(op.pipe, '\'');
    return text;
}

} // namespace stagecraft
