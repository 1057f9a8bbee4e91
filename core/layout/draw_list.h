#pragma once
// Draw lists for interactive timeline views (Qt widget, ImGui viewer), built the way Tracy
// builds its zone lists: binary search to the visible window, draw events wide enough to see as
// they are, and fold runs of narrower ones into one counted item. The work is proportional to
// what is visible (times a log for the searches), never to the row's total event count.

#include "sim/timeline.h"

#include <cstddef>
#include <span>
#include <vector>

namespace stagecraft {

struct DrawItem {
    /// Event: events[first] drawn as it is (count 1). Folded: events[first, first + count),
    /// all narrower than the minimum, drawn as one box from `start` to `end`.
    enum class Type : std::uint8_t { Event, Folded };
    Type type = Type::Event;
    double start = 0; ///< µs: the first event's start
    double end = 0;   ///< µs: the last event's end
    std::size_t first = 0;
    std::size_t count = 1;
};

struct DrawWindow {
    double t0 = 0; ///< visible time range, µs
    double t1 = 0;
    double pxPerUs = 1; ///< zoom
    double minPx = 3;   ///< events narrower than this many pixels are folded
};

/// `row`: one device's compute events sorted by start and not overlapping (a compute lane).
/// Returns the items that intersect [t0, t1], in time order. A fold takes in the following
/// events while each is narrow and starts less than `minPx` after the fold's end, so a fold
/// never hides a gap wide enough to see. Throws ValidationError "drawlist.window" when pxPerUs
/// or minPx is not positive and finite, or t0/t1 are not finite.
std::vector<DrawItem> buildDrawList(std::span<const TimelineEvent> row, const DrawWindow& window);

/// The same fold over a row held as parallel arrays (the windowed chart's tracks,
/// chart_rows.h): starts[i] and ends[i] of event i, sorted by start and not overlapping (so the
/// ends are sorted too). Items are appended to `out`, their `first` indexing the arrays. Same
/// errors; ValidationError "drawlist.window" also when the arrays differ in length.
void appendDrawList(std::span<const double> starts, std::span<const double> ends, const DrawWindow& window,
                    std::vector<DrawItem>& out);

} // namespace stagecraft
