#include "view/timeline_view.h"

#include "error.h"
#include "eval/selection_links.h"
#include "ir/op_name.h"
#include "layout/error_colors.h"
#include "layout/gantt_layout.h"
#include "view/imgui_scene.h"

#include <GLFW/glfw3.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace stagecraft::view {
namespace {

constexpr double kWheelStep = 1.25;
constexpr double kMinBarPx = 3; ///< bars narrower fold into counted boxes; hover reaches them within half

constexpr double kStripGap = 2;    ///< points between memory strips
constexpr double kStripTitle = 16; ///< points for a panel's memory title
constexpr double kMemoryTop = 6;   ///< points between the chart and its memory strips

} // namespace

double TimelineView::memoryHeight() const {
    double h = 0;
    const double strip = m_chart->frame().rowHeight;
    for (const ViewPanel& p : m_chart->panels())
        if (!p.memory.empty()) h += kStripTitle + double(p.memory.size()) * (strip + kStripGap);
    return h > 0 ? h + kMemoryTop : 0;
}

void TimelineView::drawMemory(ImDrawList* list, ImFont* font, ImVec2 origin, double top, double bottom,
                              double x0, double x1) const {
    const ChartFrame& f = m_chart->frame();
    const float k = float(m_k);
    const double strip = f.rowHeight;
    const double t0 = m_view.mapping().xToTime(x0), t1 = m_view.mapping().xToTime(x1);
    const auto columns = std::size_t(std::max(1.0, std::floor((x1 - x0) * m_k)));
    double y = f.height + kMemoryTop;
    const ImU32 fill = IM_COL32(94, 158, 196, 255), track = IM_COL32(236, 240, 244, 255);
    const ImU32 text = toImColor(f.palette->text), muted = toImColor(f.palette->mutedText);
    const float fontPx = float(f.palette->fontSize) * k;
    for (const ViewPanel& p : m_chart->panels()) {
        if (p.memory.empty()) continue;
        // One scale for the panel's devices, from the lowest value any holds to the highest.
        double peak = 0, low = std::numeric_limits<double>::infinity();
        for (const CounterSeries& s : p.memory)
            if (!s.empty()) peak = std::max(peak, s.peak()), low = std::min(low, s.low());
        if (!std::isfinite(low) || low >= peak) low = 0;
        if (y + kStripTitle >= top && y <= bottom) {
            char title[256];
            std::snprintf(title, sizeof title, "%s · memory %.3g to %.3g %s", p.title.c_str(),
                          low / p.memoryScale, peak / p.memoryScale, p.memoryUnit.c_str());
            list->AddText(font, fontPx, ImVec2(origin.x + float(f.plotLeft) * k, origin.y + float(y + 3) * k),
                          text, title);
        }
        y += kStripTitle;
        for (std::size_t d = 0; d < p.memory.size(); ++d, y += strip + kStripGap) {
            if (y + strip < top || y > bottom) continue;
            char label[32];
            std::snprintf(label, sizeof label, "D%zu", d);
            const float labelW = font->CalcTextSizeA(fontPx, FLT_MAX, 0, label).x;
            list->AddText(font, fontPx,
                          ImVec2(origin.x + float(f.plotLeft) * k - labelW - 6,
                                 origin.y + float(y + strip / 2) * k - fontPx / 2),
                          muted, label);
            const float yTop = origin.y + float(y) * k, yBottom = origin.y + float(y + strip) * k;
            const float left = origin.x + float(x0) * k;
            list->AddRectFilled(ImVec2(left, yTop), ImVec2(origin.x + float(x1) * k, yBottom), track);
            if (peak <= 0 || p.memory[d].empty()) continue;
            // One column per pixel, each the most the device held in it; equal neighbours merge.
            const std::vector<double> v = p.memory[d].columns(t0, t1, columns);
            const float h = yBottom - yTop;
            std::size_t c = 0;
            while (c < v.size()) {
                std::size_t e = c + 1;
                auto level = [&](double value) {
                    return std::round(yBottom -
                                      h * float(std::clamp((value - low) / (peak - low), 0.0, 1.0)));
                };
                const float barTop = level(v[c]);
                while (e < v.size() && level(v[e]) == barTop) ++e;
                if (barTop < yBottom)
                    list->AddRectFilled(ImVec2(left + float(c), barTop), ImVec2(left + float(e), yBottom),
                                        fill);
                c = e;
            }
        }
    }
}

