#pragma once
// The live chart of a drag in Design by Hand: the result on screen with the edited schedule's
// outcome replaced by the analysis of the order the hovered gap makes. Only that schedule is
// analysed (the same prediction a kept move gets, so the drop shows what the drag showed); the
// others are the shown result's, copied. Linear in the edited schedule's ops, done on the UI
// thread: the window previews only schedules below the analysis runner's worker threshold.

#include "eval/evaluation.h"
#include "gui/models/analysis_runner.h"

namespace stagecraft::gui {

/// `shown` with outcome `panel` (the edited schedule, an imported outcome of the same name)
/// replaced by `edited` analysed under `project`. Throws stagecraft::Error with core's message
/// when the order cannot be analysed (it can: the editor checked it runs).
AnalysisPtr previewWithEdited(const AnalysisResult& shown, int panel, const Project& project,
                              ImportedSchedule edited);

/// The compute event of `op` (kind, pipe, stage, micro-batch) in `timeline`, or -1. Linear.
int computeEventOf(const Timeline& timeline, const Op& op);

} // namespace stagecraft::gui
