#include "layout/draw_list.h"

#include "error.h"

#include <algorithm>
#include <cmath>

namespace stagecraft {

std::vector<DrawItem> buildDrawList(std::span<const TimelineEvent> row, const DrawWindow& window) {
    const bool valid = std::isfinite(window.t0) && std::isfinite(window.t1) &&
                       std::isfinite(window.pxPerUs) && window.pxPerUs > 0 && std::isfinite(window.minPx) &&
                       window.minPx > 0;
    if (!valid)
        throw ValidationError("drawlist.window", "window",
                              "a draw window needs finite t0 and t1 and positive, finite pxPerUs and minPx");
    std::vector<DrawItem> items;
    if (window.t1 <= window.t0 || row.empty()) return items;

    // Ends are sorted too, because events of one lane do not overlap.
    const auto begin = row.begin();
    auto it = std::upper_bound(begin, row.end(), window.t0,
                               [](double t, const TimelineEvent& e) { return t < e.end; });
    const auto last = std::lower_bound(it, row.end(), window.t1,
                                       [](const TimelineEvent& e, double t) { return e.start < t; });
    const double minUs = window.minPx / window.pxPerUs;
    auto narrow = [minUs](const TimelineEvent& e) { return e.end - e.start < minUs; };

    while (it < last) {
        if (!narrow(*it)) {
            items.push_back({DrawItem::Type::Event, it->start, it->end, std::size_t(it - begin), 1});
            ++it;
            continue;
        }
        DrawItem fold{DrawItem::Type::Folded, it->start, it->end, std::size_t(it - begin), 1};
        auto cur = it; // last event in the fold
        for (;;) {
            // Every event that starts within minUs of the fold's end: all of them are narrow
            // except possibly the last (a wide one ends at least minUs after it starts, so nothing
            // else starts inside that reach after it).
            const auto reach = std::lower_bound(cur + 1, last, fold.end + minUs,
                                                [](const TimelineEvent& e, double t) { return e.start < t; });
            if (reach == cur + 1) break; // the next event is a visible gap away
            auto newLast = reach - 1;
            if (!narrow(*newLast)) --newLast;
            if (newLast == cur) break;
            fold.count += std::size_t(newLast - cur);
            fold.end = newLast->end;
            cur = newLast;
            if (reach - 1 != newLast) break; // stopped before a wide event
        }
        items.push_back(fold);
        it = cur + 1;
    }
    return items;
}

} // namespace stagecraft
