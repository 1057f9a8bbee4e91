#include "view/side_panel.h"

#include "ir/op_name.h"
#include "layout/gantt_layout.h"
#include "sim/timeline_search.h"

#include <algorithm>
#include <cstring>
#include <imgui.h>

namespace stagecraft::view {
namespace {

const char* kindName(SourceKind k) {
    switch (k) {
    case SourceKind::Trace:
        return "trace";
    case SourceKind::Schedule:
        return "schedule";
    case SourceKind::Project:
        return "project";
    }
    return "";
}

} // namespace

void SidePanel::drawMetrics(const ViewChart& chart, int panel) const {
    const ViewPanel& vp = chart.panels()[std::size_t(panel)];
    double makespan = 0, bubble = 0;
    std::vector<double> busy;
    if (vp.prediction) {
        const TimeMetrics& t = vp.prediction->report.time;
        makespan = t.makespan;
        bubble = t.bubbleRatio;
        for (const DeviceMetrics& d : t.devices) busy.push_back(d.busy);
    } else {
        makespan = vp.busy.makespan;
        bubble = vp.busy.bubbleRatio;
        busy = vp.busy.busy;
    }
    ImGui::Text("makespan %s", durationText(makespan, vp.unitless).c_str());
    ImGui::Text("bubble %.1f %%", bubble * 100);
    if (vp.overlay && !vp.prediction) {
        const OverlayReport& r = *vp.overlay;
        ImGui::Text("predicted makespan %+.1f %% against it", r.makespanError * 100);
        ImGui::TextWrapped("op duration error: mean %s, max %s",
                           durationText(r.meanAbsDurationError, false).c_str(),
                           durationText(r.maxAbsDurationError, false).c_str());
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("bars: grey as predicted, red slower, blue faster");
        ImGui::PopStyleColor();
    } else if (!vp.matchNote.empty()) {
        ImGui::TextWrapped("matches no shown prediction: %s", vp.matchNote.c_str());
    }
    // Busy share of the makespan per device: one thin bar each, Tracy-style.
    ImDrawList* list = ImGui::GetWindowDrawList();
    const float rowH = ImGui::GetTextLineHeight();
    const float labelW = ImGui::CalcTextSize("D000").x, valueW = ImGui::CalcTextSize("100 %").x;
    for (std::size_t d = 0; d < busy.size() && d < 64; ++d) {
        const float frac = makespan > 0 ? std::clamp(float(busy[d] / makespan), 0.0f, 1.0f) : 0.0f;
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float barW = std::max(20.0f, ImGui::GetContentRegionAvail().x - labelW - valueW - 12);
        char text[32];
        std::snprintf(text, sizeof text, "D%zu", d);
        list->AddText(p, ImGui::GetColorU32(ImGuiCol_TextDisabled), text);
        const ImVec2 b0(p.x + labelW + 4, p.y + rowH * 0.2f), b1(b0.x + barW, p.y + rowH * 0.8f);
        list->AddRectFilled(b0, b1, IM_COL32(225, 228, 232, 255));
        list->AddRectFilled(b0, ImVec2(b0.x + barW * frac, b1.y), IM_COL32(70, 130, 180, 255));
        std::snprintf(text, sizeof text, "%.0f %%", double(frac) * 100);
        list->AddText(ImVec2(b1.x + 6, p.y), ImGui::GetColorU32(ImGuiCol_Text), text);
        ImGui::Dummy(ImVec2(labelW + barW + valueW + 10, rowH));
    }
    if (busy.size() > 64) ImGui::TextDisabled("... %zu devices", busy.size());
}

void SidePanel::runSearch(ViewChart& chart, TimelineView& view) {
    m_hits.clear();
    m_current = 0;
    m_searchNote.clear();
    std::string why;
    for (std::size_t p = 0; p < chart.panels().size(); ++p)
        for (std::size_t e : findTimelineOps(*chart.panels()[p].timeline, m_query, &why))
            m_hits.emplace_back(int(p), e);
    if (m_hits.empty()) {
        m_searchNote = why;
        return;
    }
    view.jumpTo(m_hits[0].first, int(m_hits[0].second));
}

void SidePanel::search(const std::string& query, ViewChart& chart, TimelineView& view) {
    std::snprintf(m_query, sizeof m_query, "%s", query.c_str());
    runSearch(chart, view);
}

bool SidePanel::draw(const std::vector<ViewSource>& sources, ViewChart& chart, TimelineView& view,
                     float width, double frameMs, MeasuredRows& measuredRows) {
    ImGui::BeginChild("##side", ImVec2(width, 0), true);
    bool rowsChanged = false;
    ImGui::TextUnformatted("Find op");
    ImGui::SetNextItemWidth(-60);
    if (ImGui::InputTextWithHint("##search", "3B17, F5, p1:0F2", m_query, sizeof m_query,
                                 ImGuiInputTextFlags_EnterReturnsTrue))
        runSearch(chart, view);
    ImGui::SameLine();
    if (ImGui::Button(m_hits.size() > 1 ? "Next" : "Go")) {
        if (m_hits.size() > 1 && std::strlen(m_query) > 0) {
            m_current = (m_current + 1) % m_hits.size();
            view.jumpTo(m_hits[m_current].first, int(m_hits[m_current].second));
        } else {
            runSearch(chart, view);
        }
    }
    if (!m_hits.empty())
        ImGui::TextDisabled("hit %zu of %zu", m_current + 1, m_hits.size());
    else if (!m_searchNote.empty())
        ImGui::TextWrapped("%s", m_searchNote.c_str());

    // A trace paired with a prediction: its own panel, or its rows under the prediction's (R).
    bool under = measuredRows == MeasuredRows::UnderPredicted;
    if (ImGui::Checkbox("measured rows under predicted (R)", &under)) {
        measuredRows = under ? MeasuredRows::UnderPredicted : MeasuredRows::Overlaid;
        rowsChanged = true;
    }

    ImGui::Separator();
    ImGui::TextUnformatted("Files");
    for (const ViewSource& s : sources) {
        const std::string name = sourceName(s);
        if (s.error.empty()) {
            ImGui::BulletText("%s (%s, %.2f s)", name.c_str(), kindName(s.kind), s.loadSeconds);
        } else {
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.75f, 0.1f, 0.1f, 1));
            ImGui::TextWrapped("%s", s.error.c_str());
            ImGui::PopStyleColor();
        }
        if (s.analysis)
            for (const ScheduleRefusal& r : s.analysis->refusals)
                ImGui::TextWrapped("  %s not shown: %s", r.name.c_str(), r.message.c_str());
    }

    for (std::size_t p = 0; p < chart.panels().size(); ++p) {
        ImGui::Separator();
        ImGui::PushID(int(p));
        if (ImGui::CollapsingHeader(chart.panels()[p].title.c_str(), ImGuiTreeNodeFlags_DefaultOpen))
            drawMetrics(chart, int(p));
        ImGui::PopID();
    }

    ImGui::Separator();
    if (const auto sel = view.selection()) {
        const ViewPanel& vp = chart.panels()[std::size_t(sel->first)];
        const TimelineEvent& e = vp.timeline->events[std::size_t(sel->second)];
        ImGui::Text("selected: %s on device %d%s",
                    opName(e.op, vp.timeline->shape.splitBackward, vp.timeline->shape.sequenceSlices).c_str(),
                    vp.compared ? ComparedRows::deviceOfRow(e.device) : e.device,
                    vp.compared && vp.compared->isMeasured(std::size_t(sel->second)) ? ", measured" : "");
        ImGui::Text("%s to %s", durationText(e.start, vp.unitless).c_str(),
                    durationText(e.end, vp.unitless).c_str());
    }
    ImGui::TextDisabled("%zu events · zoom x%.4g · %.2f ms/frame", chart.eventCount(), view.zoom(), frameMs);
    const ViewFrameStats& st = view.lastStats();
    ImGui::TextDisabled("drawn: %zu bars, %zu folds of %zu ops", st.bars, st.folds, st.folded);
    ImGui::TextDisabled("wheel zoom · drag pan · F fit · Esc clear");
    ImGui::EndChild();
    return rowsChanged;
}

} // namespace stagecraft::view
