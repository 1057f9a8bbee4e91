#include "gui/headless_export.h"

#include "error_ids.h"
#include "gui/chart_export.h"
#include "io/chrome_trace.h"
#include "io/schedule_file.h"
#include "project/project_json.h"
#include "project/project_validate.h"

#include <QFileInfo>
#include <cstdio>

namespace stagecraft::gui {

int runHeadlessExport(const HeadlessExport& job) {
    try {
        const auto format = render::exportFormatForPath(job.output);
        if (!format)
            throw ValidationError("export.format", "--export",
                                  "--export " + job.output.toStdString() +
                                      ": the file must end in .svg, .pdf, .png or .tex");
        AnalysisRequest request;
        request.project = defaultProject();
        if (!job.input.isEmpty()) {
            const std::string path = job.input.toStdString();
            if (job.input.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive)) {
                ImportedSchedule imported;
                imported.name = QFileInfo(job.input).fileName().toStdString();
                imported.path = path;
                imported.schedule = readScheduleFile(path);
                // The default project's cluster, on the schedule's own pipeline.
                request.project.parallel.pp = imported.schedule.devices;
                request.project.parallel.microbatches = imported.schedule.microbatches;
                request.project.schedules.clear();
                request.imported.push_back(std::move(imported));
            } else {
                request.project = readProject(path);
            }
        }
        if (!job.schedules.isEmpty()) {
            request.project.schedules.clear();
            for (const QString& name : job.schedules)
                request.project.schedules.push_back(name.trimmed().toStdString());
        }
        validateProject(request.project);
        if (!job.trace.isEmpty())
            request.trace =
                MeasuredTrace{job.trace.toStdString(),
                              std::make_shared<const Timeline>(readChromeTrace(job.trace.toStdString()))};
        const AnalysisResult result = analyze(request);
        if (request.trace && !result.overlay)
            throw ValidationError("overlay.mismatch", "--trace",
                                  "--trace " + job.trace.toStdString() + ": " + result.overlayError);
        for (const ScheduleFailure& f : result.failures)
            std::fprintf(stderr, "stagecraft: %s skipped: %s\n", f.name.c_str(), f.message.c_str());
        ExportRequest out;
        out.path = job.output;
        out.file.format = *format;
        out.file.dpi = job.dpi;
        out.widthPt = job.widthPt;
        if (!job.palette.isEmpty()) out.chart.palette = job.palette.toStdString();
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
