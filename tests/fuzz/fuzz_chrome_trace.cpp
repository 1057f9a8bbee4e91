// Fuzz harness of the Chrome trace reader. Whatever it accepts must write back and read back to
// the same timeline (a mismatch is a bug and escapes as std::logic_error), and chart in the
// windowed model the GUI draws traces with (rows, a frame at fit, its items, hits).
#include "error.h"
#include "fuzz_entry.h"
#include "io/chrome_trace.h"
#include "layout/chart_rows.h"

#include <stdexcept>
#include <string_view>

STAGECRAFT_FUZZ_TARGET(chrome_trace) {
    try {
        const std::string_view text(reinterpret_cast<const char*>(data), size);
        const stagecraft::Timeline timeline = stagecraft::parseChromeTrace(text, "fuzz");
        const stagecraft::Timeline again =
            stagecraft::parseChromeTrace(stagecraft::timelineToChromeTrace(timeline), "fuzz-again");
        if (!(again == timeline))
            throw std::logic_error("chrome trace: read -> write -> read changed the timeline");
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