void TimelineView::setChart(ViewChart* chart, bool keepWindow) {
    // A view at fit stays at fit (a growing trace stays whole on screen); a zoomed one stays put.
    if (keepWindow && m_chart && !m_fitPending && std::abs(zoom() - 1.0) > 1e-9) {
        m_keep = std::make_pair(m_view.mapping().pxPerUs, m_view.mapping().originTime);
    } else {
        m_keep.reset();
        m_fitPending = true;
    }
    m_chart = chart;
    m_widthPx = 0; // lay out again on the next frame
    m_layoutError.clear();
    clearSelection(); // event indices of the old chart mean nothing in the new one
}

void TimelineView::relayout(double widthPx) {
    const bool hadFrame = m_widthPx > 0;
    const double left = m_view.mapping().originTime;
    const double zoomBefore = hadFrame ? zoom() : 1.0;
    m_widthPx = widthPx;
    m_chart->layout(widthPx / m_k);
    const ChartFrame& f = m_chart->frame();
    m_decor = Scene{};
    // No background rect: the window's clear is the chart's background (backgroundColor()), so a
    // software rasterizer does not fill the whole chart twice every frame.
    for (std::size_t p = 0; p < f.panels.size(); ++p) appendPanelDecor(m_decor, f, p);
    appendLegend(m_decor, f);
    if (m_chart->empty()) return;
    m_view.setFrame(f);
    if (m_keep) {
        TimeMapping m = m_view.mapping();
        m.pxPerUs = m_keep->first;
        m.originTime = m_keep->second;
        m_view.setMapping(m);
        m_keep.reset();
        m_fitPending = false;
    } else if (m_fitPending) {
        m_fitPending = false;
    } else if (hadFrame) {
        // A resize keeps the zoom relative to fit and the time at the left edge.
        m_view.setFrame(f, zoomBefore, left);
    }
}

double TimelineView::zoom() const {
    if (!m_chart || m_chart->empty()) return 1.0;
    return m_view.zoom();
}

Color TimelineView::backgroundColor() const {
    if (!m_chart || m_chart->empty() || !m_chart->frame().palette) return Color{255, 255, 255, 255};
    return m_chart->frame().palette->background;
}

double TimelineView::visibleSpan() const {
    return m_chart ? m_view.visibleSpan() : 0;
}

void TimelineView::fit() {
    if (!m_chart || m_chart->empty() || m_widthPx <= 0) {
        m_fitPending = true;
        return;
    }
    m_view.fit();
}

void TimelineView::zoomAbout(double factor, double anchorPx) {
    // A non-finite factor or anchor (a wild wheel event) leaves the view where it was.
    if (!m_chart || m_chart->empty() || m_widthPx <= 0) return;
    m_view.zoomAbout(anchorPx / m_k, factor);
}

void TimelineView::pan(double dxPx) {
    if (!m_chart || m_chart->empty() || m_widthPx <= 0) return;
    m_view.pan(dxPx / m_k);
}

void TimelineView::clearSelection() {
    m_selection.reset();
    m_producers.clear();
    m_consumers.clear();
}

void TimelineView::select(int panel, int event) {
    clearSelection();
    if (!m_chart || panel < 0 || std::size_t(panel) >= m_chart->panels().size()) return;
    m_selection = std::make_pair(panel, event);
    // What the click outlines is core's rule (eval/selection_links.h), as in the app's chart.
    const ViewPanel& selected = m_chart->panels()[std::size_t(panel)];
    SelectionLinks links;
    if (const EventDependencies* deps = m_chart->dependencies(panel)) {
        links = selectionLinks(*deps, event, selected.compared);
    } else if (selected.partner >= 0) {
        // A trace in a panel of its own, paired with a prediction: the prediction's dependencies.
        if (const EventDependencies* partner = m_chart->dependencies(selected.partner))
            links = pairedSelectionLinks(*partner, event, selected.counterpart,
                                         m_chart->panels()[std::size_t(selected.partner)].counterpart);
    }
    m_producers = std::move(links.producers);
    m_consumers = std::move(links.consumers);
}

