#include "exec/clock_sync.h"

namespace stagecraft::runtime {

ClockOffset estimateOffset(const std::vector<PingSample>& samples) {
    ClockOffset best;
    double bestRoundTrip = -1;
    for (const PingSample& s : samples) {
        const double roundTrip = s.receivedUs - s.sentUs;
        if (roundTrip < 0) continue;
        if (bestRoundTrip < 0 || roundTrip < bestRoundTrip) {
            bestRoundTrip = roundTrip;
            best.offsetUs = s.peerUs - (s.sentUs + s.receivedUs) / 2;
            best.uncertaintyUs = roundTrip / 2;
        }
    }
    return best;
}

} // namespace stagecraft::runtime
