#include "eval/selection_links.h"

namespace stagecraft {

namespace {

/// `events` of the prediction as the events `toMeasured` maps them to, unmatched ones left out.
template <class ToMeasured>
std::vector<int> mapped(const std::vector<int>& events, std::size_t predicted, ToMeasured&& toMeasured) {
    std::vector<int> out;
    for (const int e : events)
        if (e >= 0 && std::size_t(e) < predicted)
            if (const int m = toMeasured(std::size_t(e)); m >= 0) out.push_back(m);
    return out;
}

SelectionLinks linksOfPrediction(const EventDependencies& deps, int predicted, std::size_t count,
                                 const auto& toMeasured) {
    return {mapped(deps.producers(predicted), count, toMeasured),
            mapped(deps.consumers(predicted), count, toMeasured)};
}

} // namespace

SelectionLinks selectionLinks(const EventDependencies& deps, int event, const ComparedRows* rows) {
    if (event < 0) return {};
    if (!rows || !rows->isMeasured(std::size_t(event))) return {deps.producers(event), deps.consumers(event)};
    const std::size_t m = rows->measuredEvent(std::size_t(event));
    if (m >= rows->predictedOf.size() || rows->predictedOf[m] < 0) return {};
    return linksOfPrediction(deps, rows->predictedOf[m], rows->measuredOf.size(), [&](std::size_t p) {
        const std::int32_t measured = rows->measuredOf[p];
        return measured < 0 ? -1 : int(rows->rowEventOfMeasured(std::size_t(measured)));
    });
}

SelectionLinks pairedSelectionLinks(const EventDependencies& deps, int event,
                                    const std::vector<std::int32_t>& toPredicted,
                                    const std::vector<std::int32_t>& toMeasured) {
    if (event < 0 || std::size_t(event) >= toPredicted.size() || toPredicted[std::size_t(event)] < 0)
        return {};
    return linksOfPrediction(deps, toPredicted[std::size_t(event)], toMeasured.size(),
                             [&](std::size_t p) { return int(toMeasured[p]); });
}

} // namespace stagecraft