void TimelineView::jumpTo(int panel, int event) {
    if (!m_chart || m_chart->empty()) return;
    const Timeline& tl = *m_chart->panels()[std::size_t(panel)].timeline;
    if (event < 0 || std::size_t(event) >= tl.events.size()) return;
    const TimelineEvent& e = tl.events[std::size_t(event)];
    const double span = std::max(e.duration() * 30, 1e-9);
    const double centre = (e.start + e.end) / 2;
    m_view.showSpan(centre - span / 2, centre + span / 2);
    select(panel, event);
    if (const auto box = m_chart->rows().eventBox(m_chart->frame(), m_view.mapping(), panel, event))
        m_scrollRequest = std::max(0.0, box->y - 80);
}

std::optional<ImVec4> TimelineView::boxOnScreen(ImVec2 origin, int panel, int event) const {
    const auto box = m_chart->rows().eventBox(m_chart->frame(), m_view.mapping(), panel, event);
    if (!box) return std::nullopt;
    const float k = float(m_k);
    return ImVec4(origin.x + float(box->x) * k, origin.y + float(box->y) * k,
                  origin.x + float(box->x + box->w) * k, origin.y + float(box->y + box->h) * k);
}

void TimelineView::drawHighlights(ImDrawList* list, ImVec2 origin) const {
    if (!m_selection) return;
    const auto sel = boxOnScreen(origin, m_selection->first, m_selection->second);
    if (!sel) return;
    const ImU32 producer = IM_COL32(17, 17, 17, 255), consumer = IM_COL32(106, 61, 154, 255);
    auto arrow = [&](ImVec2 a, ImVec2 b, ImU32 col) {
        const float mid = (a.x + b.x) / 2;
        list->AddBezierCubic(a, ImVec2(mid, a.y), ImVec2(mid, b.y), b, col, 1.6f);
        const float dir = b.x >= mid ? 1.0f : -1.0f;
        list->AddTriangleFilled(b, ImVec2(b.x - 6 * dir, b.y - 4), ImVec2(b.x - 6 * dir, b.y + 4), col);
    };
    for (int e : m_producers)
        if (const auto r = boxOnScreen(origin, m_selection->first, e)) {
            list->AddRect(ImVec2(r->x - 1, r->y - 1), ImVec2(r->z + 1, r->w + 1), producer, 0, 0, 2.0f);
            arrow(ImVec2(r->z, (r->y + r->w) / 2), ImVec2(sel->x, (sel->y + sel->w) / 2), producer);
        }
    for (int e : m_consumers)
        if (const auto r = boxOnScreen(origin, m_selection->first, e)) {
            list->AddRect(ImVec2(r->x - 1, r->y - 1), ImVec2(r->z + 1, r->w + 1), consumer, 0, 0, 2.0f);
            arrow(ImVec2(sel->z, (sel->y + sel->w) / 2), ImVec2(r->x, (r->y + r->w) / 2), consumer);
        }
    list->AddRect(ImVec2(sel->x - 2, sel->y - 2), ImVec2(sel->z + 2, sel->w + 2), IM_COL32(255, 193, 7, 255),
                  0, 0, 3.0f);
}

