#include "eval/held_payloads.h"

#include "number_text.h"

#include <algorithm>
#include <sstream>

namespace stagecraft {

namespace {

/// Each state's words, in SenderState's order: for sentences, and as a JSON key.
struct StateWords {
    const char* name;
    const char* key;
};
constexpr StateWords kStateWords[kSenderStates] = {
    {"blocked in a wait", "blocked"}, {"computing", "computing"}, {"posting or between actions", "other"}};

} // namespace

const char* senderStateName(SenderState state) {
    return std::size_t(state) < kSenderStates ? kStateWords[std::size_t(state)].name : "?";
}

const char* senderStateKey(SenderState state) {
    return std::size_t(state) < kSenderStates ? kStateWords[std::size_t(state)].key : "?";
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
    const double us = c.totalHeldUs();
    std::ostringstream s;
    s.precision(3);
    s << held << " payloads sent before their receive was posted came over " << durationText(kHeldUs)
      << " past the transfer time (" << durationText(c.transferUs) << "), "
      << double(held) / double(c.iterations) << " an iteration, " << durationText(us / double(held))
      << " each; by what the sender did when the consumer began to wait:";
    const char* sep = " ";
    for (std::size_t i = 0; i < kSenderStates; ++i) {
        if (c.transfers[i] == 0) continue;
        s << sep << senderStateName(SenderState(i)) << " " << c.held[i] << " of " << c.transfers[i] << " ("
          << shareText(c.held[i], c.transfers[i]) << ")";
        sep = ", ";
    }
    s << " (gloo's I/O thread writes such a payload and shares its rank's core, docs/fidelity.md)";
    return s.str();
}

} // namespace stagecraft
