#pragma once
// Identifiers that must not drift: settings keys, object names the tests find widgets by, and
// file-type patterns.

namespace stagecraft::gui::constants {

inline constexpr char kOrganization[] = "Stagecraft";
inline constexpr char kApplication[] = "stagecraft";

// QSettings keys.
inline constexpr char kGeometryKey[] = "window/geometry";
inline constexpr char kStateKey[] = "window/state";
inline constexpr char kRecentFilesKey[] = "files/recent";
inline constexpr char kPaletteKey[] = "chart/palette";
inline constexpr char kShowCommKey[] = "chart/showComm";
inline constexpr char kMeasuredRowsKey[] = "chart/measuredRows"; ///< core's measuredRowsName
inline constexpr char kAutosaveSecondsKey[] = "files/autosaveSeconds";
inline constexpr char kExportDirKey[] = "export/lastDir";
inline constexpr char kExportDpiKey[] = "export/dpi";
inline constexpr char kExportWidthKey[] = "export/width";
inline constexpr char kExportUnitKey[] = "export/unit";
inline constexpr char kExportFormatKey[] = "export/format"; ///< "svg", "pdf", "png", "tikz"
inline constexpr char kExportNameKey[] = "export/name";     ///< the last file name, without its suffix

inline constexpr int kMaxRecentFiles = 8;

// Object names (tests and the style sheet find widgets by them).
inline constexpr char kParametersDock[] = "parametersDock";
inline constexpr char kSchedulesDock[] = "schedulesDock";
inline constexpr char kMetricsDock[] = "metricsDock";
inline constexpr char kMemoryDock[] = "memoryDock";
inline constexpr char kOverlayDock[] = "overlayDock";
inline constexpr char kSearchDock[] = "searchDock";
inline constexpr char kGanttView[] = "ganttView";
inline constexpr char kGpuCombo[] = "gpuCombo";
inline constexpr char kMeasuredRowsAction[] = "measuredRowsAction";
inline constexpr char kRuntimeFitRow[] = "runtimeFitRow";
inline constexpr char kRuntimeFitText[] = "runtimeFitText";
inline constexpr char kDropRuntimeFitButton[] = "dropRuntimeFitButton";

// File dialogs.
inline constexpr char kProjectFilter[] = "Stagecraft projects (*.stagecraft.json *.json)";
inline constexpr char kScheduleFilter[] = "Schedules (*.csv *.json)";
inline constexpr char kTraceFilter[] = "Traces (*.json *.trace.json *.sqlite);;Chrome traces (*.json "
                                       "*.trace.json);;Nsight Systems SQLite (*.sqlite)";
inline constexpr char kProjectSuffix[] = ".stagecraft.json";

} // namespace stagecraft::gui::constants
