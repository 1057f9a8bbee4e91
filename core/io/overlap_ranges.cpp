#include "io/overlap_ranges.h"

#include "sim/statistics.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace stagecraft {

namespace {

constexpr std::string_view kOverlapSuffix = "OVERLAP_F_B";

} // namespace

int parseOverlapRangeName(std::string_view name, ActionRange& forward, ActionRange& backward,
                          std::string* why) {
    if (name.empty() || name.front() != '(') return 0;
    auto refuse = [&](const std::string& reason) {
        if (why) *why = "'" + std::string(name.substr(0, 80)) + "' " + reason;
        return -1;
    };
    const std::size_t close = name.find(')');
    if (close == std::string_view::npos || name.substr(close + 1) != kOverlapSuffix)
        return refuse(
            "is no compound action torch writes (expected '(<stage>F<mb>;<stage>B<mb>)OVERLAP_F_B')");
    const std::string_view inner = name.substr(1, close - 1);
    const std::size_t semicolon = inner.find(';');
    if (semicolon == std::string_view::npos || inner.find(';', semicolon + 1) != std::string_view::npos)
        return refuse("needs two sub-actions separated by ';', a forward and a whole backward");
    std::string subWhy;
    if (!parseRangeName(inner.substr(0, semicolon), forward, &subWhy) ||
        !parseRangeName(inner.substr(semicolon + 1), backward, &subWhy))
        return refuse("has a sub-action that is no action: " + subWhy);
    if (forward.kind != RangeKind::F || backward.kind != RangeKind::B)
        return refuse("pairs a " + std::string(rangeKindName(forward.kind)) + " with a " +
                      rangeKindName(backward.kind) +
                      "; torch's OVERLAP_F_B runs one forward (F) and then one whole backward (B)");
    forward.overlap = OverlapHalf::Forward;
    backward.overlap = OverlapHalf::Backward;
    return 1;
}

void HostActivity::addOp(double start, double end) {
    if (!(end >= start)) return;
    if (!m_busy.empty() && start >= m_busy.back().first && start <= m_busy.back().second) {
        m_busy.back().second = std::max(m_busy.back().second, end);
        return;
    }
    if (!m_busy.empty() && start < m_busy.back().first) m_sorted = false;
    m_busy.emplace_back(start, end);
}

void HostActivity::addBackwardStart(double start) {
    if (!m_backward.empty() && start < m_backward.back()) m_sorted = false;
    m_backward.push_back(start);
}

void HostActivity::finish() {
    if (m_sorted) return;
    std::sort(m_backward.begin(), m_backward.end());
    std::sort(m_busy.begin(), m_busy.end());
    std::vector<std::pair<double, double>> merged;
    for (const auto& b : m_busy) {
        if (!merged.empty() && b.first <= merged.back().second)
            merged.back().second = std::max(merged.back().second, b.second);
        else
            merged.push_back(b);
    }
    m_busy = std::move(merged);
    m_sorted = true;
}

bool HostActivity::splitPoint(double start, double end, double& forwardEnd) const {
    const auto b = std::lower_bound(m_backward.begin(), m_backward.end(), start);
    if (b == m_backward.end() || *b > end) return false;
    const double backwardStart = *b;
    // The last stretch of CPU work that began before the backward: the forward's last op (or, when
    // no wait separates them, the stretch that runs into the backward).
    const auto after = std::lower_bound(m_busy.begin(), m_busy.end(), backwardStart,
                                        [](const auto& busy, double t) { return busy.first < t; });
    forwardEnd = start;
    if (after != m_busy.begin()) {
        const auto& last = *(after - 1);
        if (last.second > start) forwardEnd = std::min(last.second, backwardStart);
    }
    forwardEnd = std::clamp(forwardEnd, start, backwardStart);
    return true;
}

void splitOverlapAt(ActionRange& forward, ActionRange& backward, double forwardEnd) {
    forward.end = forwardEnd;
    backward.start = forwardEnd;
}

bool isWholeOverlap(const std::vector<ActionRange*>& ranges, std::size_t i) {
    if (i + 1 >= ranges.size()) return false;
    const ActionRange& f = *ranges[i];
    const ActionRange& b = *ranges[i + 1];
    return f.overlap == OverlapHalf::Forward && b.overlap == OverlapHalf::Backward && f.event == b.event &&
           f.start == b.start && f.end == b.end;
}

std::size_t divideWholeOverlaps(const std::vector<ActionRange*>& ranges) {
    std::size_t whole = 0;
    for (std::size_t i = 0; i < ranges.size(); ++i) whole += isWholeOverlap(ranges, i) ? 1 : 0;
    if (whole == 0) return 0;
    // Durations of the stand-alone compute ranges by (kind, stage).
    std::map<std::pair<RangeKind, int>, std::vector<double>> alone;
    for (const ActionRange* r : ranges)
        if (r->overlap == OverlapHalf::None && isComputeRange(r->kind) && r->stage >= 0)
            alone[{r->kind, r->stage}].push_back(r->end - r->start);
    auto medianOf = [&](RangeKind kind, int stage) {
        const auto it = alone.find({kind, stage});
        return it == alone.end() ? 0.0 : median(it->second);
    };
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        if (!isWholeOverlap(ranges, i)) continue;
        ActionRange& f = *ranges[i];
        ActionRange& b = *ranges[i + 1];
        const double forward = medianOf(RangeKind::F, f.stage);
        double backward = medianOf(RangeKind::B, b.stage);
        if (backward <= 0) {
            const double input = medianOf(RangeKind::I, b.stage), weight = medianOf(RangeKind::W, b.stage);
            backward = input > 0 && weight > 0 ? input + weight : 0.0;
        }
        const double share = forward > 0 && backward > 0 ? forward / (forward + backward) : 0.5;
        splitOverlapAt(f, b, f.start + (f.end - f.start) * share);
    }
    return whole;
}

} // namespace stagecraft
