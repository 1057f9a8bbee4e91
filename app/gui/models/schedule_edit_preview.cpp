#include "gui/models/schedule_edit_preview.h"

#include "error.h"

#include <string>

namespace stagecraft::gui {

AnalysisPtr previewWithEdited(const AnalysisResult& shown, int panel, const Project& project,
                              ImportedSchedule edited) {
    if (panel < 0 || std::size_t(panel) >= shown.outcomes.size())
        throw Error("edit.preview", "no panel " + std::to_string(panel) + " to preview in");
    AnalysisRequest request;
    request.project = project;
    request.project.schedules.clear(); // the shown schedules stay as they are
    request.imported.push_back(std::move(edited));
    AnalysisResult one = analyze(request);
    if (one.outcomes.size() != 1)
        throw Error(one.refusals.empty() ? "edit.preview" : one.refusals.front().id,
                    one.refusals.empty() ? "the edited order was not analysed"
                                         : one.refusals.front().message);
    auto preview = std::make_shared<AnalysisResult>(shown);
    ScheduleOutcome& mine = preview->outcomes[std::size_t(panel)];
    preview->opCount -= mine.prediction.schedule.opCount();
    mine = std::move(one.outcomes.front());
    preview->opCount += mine.prediction.schedule.opCount();
    return preview;
}

int computeEventOf(const Timeline& timeline, const Op& op) {
    for (std::size_t i = 0; i < timeline.events.size(); ++i) {
        const TimelineEvent& e = timeline.events[i];
        if (e.lane == Lane::Compute && e.op.kind == op.kind && e.op.pipe == op.pipe &&
            e.op.stage == op.stage && e.op.mb == op.mb)
            return int(i);
    }
    return -1;
}

} // namespace stagecraft::gui
