#include "eval/held_payloads.h"

#include "number_text.h"

#include <algorithm>
#include <sstream>

namespace stagecraft {

const char* senderStateName(SenderState state) {
    switch (state) {
    case SenderState::Blocked:
        return "blocked in a wait";
    case SenderState::Computing:
        return "computing";
    case SenderState::Other:
        return "posting or between actions";
    }
    return "?";
}

const char* senderStateKey(SenderState state) {
    switch (state) {
    case SenderState::Blocked:
        return "blocked";
    case SenderState::Computing:
        return "computing";
    case SenderState::Other:
        return "other";
    }
    return "?";
}

bool within(const Intervals& intervals, double when) {
    const auto it =
        std::upper_bound(intervals.begin(), intervals.end(), when,
                         [](double t, const std::pair<double, double>& i) { return t < i.second; });
    return it != intervals.end() && it->first <= when;
}

HeldPayloadCount countHeldPayloads(const std::vector<std::vector<SendFirstTransfer>>& iterations,
                                   double transferUs) {
    HeldPayloadCount out;
    out.iterations = iterations.size();
    out.transferUs = transferUs;
    for (const auto& transfers : iterations)
        for (const SendFirstTransfer& t : transfers) {
            const auto state = std::size_t(t.sender);
            ++out.transfers[state];
            if (t.wait <= transferUs + kHeldUs) continue;
            ++out.held[state];
            out.heldUs[state] += t.wait - transferUs;
        }
    return out;
}

std::string heldPayloadNote(const HeldPayloadCount& c) {
    const std::size_t held = c.totalHeld();
    if (held < 3 || c.iterations == 0) return {};
    double us = 0;
    for (const double h : c.heldUs) us += h;
    std::ostringstream s;
    s.precision(3);
    s << held << " payloads sent before their receive was posted came over " << durationText(kHeldUs)
      << " past the transfer time (" << durationText(c.transferUs) << "), "
      << double(held) / double(c.iterations) << " an iteration, " << durationText(us / double(held))
      << " each; by what the sender did when the consumer began to wait:";
    const char* sep = " ";
    for (std::size_t i = 0; i < kSenderStates; ++i) {
        if (c.transfers[i] == 0) continue;
        std::ostringstream rate;
        rate.setf(std::ios::fixed);
        rate.precision(1);
        rate << 100.0 * double(c.held[i]) / double(c.transfers[i]) << " %";
        s << sep << senderStateName(SenderState(i)) << " " << c.held[i] << " of " << c.transfers[i] << " ("
          << rate.str() << ")";
        sep = ", ";
    }
    s << " (gloo's I/O thread writes such a payload and shares its rank's core, docs/fidelity.md)";
    return s.str();
}

} // namespace stagecraft
