#include "layout/draw_list.h"

#include "error.h"

#include <algorithm>
#include <cmath>

namespace stagecraft {

namespace {

void checkWindow(const DrawWindow& window) {
    const bool valid = std::isfinite(window.t0) && std::isfinite(window.t1) &&
                       std::isfinite(window.pxPerUs) && window.pxPerUs > 0 && std::isfinite(window.minPx) &&
                       window.minPx > 0;
    if (!valid)
        throw ValidationError("drawlist.window", "window",
                              "a draw window needs finite t0 and t1 and positive, finite pxPerUs and minPx");
}

/// The fold over events 0..n-1 read through start(i) and end(i), appended to `items`.
template <typename Start, typename End>
void fold(std::size_t n, Start start, End end, const DrawWindow& window, std::vector<DrawItem>& items) {
    if (window.t1 <= window.t0 || n == 0) return;
    // Ends are sorted too, because events of one lane do not overlap. Searches run on indices.
    auto lowerBound = [](std::size_t lo, std::size_t hi, auto&& less) {
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (less(mid))
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    };
    std::size_t it = lowerBound(0, n, [&](std::size_t i) { return end(i) <= window.t0; });
    const std::size_t last = lowerBound(it, n, [&](std::size_t i) { return start(i) < window.t1; });
    const double minUs = window.minPx / window.pxPerUs;
    auto narrow = [&](std::size_t i) { return end(i) - start(i) < minUs; };

    while (it < last) {
        if (!narrow(it)) {
            items.push_back({DrawItem::Type::Event, start(it), end(it), it, 1});
            ++it;
            continue;
        }
        DrawItem item{DrawItem::Type::Folded, start(it), end(it), it, 1};
        std::size_t cur = it; // last event in the fold
        for (;;) {
            // Every event that starts within minUs of the fold's end: all of them are narrow
            // except possibly the last (a wide one ends at least minUs after it starts, so nothing
            // else starts inside that reach after it).
            const double reachTime = item.end + minUs;
            const std::size_t reach =
                lowerBound(cur + 1, last, [&](std::size_t i) { return start(i) < reachTime; });
            if (reach == cur + 1) break; // the next event is a visible gap away
            std::size_t newLast = reach - 1;
            if (!narrow(newLast)) --newLast;
            if (newLast == cur) break;
            item.count += newLast - cur;
            item.end = end(newLast);
            cur = newLast;
            if (reach - 1 != newLast) break; // stopped before a wide event
        }
        items.push_back(item);
        it = cur + 1;
    }
}

} // namespace

std::vector<DrawItem> buildDrawList(std::span<const TimelineEvent> row, const DrawWindow& window) {
    checkWindow(window);
    std::vector<DrawItem> items;
    fold(
        row.size(), [&](std::size_t i) { return row[i].start; }, [&](std::size_t i) { return row[i].end; },
        window, items);
    return items;
}

void appendDrawList(std::span<const double> starts, std::span<const double> ends, const DrawWindow& window,
                    std::vector<DrawItem>& out) {
    checkWindow(window);
    if (starts.size() != ends.size())
        throw ValidationError("drawlist.window", "row",
                              "a draw row needs as many ends (" + std::to_string(ends.size()) +
                                  ") as starts (" + std::to_string(starts.size()) + ")");
    fold(
        starts.size(), [&](std::size_t i) { return starts[i]; }, [&](std::size_t i) { return ends[i]; },
        window, out);
}

} // namespace stagecraft
