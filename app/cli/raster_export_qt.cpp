#include "error.h"
#include "raster_export.h"
#include "render/scene_export.h"

#include <QGuiApplication>
#include <memory>

namespace stagecraft::cli {

bool rasterExportAvailable() {
    return true;
}

void writeRasterChart(const Scene& scene, const std::string& path, double dpi) {
    const QString file = QString::fromStdString(path);
    const auto format = render::exportFormatForPath(file);
    if (!format || (*format != render::ExportFormat::Pdf && *format != render::ExportFormat::Png))
        throw ValidationError("cli.format", "--output", "'" + path + "': expected a .pdf or .png file");
    // Fonts and painting need a QGuiApplication; a command-line tool needs no display for it.
    std::unique_ptr<QGuiApplication> app;
    if (QGuiApplication::instance() == nullptr) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
        static int argc = 1;
        static char name[] = "stagecraft-cli";
        static char* argv[] = {name, nullptr};
        app = std::make_unique<QGuiApplication>(argc, argv);
    }
    render::ExportSettings settings;
    settings.format = *format;
    settings.dpi = dpi;
    render::exportScene(scene, file, settings);
}

} // namespace stagecraft::cli
