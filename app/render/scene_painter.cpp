#include "render/scene_painter.h"

#include "layout/text_metrics.h"

#include <QFont>
#include <QFontMetricsF>
#include <QPainter>
#include <QPen>
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace stagecraft::render {
namespace {

// Text is shaped at this pixel size and scaled to the item's size: QFont sizes are integers in
// pixels and DPI-dependent in points, while a scene size is an exact (fractional) point size.
constexpr int kShapePx = 100;

bool intersects(const QRectF* visible, double x, double y, double w, double h) {
    if (!visible) return true;
    return x <= visible->right() && x + w >= visible->left() && y <= visible->bottom() &&
           y + h >= visible->top();
}

/// The snapped rect drawing of PaintOptions::snapRectsToPixels; the painter has no transform and
/// `t` maps scene points to device pixels.
void paintSnappedRects(QPainter& painter, const Scene& scene, const QRectF* visible, const QTransform& t) {
    const bool antialiased = painter.testRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::Antialiasing, false);
    const double k = t.m11(), ky = t.m22();
    for (const SceneRect& r : scene.rects) {
        if (!intersects(visible, r.x, r.y, r.w, r.h)) continue;
        const QColor fill = sceneColor(r.fill);
        const QColor stroke = sceneColor(r.stroke);
        const double strokePx = r.strokeWidth * k;
        const bool hasStroke = strokePx > 0 && stroke.alpha() > 0;
        if (fill.alpha() == 0 && !hasStroke) continue;
        const double x0 = r.x * k + t.dx(), x1 = (r.x + r.w) * k + t.dx();
        const double y0 = r.y * ky + t.dy(), y1 = (r.y + r.h) * ky + t.dy();
        if (hasStroke && (fill.alpha() == 0 || strokePx > 2.5)) {
            // Outlines (no fill) and thick strokes: exact, antialiased, in device pixels.
            painter.setRenderHint(QPainter::Antialiasing, true);
            QPen pen(stroke, strokePx);
            pen.setJoinStyle(Qt::MiterJoin);
            painter.setPen(pen);
            painter.setBrush(fill.alpha() > 0 ? QBrush(fill) : QBrush(Qt::NoBrush));
            painter.drawRect(QRectF(QPointF(x0, y0), QPointF(x1, y1)));
            painter.setRenderHint(QPainter::Antialiasing, false);
            continue;
        }
        if (!hasStroke) {
            // Whole pixels nearest to the edges, at least one.
            const int l = int(std::lround(x0)), top = int(std::lround(y0));
            const int w = std::max(1, int(std::lround(x1)) - l), h = std::max(1, int(std::lround(y1)) - top);
            painter.fillRect(QRect(l, top, w, h), fill);
            continue;
        }
        // A thin stroke: the pixel columns and rows that hold the edges, filled inside.
        const int l = int(std::floor(x0)), right = std::max(l, int(std::floor(x1)));
        const int top = int(std::floor(y0)), bottom = std::max(top, int(std::floor(y1)));
        const QRect outer(QPoint(l, top), QPoint(right, bottom));
        const QRect inner = outer.adjusted(1, 1, -1, -1);
        if (fill.alpha() == 255 || inner.isEmpty()) {
            painter.fillRect(outer, stroke);
            if (!inner.isEmpty()) painter.fillRect(inner, fill);
        } else {
            painter.fillRect(inner, fill);
            painter.fillRect(QRect(l, top, outer.width(), 1), stroke);
            painter.fillRect(QRect(l, bottom, outer.width(), 1), stroke);
            painter.fillRect(QRect(l, top + 1, 1, outer.height() - 2), stroke);
            painter.fillRect(QRect(right, top + 1, 1, outer.height() - 2), stroke);
        }
    }
    painter.setRenderHint(QPainter::Antialiasing, antialiased);
}

} // namespace

QColor sceneColor(const Color& color) {
    return QColor(color.r, color.g, color.b, color.a);
}

QFont sceneFont(const std::string& fontFamily) {
    QStringList families;
    QFont::StyleHint hint = QFont::SansSerif;
    for (QString family : QString::fromStdString(fontFamily).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        family = family.trimmed();
        family.remove(QLatin1Char('"'));
        family.remove(QLatin1Char('\''));
        if (family == QLatin1String("sans-serif")) {
            hint = QFont::SansSerif;
        } else if (family == QLatin1String("serif")) {
            hint = QFont::Serif;
        } else if (family == QLatin1String("monospace")) {
            hint = QFont::Monospace;
        } else {
            families << family;
        }
    }
    QFont font;
    if (!families.isEmpty()) font.setFamilies(families);
    font.setStyleHint(hint);
    font.setPixelSize(kShapePx);
    font.setHintingPreference(QFont::PreferNoHinting); // shapes must not depend on the scale
    return font;
}

