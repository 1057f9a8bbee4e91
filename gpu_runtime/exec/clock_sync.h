#pragma once
// Clocks of several hosts on one time axis. Each rank stamps on its own steady clock (since its
// anchor); rank 0 pings every other rank a few times (NTP's exchange: rank 0 sends at t0, the
// peer replies with its time tp, rank 0 receives at t1) and the sample with the shortest round
// trip gives the offset tp - (t0 + t1) / 2 within ± half that round trip. Pure arithmetic here;
// the exchange itself is in mpi/mpi_session.

#include <vector>

namespace stagecraft::runtime {

struct PingSample {
    double sentUs = 0;     ///< rank 0's clock when it sent
    double peerUs = 0;     ///< the peer's clock when it replied
    double receivedUs = 0; ///< rank 0's clock when the reply arrived
};

struct ClockOffset {
    double offsetUs = 0;      ///< peer clock - rank 0 clock
    double uncertaintyUs = 0; ///< half the shortest round trip
};

/// The estimate from the sample with the shortest round trip (the least queueing); zero for no
/// samples. Samples whose reply arrives before it was sent are ignored.
ClockOffset estimateOffset(const std::vector<PingSample>& samples);

} // namespace stagecraft::runtime
