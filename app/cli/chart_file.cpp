#include "chart_file.h"

#include "error.h"
#include "eval/chart_composition.h"
#include "eval/export_files.h"
#include "layout/chart_format.h"
#include "raster_export.h"

namespace stagecraft::cli {

void addChartFileOptions(CLI::App& command, ChartFileOptions& options, bool withUnitTime) {
    command.add_option("--palette", options.palette, "Chart style: paper, slides, colorblind, greyscale");
    command.add_option("--width", options.widthPt, "Chart width in points")->check(CLI::Range(100.0, 5000.0));
    command.add_flag("--comm", options.showComm, "Draw communication lanes in charts");
    command.add_option("--dpi", options.dpi, "Resolution of PNG charts")->check(CLI::Range(30.0, 1200.0));
    command.add_flag("--no-subtitle", options.noSubtitle, "Charts: panel titles without their key figures");
    command.add_flag("--no-cost-line", options.noCostLine, "Charts: no cost assumptions under the chart");
    command
        .add_option("--rows", options.rows,
                    "Charts with a measured trace: 'overlaid' (outlines over the predicted bars) or "
                    "'under-predicted' (each device's measured row under its predicted row)")
        ->check(CLI::IsMember(
            {measuredRowsName(MeasuredRows::Overlaid), measuredRowsName(MeasuredRows::UnderPredicted)}))
        ->capture_default_str();
    if (withUnitTime)
        command.add_flag(
            "--unit-time", options.unitTime,
            "Charts: the papers' step grid, the schedules timed with unit costs (F = B = W = 1)");
}

bool isChartFile(const std::string& path) {
    return chartFormatOf(path).has_value();
}

const char* chartExtensions() {
    return chartFormatList();
}

void checkChartFile(const std::string& path, const std::string& option) {
    if (!isChartFile(path))
        throw ValidationError("cli.format", option,
                              "'" + path + "': not a chart; use " + std::string(chartExtensions()));
}

ChartSettings chartSettings(const ChartFileOptions& options) {
    ChartSettings chart;
    chart.palette = options.palette;
    chart.showComm = options.showComm;
    chart.subtitle = !options.noSubtitle;
    chart.costLine = !options.noCostLine;
    chart.unitTime = options.unitTime;
    chart.measuredRows = parseMeasuredRows(options.rows).value_or(MeasuredRows::Overlaid);
    return chart;
}

void writeSceneFile(const Scene& scene, const ChartFileOptions& options, const std::string& path) {
    writeSceneFile(scene, path, options.dpi);
}

void writeSceneFile(const Scene& scene, const std::string& path, double dpi) {
    checkChartFile(path);
    writeChartScene(scene, path, dpi, &writeRasterChart); // core's writers, the renderer for PDF/PNG
}

void writeChartFile(const AnalysisResult& evaluated, const ChartFileOptions& options,
                    const std::string& path) {
    checkChartFile(path);
    // Core's one chart composition: the same chart `stagecraft --export` and the window's Export
    // write for the same inputs.
    writeSceneFile(buildChartScene(evaluated, chartSettings(options), options.widthPt), options, path);
}

} // namespace stagecraft::cli