void TimelineView::drawTooltip(int panel, int event) const {
    const ViewPanel& vp = m_chart->panels()[std::size_t(panel)];
    if (vp.compared) {
        // Paired rows: core's text, the op's name, both sides and their difference.
        const std::string text =
            comparedEventText(*vp.compared, std::size_t(event), m_chart->frame().axisAtFit);
        ImGui::BeginTooltip();
        std::size_t from = 0;
        for (std::size_t line = 0; from <= text.size(); ++line) {
            const std::size_t end = std::min(text.find('\n', from), text.size());
            const std::string part = text.substr(from, end - from);
            if (line == 0)
                ImGui::TextUnformatted(part.c_str());
            else
                ImGui::Text("%s", part.c_str());
            from = end + 1;
        }
        ImGui::TextDisabled("%s", vp.title.c_str());
        ImGui::EndTooltip();
        return;
    }
    const TimelineEvent& e = vp.timeline->events[std::size_t(event)];
    // Core's hover text (the app's chart says the same): the op and its device, then its times.
    const std::string text = eventHoverText(e, vp.timeline->shape, vp.unitless);
    const std::size_t cut = text.find('\n');
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(text.substr(0, cut).c_str());
    ImGui::TextDisabled("%s", vp.title.c_str());
    ImGui::TextUnformatted(text.substr(cut + 1).c_str());
    if (vp.partner >= 0 && std::size_t(event) < vp.counterpart.size() &&
        vp.counterpart[std::size_t(event)] >= 0) {
        const ViewPanel& other = m_chart->panels()[std::size_t(vp.partner)];
        const TimelineEvent& o = other.timeline->events[std::size_t(vp.counterpart[std::size_t(event)])];
        const bool measured = vp.prediction == nullptr;
        const TimelineEvent& pred = measured ? o : e;
        const TimelineEvent& meas = measured ? e : o;
        ImGui::Separator();
        ImGui::Text("%s: %s", measured ? "predicted" : "measured", eventTimesText(o, other.unitless).c_str());
        if (pred.duration() > 0) {
            const double err = (meas.duration() - pred.duration()) / pred.duration() * 100;
            const Color c = durationErrorColor(pred.duration(), meas.duration());
            ImGui::TextColored(ImVec4(c.r / 255.f, c.g / 255.f, c.b / 255.f, 1), "duration error %+.1f %%",
                               err);
        }
    }
    if ((vp.prediction || vp.partner >= 0) && e.lane == Lane::Compute) {
        ImGui::Separator();
        ImGui::TextDisabled("click: what it waits for (black) and what waits for it (purple)");
    }
    ImGui::EndTooltip();
}

bool TimelineView::layoutFor(float width) {
    if (std::abs(width - m_widthPx) > 0.5) {
        try {
            relayout(width);
            m_layoutError.clear();
        } catch (const Error& e) {
            // Core refuses the frame (a width too narrow for the labels): say so, draw nothing.
            m_layoutError = e.what();
            m_widthPx = width;
        }
    }
    return m_layoutError.empty();
}

TimelineView::Pane TimelineView::currentPane() const {
    Pane p;
    const ImVec2 winPos = ImGui::GetWindowPos();
    const ImVec2 winSize = ImGui::GetWindowSize();
    p.left = winPos.x;
    p.scrollY = ImGui::GetScrollY();
    p.origin = ImVec2(winPos.x, winPos.y - p.scrollY);
    p.transform = SceneTransform{p.origin, float(m_k)};
    p.clip = ImVec4(winPos.x, winPos.y, winPos.x + winSize.x, winPos.y + winSize.y);
    p.top = p.scrollY / m_k;
    p.bottom = (p.scrollY + winSize.y) / m_k;
    return p;
}

void TimelineView::handleInput(const Pane& pane, bool hovered) {
    const ChartFrame& f = m_chart->frame();
    ImGuiIO& io = ImGui::GetIO();
    const double mouseX = io.MousePos.x - pane.left;
    if (hovered && io.MouseWheel != 0) {
        if (io.KeyShift)
            ImGui::SetScrollY(std::clamp(pane.scrollY - io.MouseWheel * 60.0f, 0.0f, ImGui::GetScrollMaxY()));
        else
            zoomAbout(std::pow(kWheelStep, double(io.MouseWheel)), mouseX);
    }
    if (hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) m_dragging = true;
    if (m_dragging) {
        if (ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
            if (io.MouseDelta.x != 0) pan(io.MouseDelta.x);
            if (io.MouseDelta.y != 0)
                ImGui::SetScrollY(std::clamp(pane.scrollY - io.MouseDelta.y, 0.0f, ImGui::GetScrollMaxY()));
        } else {
            m_dragging = false;
        }
    }
    if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && !io.WantTextInput) {
        if (ImGui::IsKeyPressed(GLFW_KEY_F, false)) fit();
        if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) clearSelection();
        if (ImGui::IsKeyPressed(GLFW_KEY_EQUAL) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD))
            zoomAbout(kWheelStep, (f.plotLeft + f.plotWidth / 2) * m_k);
        if (ImGui::IsKeyPressed(GLFW_KEY_MINUS) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT))
            zoomAbout(1 / kWheelStep, (f.plotLeft + f.plotWidth / 2) * m_k);
        if (ImGui::IsKeyPressed(GLFW_KEY_LEFT)) pan(80);
        if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT)) pan(-80);
    }
}

