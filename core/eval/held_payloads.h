#pragma once
// Payloads held back by their sender's core, in a measured torch-gloo run. A gloo send posted
// before its receive leaves the payload to the sender's I/O thread, which writes it when the
// receiver's ready notice comes. That thread shares its rank's core: while the rank's own thread
// computes or posts, the woken I/O thread may get the core only at the scheduler's next tick
// (4 ms on a 250 Hz kernel), and the consumer waits for it (docs/fidelity.md, "gloo's I/O thread
// spins on the pair's lock"). This counts, from the ranks' ranges alone, how often a consumer
// waited long for such a payload, by what its sender was doing when the consumer began to wait:
// on ranks with a core each, held payloads come with a busy sender and almost never with a
// blocked one; on ranks that share too few cores, with either. The fit reports it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace stagecraft {

/// What a sender's thread was doing at one moment.
enum class SenderState : std::uint8_t {
    Blocked,   ///< blocked in a wait (for its own input, or WAIT_SEND): its core free for gloo
    Computing, ///< computing an op
    Other,     ///< posting a send or receive, a bookkeeping action, or the framework between actions
};
inline constexpr std::size_t kSenderStates = 3;

/// "blocked in a wait", "computing", "posting or between actions": for sentences.
const char* senderStateName(SenderState state);
/// "blocked", "computing", "other": for JSON keys.
const char* senderStateKey(SenderState state);

/// One transfer whose send was posted before its receive, both before its consumer began: what the
/// sender was doing when the consumer began to wait for it, and how long the consumer waited, µs.
struct SendFirstTransfer {
    SenderState sender = SenderState::Blocked;
    double wait = 0;
};

/// Sorted, disjoint [from, to) intervals of one rank's time.
using Intervals = std::vector<std::pair<double, double>>;

/// Whether `when` falls in one of `intervals`.
bool within(const Intervals& intervals, double when);

/// A consumer that waited this long past the run's transfer time waited for a held payload: a
/// transfer takes tens of µs when nothing holds it, a tick is milliseconds.
inline constexpr double kHeldUs = 500;

/// Held payloads over a run's iterations, by the sender's state.
struct HeldPayloadCount {
    std::size_t iterations = 0;
    double transferUs = 0; ///< the run's transfer time the waits are measured past
    std::array<std::size_t, kSenderStates> transfers{}, held{};
    std::array<double, kSenderStates> heldUs{}; ///< what the held ones waited past the transfer time
    std::size_t totalHeld() const { return held[0] + held[1] + held[2]; }
    double totalHeldUs() const { return heldUs[0] + heldUs[1] + heldUs[2]; }
};

/// Counts `iterations` (each iteration's send-first transfers): a transfer is held when its
/// consumer waited over `transferUs` + kHeldUs.
HeldPayloadCount countHeldPayloads(const std::vector<std::vector<SendFirstTransfer>>& iterations,
                                   double transferUs);

/// One sentence for a fit's notes: how often each sender state held a payload back and what it
/// cost an iteration; empty when fewer than three were held.
std::string heldPayloadNote(const HeldPayloadCount& count);

} // namespace stagecraft
