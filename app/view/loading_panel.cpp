#include "view/loading_panel.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace stagecraft::view {

void drawLoadingPanel(const SourceLoader& loader, const std::vector<std::string>& files, ImVec2 size) {
    ImGui::BeginChild("##loading", size, true);
    ImGui::TextUnformatted(files.size() == 1 ? "Reading" : "Reading, in order");
    for (const std::string& f : files)
        ImGui::BulletText("%s", std::filesystem::path(f).filename().string().c_str());
    const double fraction = loader.progress();
    char label[32];
    std::snprintf(label, sizeof label, "%.0f %%", 100 * fraction);
    const ImVec2 bar(std::min(480.0f, std::max(120.0f, size.x - 16)), 0);
    ImGui::ProgressBar(float(fraction), bar, label);
    if (const double evaluated = loader.evaluation(); evaluated >= 0) {
        ImGui::TextUnformatted("Evaluating");
        std::snprintf(label, sizeof label, "%.0f %%", 100 * evaluated);
        ImGui::ProgressBar(float(evaluated), bar, label);
    }
    ImGui::EndChild();
}

float drawLoadingLine(const SourceLoader& loader, std::size_t events, float width) {
    const float top = ImGui::GetCursorPosY();
    const double fraction = loader.progress();
    char label[64];
    std::snprintf(label, sizeof label, "Reading: %.0f %%, %zu events drawn so far", 100 * fraction, events);
    ImGui::ProgressBar(float(fraction), ImVec2(std::max(120.0f, width), 0), label);
    return ImGui::GetCursorPosY() - top;
}

} // namespace stagecraft::view
