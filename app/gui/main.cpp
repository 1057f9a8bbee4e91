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
    // --export and its options: core's export table, the one stagecraft-cli export takes.
    const stagecraft::gui::HeadlessExportOptions exportOptions(parser);
    parser.process(app);
    const QStringList files = parser.positionalArguments();
    if (files.size() > 1) {
        std::fprintf(stderr, "stagecraft: at most one FILE, got %lld\n",
                     static_cast<long long>(files.size()));
        return 2;
    }

    if (exportOptions.requested()) return stagecraft::gui::runHeadlessExport(files.value(0), exportOptions);
    // The export's options do nothing to a window: say so rather than ignore them.
    if (const QString stray = exportOptions.firstGiven(); !stray.isEmpty()) {
        std::fprintf(stderr, "stagecraft: %s is an option of --export OUT; the window does not take it\n",
                     qPrintable(stray));
        return 2;
    }

    stagecraft::gui::MainWindow window;
    window.show();
    if (!files.isEmpty()) window.openPath(files.front());
    return QApplication::exec();
}
