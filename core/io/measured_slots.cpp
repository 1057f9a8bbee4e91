#include "io/measured_slots.h"

#include "sim/statistics.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace stagecraft {

void splitWholeBackwards(std::vector<TimelineEvent>& compute, const std::vector<std::size_t>& whole) {
    if (whole.empty()) return;
    std::vector<bool> isWhole(compute.size(), false);
    for (const std::size_t i : whole)
        if (i < compute.size()) isWhole[i] = true;
    // Stand-alone durations of the halves by stage: the B events that are not whole, and the W.
    std::map<int, std::vector<double>> input, weight;
    for (std::size_t i = 0; i < compute.size(); ++i) {
        const TimelineEvent& e = compute[i];
        if (e.op.kind == OpKind::B && !isWhole[i]) input[e.op.stage].push_back(e.duration());
        if (e.op.kind == OpKind::W) weight[e.op.stage].push_back(e.duration());
    }
    const std::size_t count = compute.size();
    for (std::size_t i = 0; i < count; ++i) {
        if (!isWhole[i]) continue;
        const int stage = compute[i].op.stage;
        const auto in = input.find(stage);
        const auto w = weight.find(stage);
        const double b = in == input.end() ? 0.0 : median(in->second);
        const double wt = w == weight.end() ? 0.0 : median(w->second);
        const double share = b > 0 && wt > 0 ? b / (b + wt) : 1.0;
        TimelineEvent weightEvent = compute[i];
        weightEvent.op.kind = OpKind::W;
        const double at = compute[i].start + compute[i].duration() * share;
        compute[i].end = at;
        weightEvent.start = at;
        compute.push_back(weightEvent);
    }
}

void sortOverlapHeads(std::vector<Op>& heads) {
    std::stable_sort(heads.begin(), heads.end(), [](const Op& a, const Op& b) {
        return std::tuple(a.pipe, a.stage, a.mb) < std::tuple(b.pipe, b.stage, b.mb);
    });
}

} // namespace stagecraft
