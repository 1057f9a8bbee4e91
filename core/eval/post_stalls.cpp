#include "eval/post_stalls.h"

#include "number_text.h"
#include "sim/statistics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <utility>

namespace stagecraft {

PostStallCount countPostStalls(const std::vector<std::vector<PostRecord>>& iterations) {
    PostStallCount out;
    out.iterations = iterations.size();
    std::vector<double> recv, send;
    for (const auto& posts : iterations)
        for (const PostRecord& p : posts) (p.send ? send : recv).push_back(p.duration);
    const double recvMedian = recv.empty() ? 0.0 : median(recv);
    const double sendMedian = send.empty() ? 0.0 : median(send);
    out.window = 2 * std::max(recvMedian, sendMedian);
    for (const auto& posts : iterations) {
        // Each rank's post starts towards each peer, to find the peer's post near one of ours.
        std::map<std::pair<int, int>, std::vector<double>> starts;
        for (const PostRecord& p : posts) starts[{p.rank, p.peer}].push_back(p.start);
        for (auto& entry : starts) std::sort(entry.second.begin(), entry.second.end());
        for (const PostRecord& p : posts) {
            bool near = false;
            if (const auto theirs = starts.find({p.peer, p.rank}); p.peer >= 0 && theirs != starts.end()) {
                const auto at =
                    std::lower_bound(theirs->second.begin(), theirs->second.end(), p.start - out.window);
                near = at != theirs->second.end() && *at <= p.start + out.window;
            }
            const double typical = p.send ? sendMedian : recvMedian;
            const bool stalled = typical > 0 && p.duration > kStallFactor * typical;
            ++(near ? out.nearPosts : out.otherPosts);
            if (!stalled) continue;
            ++(near ? out.nearStalls : out.otherStalls);
            out.stalledUs += p.duration - typical;
        }
    }
    return out;
}

std::string postStallNote(const PostStallCount& c) {
    if (c.stalls() == 0 || c.iterations == 0) return {};
    const double nearRate = double(c.nearStalls) / double(std::max<std::size_t>(c.nearPosts, 1));
    const double otherRate = double(c.otherStalls) / double(std::max<std::size_t>(c.otherPosts, 1));
    std::ostringstream s;
    s.precision(3);
    s << c.stalls() << " posts stalled (took over " << kStallFactor << "x the median post), "
      << double(c.stalls()) / double(c.iterations) << " an iteration, "
      << durationText(c.stalledUs / double(c.stalls()))
      << " each past the median: " << shareText(c.nearStalls, c.nearPosts)
      << " of the posts that began within " << durationText(c.window)
      << " of the peer's post on the same pair, " << shareText(c.otherStalls, c.otherPosts)
      << " of the others";
    // Three times as often near the peer's post, and not by chance alone.
    if (c.nearStalls >= 3 && nearRate >= 3 * otherRate)
        s << " (gloo's I/O thread spinning on the pair's lock until the scheduler's tick, "
             "docs/fidelity.md)";
    return s.str();
}

} // namespace stagecraft
