#pragma once
// Charts written by stagecraft-cli commands (export, overlay): core's one chart composition of an
// evaluation, with a measured trace drawn over its schedule when the evaluation matched one. The
// extension picks the writer: .svg (core), .tex (a standalone TikZ document), .tikz (the
// tikzpicture alone, for \input), .pdf and .png (the Qt renderer, in builds with Qt).

#include "eval/chart_composition.h"
#include "eval/evaluation.h"
#include "layout/scene.h"

#include <CLI/CLI.hpp>
#include <string>

namespace stagecraft::cli {

struct ChartFileOptions {
    std::string palette = "paper";
    double widthPt = 500;
    bool showComm = false;
    double dpi = 300;
    bool noSubtitle = false;       ///< titles without their key figures
    bool noCostLine = false;       ///< no cost assumptions under the chart
    bool unitTime = false;         ///< the papers' step grid: timed with unit costs (applyUnitTime)
    std::string rows = "overlaid"; ///< --rows: how a measured trace is drawn (parseMeasuredRows)
};

/// --palette, --width, --comm, --dpi, --no-subtitle, --no-cost-line, --rows, and with `withUnitTime`
/// --unit-time (only commands that analyse the project themselves can time it in units).
void addChartFileOptions(CLI::App& command, ChartFileOptions& options, bool withUnitTime = false);

/// True when `path` ends in an extension writeChartFile writes.
bool isChartFile(const std::string& path);

/// The extensions of charts, for messages: ".svg, .pdf, .png, .tex (TikZ document), .tikz".
const char* chartExtensions();

/// Throws ValidationError("cli.format") naming `option` when `path` is not a chart file, so that a
/// command can refuse it before it evaluates anything.
void checkChartFile(const std::string& path, const std::string& option = "--output");

/// Writes a chart already composed by core to `path` atomically, in the format its extension
/// names (the same writers as writeChartFile).
void writeSceneFile(const Scene& scene, const ChartFileOptions& options, const std::string& path);
/// The same for a chart that is not a schedule chart (search plots): `dpi` for PNG.
void writeSceneFile(const Scene& scene, const std::string& path, double dpi);

/// The chart settings of `options` (palette, communication lane, subtitle, cost line, unit time,
/// measured rows).
ChartSettings chartSettings(const ChartFileOptions& options);

/// Writes the chart of `evaluated` to `path` atomically. Throws stagecraft::Error for an unknown
/// extension (cli.format), a bad palette or width, or a file that cannot be written.
void writeChartFile(const AnalysisResult& evaluated, const ChartFileOptions& options,
                    const std::string& path);

} // namespace stagecraft::cli
