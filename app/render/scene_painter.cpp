#include "render/scene_painter.h"

#include <QFont>
#include <QFontMetricsF>
#include <QPainter>
#include <QPen>

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

QColor sceneColor(const std::string& css) {
    if (css.empty() || css == "none") return QColor(Qt::transparent);
    // Qt reads "#aarrggbb"; scenes follow SVG/CSS with alpha last.
    if (css.size() == 9 && css[0] == '#') {
        QColor c(QString::fromStdString(css.substr(0, 7)));
        c.setAlpha(QString::fromStdString(css.substr(7, 2)).toInt(nullptr, 16));
        return c;
    }
    QColor c(QString::fromStdString(css));
    return c.isValid() ? c : QColor(Qt::magenta); // visible on purpose: an unknown palette colour
}

void paintSceneText(QPainter& painter, const SceneText& text, const std::string& fontFamily) {
    if (text.text.empty() || text.size <= 0) return;
    QFont font(QString::fromStdString(fontFamily));
    font.setPixelSize(kShapePx);
    font.setBold(text.bold);
    font.setHintingPreference(QFont::PreferNoHinting); // shapes must not depend on the scale
    const QString s = QString::fromStdString(text.text);
    const QFontMetricsF metrics(font);
    double dx = 0;
    switch (text.anchor) {
    case TextAnchor::Start:
        break;
    case TextAnchor::Middle:
        dx = -metrics.horizontalAdvance(s) / 2;
        break;
    case TextAnchor::End:
        dx = -metrics.horizontalAdvance(s);
        break;
    }
    painter.save();
    painter.translate(text.x, text.y);
    const double k = text.size / kShapePx;
    painter.scale(k, k);
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
    for (const SceneText& t : scene.texts) {
        // Texts are small; a generous box around the anchor is enough to cull them.
        const double reach = t.size * double(t.text.size());
        if (!intersects(visible, t.x - reach, t.y - t.size, 2 * reach, 2 * t.size)) continue;
        paintSceneText(painter, t, scene.fontFamily);
    }
    painter.restore();
}

} // namespace stagecraft::render
