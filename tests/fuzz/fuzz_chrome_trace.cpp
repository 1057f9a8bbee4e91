// Fuzz harness of the Chrome trace reader. Whatever it accepts must write back and read back to
// the same timeline (a mismatch is a bug and escapes as std::logic_error), an iteration of a
// trace of several too, and chart in the windowed model the GUI draws traces with (rows, a frame
// at fit, its items, hits).
#include "error.h"
#include "fuzz_entry.h"
#include "io/chrome_trace.h"
#include "layout/chart_rows.h"

#include <stdexcept>
#include <string_view>

namespace {

/// Another iteration than the last reads too; written back as an iteration of its own, with the
/// run description it came with, it reads back the same (it already starts at 0).
void checkIterations(std::string_view text, const stagecraft::TraceInfo& info) {
    if (info.iterations == 0) return;
    stagecraft::TraceInfo firstInfo;
    const stagecraft::Timeline first = stagecraft::parseChromeTrace(
        text, "fuzz", stagecraft::TraceReadOptions{info.iterationIds.front()}, &firstInfo);
    stagecraft::ChromeTraceOptions options;
    options.iterations.assign(first.events.size(), std::uint32_t(firstInfo.iteration));
    options.runJson = firstInfo.runJson;
    stagecraft::TraceInfo againInfo;
    const stagecraft::Timeline again = stagecraft::parseChromeTrace(
        stagecraft::timelineToChromeTrace(first, options), "fuzz-again", {}, &againInfo);
    if (!(again == first) || againInfo.iterationIds != std::vector<int>{firstInfo.iteration} ||
        (againInfo.runJson.empty() != firstInfo.runJson.empty()))
        throw std::logic_error("chrome trace: an iteration read -> write -> read changed");
}

} // namespace

STAGECRAFT_FUZZ_TARGET(chrome_trace) {
    try {
        const std::string_view text(reinterpret_cast<const char*>(data), size);
        stagecraft::TraceInfo info;
        const stagecraft::Timeline timeline = stagecraft::parseChromeTrace(text, "fuzz", {}, &info);
        const stagecraft::Timeline again =
            stagecraft::parseChromeTrace(stagecraft::timelineToChromeTrace(timeline), "fuzz-again");
        if (!(again == timeline))
            throw std::logic_error("chrome trace: read -> write -> read changed the timeline");
        checkIterations(text, info);
        const std::vector<stagecraft::ChartPanel> panels{{&timeline, "", ""}};
        stagecraft::ChartOptions options;
        options.showComm = true;
        const stagecraft::ChartContent content = stagecraft::scanChart(panels, options);
        const stagecraft::ChartFrame frame = stagecraft::layoutChartFrame(content, options);
        const stagecraft::ChartRows rows(panels, content);
        stagecraft::ChartWindow window;
        window.mapping = frame.fitMapping();
        window.x1 = frame.width;
        window.y1 = frame.height;
        stagecraft::Scene scene;
        rows.appendVisible(scene, frame, window);
        for (double y = 0; y < frame.height; y += 3)
            (void)rows.eventAt(frame, window.mapping, frame.plotLeft + frame.plotWidth / 2, y, 3);
    } catch (const stagecraft::Error&) {
    }
}
