#include "io/measured_transfer.h"

#include <algorithm>

namespace stagecraft {

MeasuredTransfer measureTransfer(const TransferEnds& ends) {
    MeasuredTransfer t;
    t.start = std::max(ends.sendStart, ends.recvStart);
    t.end = std::max(t.start, ends.recvEnd);
    t.receiverWaited = ends.recvStart < ends.sendStart;
    t.waitStart = std::min(ends.sendStart, ends.recvStart);
    const double waiterEnd = t.receiverWaited ? ends.recvEnd : ends.sendEnd;
    t.waitEnd = std::max(t.waitStart, std::min(t.start, waiterEnd));
    t.clockContradiction = std::max(0.0, ends.sendStart - ends.recvEnd);
    return t;
}

} // namespace stagecraft
