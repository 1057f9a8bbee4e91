// Fuzz harness of the counter reader (the viewer's memory strips): whatever it accepts must give
// tracks whose CounterSeries answer every window within the track's range of values.
#include "error.h"
#include "fuzz_entry.h"
#include "io/trace_counters.h"
#include "layout/counter_series.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string_view>

STAGECRAFT_FUZZ_TARGET(trace_counters) {
    try {
        const std::string_view text(reinterpret_cast<const char*>(data), size);
        for (const stagecraft::CounterTrack& track : stagecraft::parseTraceCounters(text, "fuzz")) {
            const stagecraft::CounterSeries series(track.points);
            if (series.empty()) continue;
            const double first = track.points.front().first, last = track.points.back().first;
            const double t0 = std::isfinite(first) ? first - 1 : -1, t1 = std::isfinite(last) ? last + 1 : 1;
            for (double v : series.columns(t0, std::max(t1, t0 + 1), 16))
                if (v > series.peak() || (v < series.low() && v != 0))
                    throw std::logic_error("trace counters: a column outside the series' range");
        }
    } catch (const stagecraft::Error&) {
        // Rejected with a message: fine.
    }
}
