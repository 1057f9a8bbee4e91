#include "render/scene_painter.h"

#include "layout/text_metrics.h"

#include <QFont>
#include <QFontMetricsF>
#include <QPainter>
#include <QPen>
#include <algorithm>
#include <cmath>

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

void paintSceneText(QPainter& painter, const SceneText& text, const QFont& baseFont) {
    if (text.text.empty() || text.size <= 0 || text.color.a == 0) return;
    QFont font = baseFont;
    font.setBold(text.bold);
    const QString s = QString::fromStdString(text.text);
    const QFontMetricsF metrics(font);
    const double k = text.size / kShapePx;
    const double advance = metrics.horizontalAdvance(s);
    // The layout placed this text by core's width estimate; a font that runs wider than that
    // (no Helvetica on the machine) is condensed to it, so labels never spill out of their bars
    // or over their neighbours.
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
    painter.save();
    painter.translate(text.x, text.y);
    painter.scale(k * squeeze, k);
    painter.setFont(font);
    painter.setPen(sceneColor(text.color));
    painter.drawText(QPointF(dx, 0), s);
    painter.restore();
}

void paintScene(QPainter& painter, const Scene& scene, const QRectF* visible) {
    painter.save();
    for (const SceneRect& r : scene.rects) {
        if (!intersects(visible, r.x, r.y, r.w, r.h)) continue;
        const QColor fill = sceneColor(r.fill);
        const QColor stroke = sceneColor(r.stroke);
        if (fill.alpha() == 0 && (stroke.alpha() == 0 || r.strokeWidth <= 0)) continue;
        if (r.strokeWidth > 0 && stroke.alpha() > 0) {
            QPen pen(stroke, r.strokeWidth);
            pen.setJoinStyle(Qt::MiterJoin);
            painter.setPen(pen);
        } else {
            painter.setPen(Qt::NoPen);
        }
        painter.setBrush(fill.alpha() > 0 ? QBrush(fill) : QBrush(Qt::NoBrush));
        painter.drawRect(QRectF(r.x, r.y, r.w, r.h));
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
    const QFont font = sceneFont(scene.fontFamily);
    for (const SceneText& t : scene.texts) {
        // Texts are small; a generous box around the anchor is enough to cull them.
        const double reach = t.size * double(t.text.size());
        if (!intersects(visible, t.x - reach, t.y - t.size, 2 * reach, 2 * t.size)) continue;
        paintSceneText(painter, t, font);
    }
    painter.restore();
}

} // namespace stagecraft::render