namespace {

/// Draws the texts of a scene with fonts and metrics made once, setting font, pen and transform
/// only (no save/restore per text): text is most of the cost of painting a chart's labels.
class TextPainter {
  public:
    TextPainter(QPainter& painter, const QFont& baseFont)
        : m_painter(painter), m_base(painter.worldTransform()) {
        for (int bold = 0; bold < 2; ++bold) {
            m_fonts[bold] = baseFont;
            m_fonts[bold].setBold(bold == 1);
            m_metrics[bold].emplace(m_fonts[bold]);
        }
    }
    ~TextPainter() { m_painter.setWorldTransform(m_base); }

    void draw(const SceneText& text) {
        if (text.text.empty() || text.size <= 0 || text.color.a == 0) return;
        const int bold = text.bold ? 1 : 0;
        const QString s = QString::fromStdString(text.text);
        const double k = text.size / kShapePx;
        const double advance = m_metrics[bold]->horizontalAdvance(s);
        // The layout placed this text by core's width estimate; a font that runs wider than that
        // (no Helvetica on the machine) is condensed to it, so labels never spill out of their
        // bars or over their neighbours.
        const double budget = estimateTextWidth(text.text, text.size, text.bold);
        const double squeeze = advance * k > budget && advance > 0 ? budget / (advance * k) : 1.0;
        double dx = 0;
        switch (text.anchor) {
        case TextAnchor::Start:
            break;
        case TextAnchor::Middle:
            dx = -advance / 2;
            break;
        case TextAnchor::End:
            dx = -advance;
            break;
        }
        m_painter.setWorldTransform(QTransform(k * squeeze, 0, 0, k, text.x, text.y) * m_base);
        if (m_font != bold) {
            m_painter.setFont(m_fonts[bold]);
            m_font = bold;
        }
        if (!m_color || !(*m_color == text.color)) {
            m_painter.setPen(sceneColor(text.color));
            m_color = text.color;
        }
        m_painter.drawText(QPointF(dx, 0), s);
    }

  private:
    QPainter& m_painter;
    QTransform m_base;
    std::array<QFont, 2> m_fonts;
    std::array<std::optional<QFontMetricsF>, 2> m_metrics;
    int m_font = -1;
    std::optional<Color> m_color;
};

} // namespace

void paintSceneText(QPainter& painter, const SceneText& text, const QFont& baseFont) {
    painter.save();
    TextPainter(painter, baseFont).draw(text);
    painter.restore();
}

void paintScene(QPainter& painter, const Scene& scene, const QRectF* visible, const PaintOptions& options) {
    painter.save();
    const QTransform transform = painter.worldTransform();
    if (options.snapRectsToPixels && transform.type() <= QTransform::TxScale) {
        painter.resetTransform();
        paintSnappedRects(painter, scene, visible, transform);
        painter.setWorldTransform(transform);
    } else {
        // Pen and brush change only when a rect's style does: state changes cost more than the
        // rects of a big chart.
        std::optional<QColor> lastFill, lastStroke;
        double lastWidth = -1;
        for (const SceneRect& r : scene.rects) {
            if (!intersects(visible, r.x, r.y, r.w, r.h)) continue;
            const QColor fill = sceneColor(r.fill);
            const QColor stroke = sceneColor(r.stroke);
            const bool hasStroke = r.strokeWidth > 0 && stroke.alpha() > 0;
            if (fill.alpha() == 0 && !hasStroke) continue;
            if (!hasStroke) {
                if (lastWidth != 0) painter.setPen(Qt::NoPen);
                lastWidth = 0;
            } else if (!lastStroke || stroke != *lastStroke || r.strokeWidth != lastWidth) {
                QPen pen(stroke, r.strokeWidth);
                pen.setJoinStyle(Qt::MiterJoin);
                painter.setPen(pen);
                lastStroke = stroke;
                lastWidth = r.strokeWidth;
            }
            if (!lastFill || fill != *lastFill) {
                painter.setBrush(fill.alpha() > 0 ? QBrush(fill) : QBrush(Qt::NoBrush));
                lastFill = fill;
            }
            painter.drawRect(QRectF(r.x, r.y, r.w, r.h));
        }
    }
    painter.setBrush(Qt::NoBrush);
    for (const SceneLine& l : scene.lines) {
        const double x = std::min(l.x1, l.x2), y = std::min(l.y1, l.y2);
        if (!intersects(visible, x, y, std::abs(l.x2 - l.x1), std::abs(l.y2 - l.y1))) continue;
        QPen pen(sceneColor(l.color), l.width);
        pen.setCapStyle(Qt::FlatCap);
        if (l.dashed) pen.setDashPattern({3.0, 2.0});
        painter.setPen(pen);
        painter.drawLine(QPointF(l.x1, l.y1), QPointF(l.x2, l.y2));
    }
    if (!scene.texts.empty()) {
        TextPainter texts(painter, sceneFont(scene.fontFamily));
        for (const SceneText& t : scene.texts) {
            // Texts are small; a generous box around the anchor is enough to cull them.
            const double reach = t.size * double(t.text.size());
            if (!intersects(visible, t.x - reach, t.y - t.size, 2 * reach, 2 * t.size)) continue;
            texts.draw(t);
        }
    }
    painter.restore();
}

} // namespace stagecraft::render
