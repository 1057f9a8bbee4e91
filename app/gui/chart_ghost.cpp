#include "gui/chart_ghost.h"

#include <algorithm>
#include <iterator>

namespace stagecraft::gui {

std::size_t insertGhost(Scene& plot, const ChartRows& rows, const ChartFrame& frame,
                        const ChartWindow& window, int original, int edited) {
    const auto panels = frame.panels.size();
    if (original < 0 || edited < 0 || std::size_t(original) >= panels || std::size_t(edited) >= panels)
        return 0;
    const ChartFramePanel& from = frame.panels[std::size_t(original)];
    const ChartFramePanel& to = frame.panels[std::size_t(edited)];
    if (from.rows != to.rows) return 0;
    // The original's rows that line up with the visible part of the edited panel.
    const double dy = to.top - from.top;
    ChartWindow source = window;
    source.y0 = std::max(window.y0, to.top) - dy;
    source.y1 = std::min(window.y1, to.bottom) - dy;
    if (source.y1 <= source.y0) return 0;
    Scene bars;
    rows.appendVisible(bars, frame, source);
    std::vector<SceneRect> ghost;
    for (SceneRect& r : bars.rects) {
        if (r.panel != original || r.role != RectRole::Op) continue;
        r.y += dy;
        r.panel = edited;
        r.event = -1; // paint only: hovers and clicks find the edited bars
        r.fill.a = 70;
        r.stroke = Color{0x55, 0x55, 0x55, 150};
        r.strokeWidth = 0.5;
        r.tooltip.clear();
        ghost.push_back(std::move(r));
    }
    // Behind the edited bars, over their rows' idle backgrounds: appendVisible emits each panel's
    // idle rows, then its bars.
    auto at = plot.rects.end();
    for (auto it = plot.rects.begin(); it != plot.rects.end(); ++it)
        if (it->panel == edited && it->role == RectRole::Idle) at = std::next(it);
    if (at == plot.rects.end())
        at = std::find_if(plot.rects.begin(), plot.rects.end(),
                          [&](const SceneRect& r) { return r.panel == edited; });
    plot.rects.insert(at, std::make_move_iterator(ghost.begin()), std::make_move_iterator(ghost.end()));
    return ghost.size();
}

} // namespace stagecraft::gui
