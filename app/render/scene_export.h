#pragma once
// Writes a Scene to SVG, PDF, PNG or TikZ. SVG, PDF and PNG go through paintScene (one renderer);
// TikZ comes from core's writer. Every file is written atomically (core/file_io.h).

#include "layout/scene.h"

#include <QImage>
#include <QString>
#include <optional>

namespace stagecraft::render {

enum class ExportFormat { Svg, Pdf, Png, Tikz };

/// From the file suffix: .svg, .pdf, .png, .tex/.tikz; nullopt otherwise.
std::optional<ExportFormat> exportFormatForPath(const QString& path);
QString exportFormatName(ExportFormat format); ///< "SVG", "PDF", "PNG", "TikZ"

struct ExportSettings {
    ExportFormat format = ExportFormat::Svg;
    double dpi = 300;            ///< PNG only
    bool tikzStandalone = true;  ///< TikZ: a compilable standalone document or a bare picture
    bool whiteBackground = true; ///< PNG: opaque white, or transparent
};

/// Pixel size of a PNG of `scene` at `dpi` (scene sizes are points, 1/72 inch).
QSize imageSizeFor(const Scene& scene, double dpi);

/// The scene rendered at `dpi`.
QImage renderSceneImage(const Scene& scene, double dpi, bool whiteBackground = true);

/// The file's bytes, without writing it (for tests and the clipboard).
QByteArray exportSceneBytes(const Scene& scene, const ExportSettings& settings);

/// Render and write atomically. Throws stagecraft::Error ("export.write", "export.render") with
/// the path and the reason.
void exportScene(const Scene& scene, const QString& path, const ExportSettings& settings);

} // namespace stagecraft::render
