#pragma once
// Posts that stall, in a measured torch-gloo run. gloo's I/O thread handles a peer's message only
// with the pair's lock, and while the rank's own thread holds it inside a post it gives up and polls
// again at once: when the message arrives during a post and the I/O thread takes the core that post
// runs on, the two spin until the scheduler's tick hands the core back, and the post takes
// milliseconds instead of tens of µs. So on CPU ranks that share a core with their I/O thread a
// post stalls far more often when the peer posts on the same pair at about the same time
// (docs/fidelity.md, "gloo's I/O thread spins on the pair's lock"). This counts them; the fit
// reports them (eval/runtime_fit.h), and they are part of the posts' spread.

#include <cstddef>
#include <string>
#include <vector>

namespace stagecraft {

/// One SEND_* or RECV_* action of a rank, µs.
struct PostRecord {
    int rank = 0;
    int peer = -1; ///< the rank at the other end; -1: not known
    bool send = false;
    double start = 0, duration = 0;
};

/// Posts that stalled over a run's iterations: those that took more than kStallFactor times the
/// run's median post of their kind (send or receive), counted apart for posts near a post of the
/// peer towards this rank (their starts at most `window` apart) and the others.
struct PostStallCount {
    std::size_t iterations = 0;
    std::size_t nearPosts = 0, nearStalls = 0;   ///< near a peer's post on the same pair
    std::size_t otherPosts = 0, otherStalls = 0; ///< every other post
    double window = 0;                           ///< µs: twice the larger of the two median posts
    double stalledUs = 0; ///< what the stalls took past their kind's median post, in all
    std::size_t stalls() const { return nearStalls + otherStalls; }
};

/// A post that takes this many times its kind's median stalled: a scheduler tick (4 ms on a
/// 250 Hz kernel) against posts of 50-150 µs.
inline constexpr double kStallFactor = 10;

/// Counts the stalls of `iterations` (each iteration's posts, every rank's).
PostStallCount countPostStalls(const std::vector<std::vector<PostRecord>>& iterations);

/// One sentence for a fit's notes: how often posts stalled and what it cost an iteration, near a
/// peer's post and elsewhere; empty when none stalled.
std::string postStallNote(const PostStallCount& count);

} // namespace stagecraft