ChartWindow TimelineView::plotWindow(const Pane& pane) const {
    const ChartFrame& f = m_chart->frame();
    ChartWindow window;
    window.mapping = m_view.mapping();
    window.x0 = f.plotLeft - 1;
    window.x1 = f.plotLeft + f.plotWidth + 1;
    window.y0 = pane.top;
    window.y1 = pane.bottom;
    window.pixelsPerUnit = m_k;
    window.minPx = kMinBarPx;
    return window;
}

void TimelineView::colourByDurationError(Scene& plot) const {
    for (SceneRect& r : plot.rects) {
        if (r.role != RectRole::Op || r.event < 0 || r.panel < 0) continue;
        const ViewPanel& vp = m_chart->panels()[std::size_t(r.panel)];
        if (vp.prediction || vp.partner < 0 || std::size_t(r.event) >= vp.counterpart.size()) continue;
        const int pe = vp.counterpart[std::size_t(r.event)];
        if (pe < 0) continue;
        const Timeline& pred = *m_chart->panels()[std::size_t(vp.partner)].timeline;
        r.fill = durationErrorColor(pred.events[std::size_t(pe)].duration(),
                                    vp.timeline->events[std::size_t(r.event)].duration());
    }
}

void TimelineView::drawPlot(ImDrawList* list, ImFont* font, const Pane& pane, const ChartWindow& window) {
    const ChartFrame& f = m_chart->frame();
    const float k = float(m_k);
    Scene plot;
    const ChartWindowStats stats = m_chart->rows().appendVisible(plot, f, window);
    m_stats = {stats.bars, stats.folds, stats.folded};
    m_folds.clear();
    for (const SceneRect& r : plot.rects)
        if (r.kind == kFoldedKind) m_folds.push_back({r.x, r.y, r.x + r.w, r.y + r.h, r.panel, r.tooltip});
    // A measured trace paired with its prediction: each op coloured by its duration error.
    colourByDurationError(plot);
    const ImVec2 plotMin(pane.origin.x + float(window.x0) * k, pane.clip.y),
        plotMax(pane.origin.x + float(window.x1) * k, pane.clip.w);
    list->PushClipRect(plotMin, plotMax, true);
    drawScene(list, plot, pane.transform, font, ImVec4(plotMin.x, plotMin.y, plotMax.x, plotMax.y));
    drawHighlights(list, pane.origin);
    list->PopClipRect();
    list->PushClipRect(ImVec2(pane.clip.x, pane.clip.y), ImVec2(plotMax.x, pane.clip.w), true);
    drawMemory(list, font, pane.origin, pane.top, pane.bottom, window.x0 + 1, window.x1 - 1);
    list->PopClipRect();
}

void TimelineView::drawAxis(ImDrawList* list, ImFont* font, const Pane& pane,
                            const ChartWindow& window) const {
    const ChartFrame& f = m_chart->frame();
    const double t0 = m_view.mapping().xToTime(window.x0), t1 = m_view.mapping().xToTime(window.x1);
    Scene axis;
    appendAxis(axis, f, m_view.mapping(), t0, t1);
    const double axisBottom = f.height;
    SceneTransform axisTf = pane.transform;
    if (axisBottom > pane.bottom) {
        const float shift = float((pane.bottom - axisBottom) * m_k);
        axisTf.origin.y += shift;
        const float y0 = pane.origin.y + float(f.axisY - 4) * float(m_k) + shift;
        list->AddRectFilled(ImVec2(pane.clip.x, y0), ImVec2(pane.clip.z, pane.clip.w),
                            toImColor(f.palette->background));
    }
    drawScene(list, axis, axisTf, font, pane.clip);
}

