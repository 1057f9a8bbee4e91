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
    case OpKind::R:
        return "R";
    case OpKind::GradSync:
        return "GradSync";
    case OpKind::Optimizer:
        return "Optimizer";
    }
    return "?";
}

} // namespace stagecraft
