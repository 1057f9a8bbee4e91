#include "eval/export_files.h"

#include "error.h"
#include "eval/report_files.h"
#include "eval/trace_export.h"
#include "file_io.h"
#include "io/schedule_file.h"
#include "layout/chart_format.h"
#include "layout/svg_writer.h"
#include "layout/tikz_writer.h"

namespace stagecraft {

namespace {

enum class Output : std::uint8_t { Order, MetricsJson, MetricsCsv, Trace, Chart };

/// What `path` asks for, checked before anything is evaluated (which may take long).
Output outputOf(const std::string& path) {
    // .metrics.json before the traces' .json, .metrics.csv before the order's .csv.
    if (path.ends_with(".metrics.json")) return Output::MetricsJson;
    if (path.ends_with(".metrics.csv")) return Output::MetricsCsv;
    if (path.ends_with(".csv")) return Output::Order;
    if (traceExportOf(path)) return Output::Trace;
    if (chartFormatOf(path)) return Output::Chart;
    throw ValidationError("cli.format", "--output",
                          "'" + path + "': unknown extension; use " + traceExtensions() + ", " +
                              chartFormatList() + ", .csv (torch schedule), .metrics.json or .metrics.csv");
}

/// Every output but a chart holds one schedule.
void requireOneSchedule(const AnalysisRequest& analysis, const std::string& path) {
    const std::size_t count = analysis.project.schedules.size() + analysis.imported.size();
    if (count != 1)
        throw ValidationError("cli.schedule", "--schedule",
                              "'" + path + "' holds one schedule, not " + std::to_string(count) +
                                  ": pass --schedule NAME");
}

/// The evaluation, or its first refusal thrown as the error it was.
AnalysisResult evaluate(const AnalysisRequest& analysis) {
    AnalysisResult result = analyze(analysis);
    if (!result.refusals.empty()) throwRefusal(result.refusals.front());
    if (result.outcomes.empty())
        throw ValidationError("cli.schedule", "--schedule", "no schedule to evaluate: pass --schedule NAME");
    return result;
}

} // namespace

void writeChartScene(const Scene& scene, const std::string& path, double dpi, RasterChartWriter raster) {
    const auto format = chartFormatOf(path);
    if (!format)
        throw ValidationError("cli.format", "--output",
                              "'" + path + "': not a chart; use " + chartFormatList());
    switch (*format) {
    case ChartFormat::Svg:
        return writeFileAtomically(path, sceneToSvg(scene));
    case ChartFormat::TikzDocument:
    case ChartFormat::TikzPicture:
        return writeFileAtomically(path, sceneToTikz(scene, *format == ChartFormat::TikzDocument));
    case ChartFormat::Pdf:
    case ChartFormat::Png:
        if (raster == nullptr)
            throw ValidationError("export.format", "--output",
                                  "'" + path +
                                      "': PDF and PNG charts need the Qt renderer, which this build "
                                      "lacks; use .svg or .tex");
        return raster(scene, path, dpi);
    }
}

std::vector<std::filesystem::path> writeExport(const ExportRequest& request, RasterChartWriter raster) {
    const std::string& out = request.output;
    const Output output = outputOf(out);
    AnalysisRequest analysis = loadAnalysisRequest(request.input);
    if (output != Output::Chart) requireOneSchedule(analysis, out);
    if (output == Output::Order) {
        // The order alone: neither costs nor the layer split matter to it.
        writeScheduleFile(analysis.imported.empty()
                              ? orderFromProject(analysis.project, analysis.project.schedules.front())
                              : analysis.imported.front().schedule,
                          out);
        return {out};
    }
    if (output == Output::Chart && request.chart.unitTime) applyUnitTime(analysis);
    const AnalysisResult evaluated = evaluate(analysis);
    const ScheduleOutcome& first = evaluated.outcomes.front();
    switch (output) {
    case Output::MetricsJson:
        writeFileAtomically(out, reportsAsJson({first.prediction.report}));
        return {out};
    case Output::MetricsCsv:
        writeFileAtomically(out, reportsAsCsv({first.prediction.report}));
        return {out};
    case Output::Trace:
        return writeTraceExport(first.prediction, out, *traceExportOf(out),
                                analysis.project.name + ": " + first.name);
    case Output::Chart:
        // A trace asked for and not drawn would be a silent half answer.
        if (analysis.trace && !evaluated.overlay)
            throw ValidationError("overlay.mismatch", "--trace",
                                  "--trace " + analysis.trace->path + ": " + evaluated.overlayError);
        writeChartScene(buildChartScene(evaluated, request.chart, request.widthPt), out, request.dpi, raster);
        return {out};
    case Output::Order:
        break;
    }
    return {out};
}

} // namespace stagecraft
