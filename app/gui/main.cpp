// stagecraft: the desktop application, or with --export a headless chart export.

#include "gui/headless_export.h"
#include "gui/main_window.h"
#include "gui/models/constants.h"

#include <QApplication>
#include <QCommandLineParser>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
    // An export, --help and --version need no display: pick the offscreen platform before Qt
    // looks for one, unless the caller chose a platform.
    static constexpr const char* kHeadlessFlags[] = {"--export",   "--help",    "-h",
                                                     "--help-all", "--version", "-v"};
    for (int i = 1; i < argc; ++i)
        for (const char* flag : kHeadlessFlags)
            if (std::strcmp(argv[i], flag) == 0 && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
                qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QString::fromLatin1(stagecraft::gui::constants::kOrganization));
    QApplication::setApplicationName(QString::fromLatin1(stagecraft::gui::constants::kApplication));
    QApplication::setApplicationDisplayName(QStringLiteral("Stagecraft"));
    QApplication::setApplicationVersion(QStringLiteral(STAGECRAFT_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Design, simulate and draw pipeline-parallel training schedules."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("file"),
        QStringLiteral("Project (.stagecraft.json), schedule (.csv/.json) or trace to open."),
        QStringLiteral("[FILE]"));
    QCommandLineOption exportOpt(
        QStringLiteral("export"),
        QStringLiteral("Export the chart to OUT (.svg, .pdf, .png, .tex) and exit; no window."),
        QStringLiteral("OUT"));
    QCommandLineOption scheduleOpt(QStringLiteral("schedule"),
                                   QStringLiteral("Comma-separated schedules to show (registry names)."),
                                   QStringLiteral("a,b"));
    QCommandLineOption paletteOpt(QStringLiteral("palette"),
                                  QStringLiteral("paper, slides, colorblind or greyscale."),
                                  QStringLiteral("name"));
    QCommandLineOption widthOpt(QStringLiteral("width-pt"),
                                QStringLiteral("Chart width in points (default 500)."), QStringLiteral("pt"),
                                QStringLiteral("500"));
    QCommandLineOption dpiOpt(QStringLiteral("dpi"), QStringLiteral("PNG resolution (default 300)."),
                              QStringLiteral("dpi"), QStringLiteral("300"));
    QCommandLineOption traceOpt(
        QStringLiteral("trace"),
        QStringLiteral("With --export: draw this measured Chrome trace over its schedule."),
        QStringLiteral("T.json"));
    QCommandLineOption rowsOpt(
        QStringLiteral("rows"),
        QStringLiteral("With --trace: 'overlaid' (outlines over the predicted bars, the default) or "
                       "'under-predicted' (each device's measured row under its predicted row)."),
        QStringLiteral("rows"), QStringLiteral("overlaid"));
    parser.addOptions({exportOpt, scheduleOpt, paletteOpt, widthOpt, dpiOpt, traceOpt, rowsOpt});
    parser.process(app);
    const QStringList files = parser.positionalArguments();
    if (files.size() > 1) {
        std::fprintf(stderr, "stagecraft: at most one FILE, got %lld\n",
                     static_cast<long long>(files.size()));
        return 2;
    }

    if (parser.isSet(exportOpt)) {
        stagecraft::gui::HeadlessExport job;
        job.output = parser.value(exportOpt);
        job.input = files.value(0);
        if (parser.isSet(scheduleOpt))
            job.schedules = parser.value(scheduleOpt).split(QLatin1Char(','), Qt::SkipEmptyParts);
        job.palette = parser.value(paletteOpt);
        job.trace = parser.value(traceOpt);
        job.rows = parser.value(rowsOpt);
        bool ok = true;
        job.widthPt = parser.value(widthOpt).toDouble(&ok);
        if (!ok) {
            std::fprintf(stderr, "stagecraft: --width-pt %s: not a number\n",
                         qPrintable(parser.value(widthOpt)));
            return 2;
        }
        job.dpi = parser.value(dpiOpt).toDouble(&ok);
        if (!ok) {
            std::fprintf(stderr, "stagecraft: --dpi %s: not a number\n", qPrintable(parser.value(dpiOpt)));
            return 2;
        }
        return stagecraft::gui::runHeadlessExport(job);
    }

    stagecraft::gui::MainWindow window;
    window.show();
    if (!files.isEmpty()) window.openPath(files.front());
    return QApplication::exec();
}
