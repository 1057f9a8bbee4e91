#include "sim/timeline_merge.h"

#include <map>
#include <set>

namespace stagecraft {

std::optional<Timeline> mergeRankTimelines(std::span<const Timeline* const> parts, std::string* why) {
    auto refuse = [&](std::string reason) -> std::optional<Timeline> {
        if (why) *why = std::move(reason);
        return std::nullopt;
    };
    if (parts.size() < 2) return refuse("merging needs at least two traces");
    std::map<int, std::size_t> owner; // device -> part
    std::size_t events = 0;
    for (std::size_t p = 0; p < parts.size(); ++p) {
        if (!parts[p]) return refuse("trace " + std::to_string(p) + " is missing");
        if (!(parts[p]->shape == parts[0]->shape))
            return refuse("trace " + std::to_string(p) + " is of another schedule or shape than trace 0");
        std::set<int> devices;
        for (const TimelineEvent& e : parts[p]->events) devices.insert(e.device);
        for (int d : devices) {
            const auto [it, added] = owner.emplace(d, p);
            if (!added)
                return refuse("device " + std::to_string(d) + " has events in trace " +
                              std::to_string(it->second) + " and in trace " + std::to_string(p) +
                              "; per-rank traces hold one device each");
        }
        events += parts[p]->events.size();
    }
    Timeline merged;
    merged.shape = parts[0]->shape;
    merged.origin = "predicted";
    merged.events.reserve(events);
    for (const Timeline* t : parts) {
        if (t->origin == "measured") merged.origin = "measured";
        for (const TimelineEvent& e : t->events)
            if (e.lane == Lane::Compute) merged.events.push_back(e);
    }
    for (const Timeline* t : parts)
        for (const TimelineEvent& e : t->events)
            if (e.lane != Lane::Compute) merged.events.push_back(e);
    return merged;
}

} // namespace stagecraft
