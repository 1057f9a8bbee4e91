#pragma once
// The report of `stagecraft-cli overlay` as text or JSON: how a measured trace departs from the
// prediction of its schedule (core's OverlayReport and OverlayBreakdown).

#include "eval/evaluation.h"

#include <string>

namespace stagecraft::cli {

/// `evaluated` must hold a matched overlay (AnalysisResult::overlay); `trace` is the trace it
/// matched (its path and iterations).
std::string overlayAsText(const AnalysisResult& evaluated, const MeasuredTrace& trace);
std::string overlayAsJson(const AnalysisResult& evaluated, const MeasuredTrace& trace);

} // namespace stagecraft::cli
