#include "eval/action_critical_path.h"

#include "sim/statistics.h"

#include <algorithm>

namespace stagecraft {

ActionPathParts actionCriticalPath(const std::vector<std::vector<ActionStep>>& ranks, double t0,
                                   double waited) {
    ActionPathParts path;
    int r = -1;
    std::size_t i = 0;
    for (std::size_t d = 0; d < ranks.size(); ++d)
        if (!ranks[d].empty() && (r < 0 || ranks[d].back().end > ranks[std::size_t(r)][i].end)) {
            r = int(d);
            i = ranks[d].size() - 1;
        }
    std::size_t steps = 0;
    for (const auto& rank : ranks) steps += rank.size();
    // Every move goes to a step that ends no later than the current one begins, so no step is
    // visited twice; the count bounds the walk all the same.
    for (std::size_t visited = 0; r >= 0 && visited <= steps; ++visited) {
        const auto& own = ranks[std::size_t(r)];
        const ActionStep& s = own[i];
        const double work = s.end - s.begin;
        (s.part == ActionStep::Part::Compute ? path.compute
         : s.part == ActionStep::Part::Comm  ? path.comm
                                             : path.bookkeeping) += work;
        const ActionStep* from = nullptr;
        if (s.fromRank >= 0 && std::size_t(s.fromRank) < ranks.size() &&
            s.fromStep < ranks[std::size_t(s.fromRank)].size())
            from = &ranks[std::size_t(s.fromRank)][s.fromStep];
        // A transfer posted before the rank's previous action ended was late, not released late:
        // the path keeps to the rank (its wait is one not followed).
        if (from && s.begin - s.start > waited && from->end <= s.begin && &s != from &&
            (i == 0 || from->end >= own[i - 1].end)) {
            path.transfers += s.begin - from->end;
            path.hops += 1;
            r = s.fromRank;
            i = s.fromStep;
            continue;
        }
        (s.begin - s.start > waited ? path.waits : path.comm) += s.begin - s.start;
        if (i == 0) {
            path.gaps += std::max(0.0, s.start - t0);
            break;
        }
        path.gaps += std::max(0.0, s.start - own[i - 1].end);
        --i;
    }
    return path;
}

ActionPathParts medianActionPath(const std::vector<ActionPathParts>& paths) {
    ActionPathParts out;
    if (paths.empty()) return out;
    std::vector<double> v;
    for (double ActionPathParts::*part :
         {&ActionPathParts::compute, &ActionPathParts::transfers, &ActionPathParts::comm,
          &ActionPathParts::waits, &ActionPathParts::bookkeeping, &ActionPathParts::gaps,
          &ActionPathParts::hops}) {
        v.clear();
        for (const ActionPathParts& p : paths) v.push_back(p.*part);
        out.*part = median(v);
    }
    return out;
}

} // namespace stagecraft
