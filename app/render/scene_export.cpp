#include "render/scene_export.h"

#include "error.h"
#include "file_io.h"
#include "layout/chart_format.h"
#include "layout/svg_writer.h"
#include "layout/tikz_writer.h"
#include "render/scene_painter.h"

#include <QBuffer>
#include <QFileInfo>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <cmath>

namespace stagecraft::render {
namespace {

constexpr double kPointsPerInch = 72.0;
constexpr int kPdfResolution = 1200; // device units per inch of the PDF writer

/// Paints `scene` on any paint device (SVG generator, PDF writer, image), `unitsPerPoint` device
/// units to the point, with the same hints everywhere so every format looks the same.
void paintOn(QPaintDevice& device, const Scene& scene, double unitsPerPoint, const char* what) {
    QPainter painter;
    if (!painter.begin(&device))
        throw Error("export.render", std::string("cannot start the ") + what + " painter");
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.scale(unitsPerPoint, unitsPerPoint);
    paintScene(painter, scene);
    painter.end();
}

QByteArray pdfBytes(const Scene& scene) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setCreator(QStringLiteral("Stagecraft"));
    writer.setTitle(QStringLiteral("Stagecraft chart"));
    writer.setResolution(kPdfResolution);
    writer.setPageSize(
        QPageSize(QSizeF(scene.width, scene.height), QPageSize::Point, QString(), QPageSize::ExactMatch));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    paintOn(writer, scene, kPdfResolution / kPointsPerInch, "PDF");
    return bytes;
}

QByteArray pngBytes(const Scene& scene, const ExportSettings& settings) {
    const QImage image = renderSceneImage(scene, settings.dpi, settings.whiteBackground);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG")) throw Error("export.render", "cannot encode the PNG image");
    return bytes;
}

} // namespace

std::optional<ExportFormat> exportFormatForPath(const QString& path) {
    // Core's one table of chart extensions; the two TikZ forms are one format here (the writer
    // takes the document/picture choice from the extension).
    const auto format = chartFormatOf(path.toStdString());
    if (!format) return std::nullopt;
    switch (*format) {
    case ChartFormat::Svg:
        return ExportFormat::Svg;
    case ChartFormat::Pdf:
        return ExportFormat::Pdf;
    case ChartFormat::Png:
        return ExportFormat::Png;
    case ChartFormat::TikzDocument:
    case ChartFormat::TikzPicture:
        return ExportFormat::Tikz;
    }
    return std::nullopt;
}

QString exportFormatName(ExportFormat format) {
    switch (format) {
    case ExportFormat::Svg:
        return QStringLiteral("SVG");
    case ExportFormat::Pdf:
        return QStringLiteral("PDF");
    case ExportFormat::Png:
        return QStringLiteral("PNG");
    case ExportFormat::Tikz:
        return QStringLiteral("TikZ");
    }
    return {};
}

QSize imageSizeFor(const Scene& scene, double dpi) {
    const double k = dpi / kPointsPerInch;
    return QSize(std::max(1, int(std::lround(scene.width * k))),
                 std::max(1, int(std::lround(scene.height * k))));
}

QImage renderSceneImage(const Scene& scene, double dpi, bool whiteBackground) {
    if (!(dpi >= 10 && dpi <= 2400))
        throw ValidationError("export.dpi", "dpi",
                              "dpi = " + std::to_string(dpi) + ": must be in [10, 2400]");
    const QSize size = imageSizeFor(scene, dpi);
    if (qint64(size.width()) * size.height() > qint64(400) * 1000 * 1000)
        throw ValidationError("export.size", "dpi",
                              "a " + std::to_string(size.width()) + " x " + std::to_string(size.height()) +
                                  " px image is over the 400 megapixel limit: lower the DPI or the size");
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(whiteBackground ? Qt::white : Qt::transparent);
    const int dotsPerMeter = int(std::lround(dpi / 0.0254));
    image.setDotsPerMeterX(dotsPerMeter);
    image.setDotsPerMeterY(dotsPerMeter);
    paintOn(image, scene, dpi / kPointsPerInch, "PNG");
    return image;
}

QByteArray exportSceneBytes(const Scene& scene, const ExportSettings& settings) {
    switch (settings.format) {
    case ExportFormat::Svg:
        // Core's writer, as stagecraft-cli: one SVG for the same chart, byte for byte, whichever
        // program wrote it (text stays text, ids and classes stay parseable).
        return QByteArray::fromStdString(sceneToSvg(scene));
    case ExportFormat::Pdf:
        return pdfBytes(scene);
    case ExportFormat::Png:
        return pngBytes(scene, settings);
    case ExportFormat::Tikz:
        return QByteArray::fromStdString(sceneToTikz(scene, settings.tikzStandalone));
    }
    return {};
}

void exportScene(const Scene& scene, const QString& path, const ExportSettings& settings) {
    const QByteArray bytes = exportSceneBytes(scene, settings);
    writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), std::size_t(bytes.size())));
}

} // namespace stagecraft::render
