#pragma once
// The reader of Nsight Systems SQLite exports that a front end hands to core (MeasuredTraceOptions
// ::sqlite, EvaluationInput::sqliteReader): one answer for the app, the CLI, the headless export
// and the viewer, so that every front end opens the same files.

#include "io/measured_trace.h"

namespace stagecraft {

/// readNsysSqlite, or nullptr in a build without SQLite (core then refuses .sqlite files and says
/// why).
RankReader sqliteRankReader();

} // namespace stagecraft
