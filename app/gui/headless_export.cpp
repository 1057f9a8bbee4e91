#include "gui/headless_export.h"

#include "error_ids.h"
#include "eval/evaluation_input.h"
#include "gui/chart_export.h"
#include "layout/chart_format.h"

#include <cstdio>

namespace stagecraft::gui {

int runHeadlessExport(const HeadlessExport& job) {
    try {
        const auto format = render::exportFormatForPath(job.output);
        if (!format)
            throw ValidationError("export.format", "--export",
                                  "--export " + job.output.toStdString() + ": the file must end in " +
                                      chartFormatList());
        EvaluationInput input;
        input.path = job.input.toStdString();
        for (const QString& name : job.schedules) input.schedules.push_back(name.trimmed().toStdString());
        input.tracePath = job.trace.toStdString();
        const AnalysisRequest request = loadAnalysisRequest(input); // as stagecraft-cli reads it
        const AnalysisResult result = analyze(request);
        if (request.trace && !result.overlay)
            throw ValidationError("overlay.mismatch", "--trace",
                                  "--trace " + job.trace.toStdString() + ": " + result.overlayError);
        for (const ScheduleRefusal& f : result.refusals)
            std::fprintf(stderr, "stagecraft: %s skipped: %s\n", f.name.c_str(), f.message.c_str());
        ExportRequest out;
        out.path = job.output;
        out.file.format = *format;
        out.file.dpi = job.dpi;
        out.widthPt = job.widthPt;
        if (!job.palette.isEmpty()) out.chart.palette = job.palette.toStdString();
        const auto rows = parseMeasuredRows(job.rows.toStdString());
        if (!rows)
            throw ValidationError("export.rows", "--rows",
                                  "--rows " + job.rows.toStdString() + ": use overlaid or under-predicted");
        out.chart.measuredRows = *rows;
        exportChart(result, out);
        std::fprintf(stderr, "stagecraft: wrote %s (%zu schedule(s))\n", job.output.toLocal8Bit().constData(),
                     result.outcomes.size());
        return 0;
    } catch (const Error& e) {
        std::fprintf(stderr, "stagecraft: %s\n", e.what());
        return errorClassOf(e) == ErrorClass::Input ? 2 : 1; // core's table, as stagecraft-cli
    } catch (const std::exception& e) {
        std::fprintf(stderr, "stagecraft: error: %s\n", e.what());
        return 1;
    }
}

} // namespace stagecraft::gui