void TimelineView::drawFoldTooltip(const FoldBox& fold) const {
    const bool u = m_chart->panels()[std::size_t(fold.panel)].unitless;
    ImGui::BeginTooltip();
    ImGui::Text("%s folded: each narrower than %.0f pixels", fold.text.c_str(), kMinBarPx);
    ImGui::Text("%s to %s", durationText(m_view.mapping().xToTime(fold.x0), u).c_str(),
                durationText(m_view.mapping().xToTime(fold.x1), u).c_str());
    ImGui::TextDisabled("zoom in (wheel) to see them one by one");
    ImGui::EndTooltip();
}

void TimelineView::handleHover(const Pane& pane, const ChartWindow& window) {
    const ImGuiIO& io = ImGui::GetIO();
    const double x = (io.MousePos.x - pane.origin.x) / m_k, y = (io.MousePos.y - pane.origin.y) / m_k;
    ChartHit hit; // panel -1: nothing under the mouse
    if (x >= window.x0 && x <= window.x1)
        if (const auto h = m_chart->rows().eventAt(m_chart->frame(), m_view.mapping(), x, y, kMinBarPx / m_k))
            hit = *h;
    const FoldBox* fold = nullptr;
    for (const FoldBox& b : m_folds)
        if (x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1) fold = &b;
    if (fold)
        drawFoldTooltip(*fold);
    else if (hit.panel >= 0)
        drawTooltip(hit.panel, hit.event);
    const bool clicked = ImGui::IsMouseReleased(ImGuiMouseButton_Left) &&
                         ImGui::GetMouseDragDelta(ImGuiMouseButton_Left).x == 0 &&
                         ImGui::GetMouseDragDelta(ImGuiMouseButton_Left).y == 0;
    if (!clicked) return;
    if (hit.panel >= 0)
        select(hit.panel, hit.event);
    else
        clearSelection();
}

void TimelineView::draw(ImFont* font, ImVec2 size) {
    m_stats = {};
    if (!m_chart || m_chart->empty()) return;
    if (!layoutFor(std::max(200.0f, size.x - ImGui::GetStyle().ScrollbarSize))) {
        ImGui::TextWrapped("The chart cannot be drawn: %s", m_layoutError.c_str());
        return;
    }
    const float contentH = float(m_chart->frame().height + memoryHeight()) * float(m_k);

    ImGui::BeginChild("##timeline", size, false, ImGuiWindowFlags_NoScrollWithMouse);
    if (m_scrollRequest >= 0) {
        ImGui::SetScrollY(float(m_scrollRequest) * float(m_k));
        m_scrollRequest = -1;
    }
    ImDrawList* list = ImGui::GetWindowDrawList();
    const Pane pane = currentPane();
    // Interaction first, so this frame draws the new window.
    const bool hovered = m_mouse && ImGui::IsWindowHovered();
    handleInput(pane, hovered);
    // What does not move sideways: background, headers, row labels, legend.
    drawScene(list, m_decor, pane.transform, font, pane.clip);
    // The plot: the visible window's bars through core's draw lists, clipped to the plot; then the
    // time ruler, core's axis for the window, pinned to the pane's bottom when the chart is taller.
    const ChartWindow window = plotWindow(pane);
    drawPlot(list, font, pane, window);
    drawAxis(list, font, pane, window);
    // Hover and click: core's hit test (the row by y, then a binary search by time).
    if (hovered && !ImGui::IsMouseDragging(ImGuiMouseButton_Left)) handleHover(pane, window);
    ImGui::Dummy(ImVec2(1, contentH));
    ImGui::EndChild();
}

} // namespace stagecraft::view
