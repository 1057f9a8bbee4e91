#include "render/raster_chart.h"

#include "error.h"
#include "render/scene_export.h"

#include <QGuiApplication>
#include <memory>

namespace stagecraft::render {

void writeRasterChart(const Scene& scene, const std::string& path, double dpi) {
    const QString file = QString::fromStdString(path);
    const auto format = exportFormatForPath(file);
    if (!format || (*format != ExportFormat::Pdf && *format != ExportFormat::Png))
        throw ValidationError("cli.format", "--output", "'" + path + "': expected a .pdf or .png file");
    std::unique_ptr<QGuiApplication> app;
    if (QGuiApplication::instance() == nullptr) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
        static int argc = 1;
        static char name[] = "stagecraft";
        static char* argv[] = {name, nullptr};
        app = std::make_unique<QGuiApplication>(argc, argv);
    }
    ExportSettings settings;
    settings.format = *format;
    settings.dpi = dpi;
    exportScene(scene, file, settings);
}

} // namespace stagecraft::render
