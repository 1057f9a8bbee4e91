#include "gui/gantt_view.h"

#include "error.h"
#include "layout/draw_list.h"
#include "layout/palette.h"
#include "render/scene_painter.h"

#include <QBrush>
#include <QKeyEvent>
#include <QPainter>
#include <QPainterPath>
#include <QRubberBand>
#include <QScrollBar>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace stagecraft::gui {
namespace {

constexpr double kMinZoom = 1.0;
constexpr double kMaxZoom = 4096.0;
constexpr double kWheelStep = 1.25;
constexpr int kArrowStepPx = 60;

bool isBar(const SceneRect& r) {
    return isEventBar(r);
}

} // namespace

GanttView::GanttView(QWidget* parent) : QAbstractScrollArea(parent) {
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setMouseTracking(true);
    viewport()->setBackgroundRole(QPalette::Base);
    viewport()->setAutoFillBackground(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setMinimumSize(320, 200);
}

void GanttView::setResult(AnalysisPtr result) {
    m_result = std::move(result);
    m_dependencies.clear();
    m_criticalPaths.clear();
    m_idleGaps.clear();
    m_selection.reset();
    m_producers.clear();
    m_consumers.clear();
    relayout();
}

void GanttView::setSettings(const ChartSettings& settings) {
    m_settings = settings;
    relayout();
}

QPointF GanttView::toScene(const QPoint& p) const {
    return QPointF((p.x() + horizontalScrollBar()->value()) / m_k,
                   (p.y() + verticalScrollBar()->value()) / m_k);
}

QPointF GanttView::fromScene(const QPointF& p) const {
    return QPointF(p.x() * m_k - horizontalScrollBar()->value(), p.y() * m_k - verticalScrollBar()->value());
}

void GanttView::relayout() {
    // Charts are laid out in points; on screen a point is logicalDpi/72 pixels, so the chart
    // reads at the size it prints.
    // A little larger than print size: screens are read from further away than paper.
    m_k = std::max(1.0, logicalDpiX() / 72.0 * 1.15);
    const double width = std::max(220.0, (viewport()->width() * m_zoom - 1.0) / m_k);
    m_layoutError.clear();
    try {
        // Hover text comes from the events (toolTipAt), not from strings on every bar.
        ChartSettings screen = m_settings;
        screen.tooltips = false;
        m_scene = m_result ? buildChartScene(*m_result, screen, width) : Scene{};
    } catch (const Error& e) {
        m_scene = Scene{};
        m_layoutError = QString::fromStdString(e.message());
    }
    m_geometryBuilt = false;
    m_eventRects.clear();
    m_deviceRows.clear();
    buildRows();
    updateScrollBars();
    viewport()->update();
}

void GanttView::buildRows() {
    m_rows.clear();
    m_otherBars.clear();
    m_decor = Scene{};
    if (m_scene.rects.size() <= kFoldAbove || !m_result) return;
    m_decor.width = m_scene.width;
    m_decor.height = m_scene.height;
    m_decor.fontFamily = m_scene.fontFamily;
    m_decor.lines = m_scene.lines;
    m_decor.texts = m_scene.texts;
    // One row per (panel, device): compute bars in time order.
    std::map<std::pair<int, int>, std::size_t> rowOf;
    for (std::size_t i = 0; i < m_scene.rects.size(); ++i) {
        const SceneRect& r = m_scene.rects[i];
        if (!isBar(r)) {
            if (r.kind == kMeasuredKind)
                m_otherBars.push_back(int(i));
            else
                m_decor.rects.push_back(r);
            continue;
        }
        const auto& events = m_result->outcomes[std::size_t(r.panel)].prediction.timeline.events;
        const TimelineEvent& e = events[std::size_t(r.event)];
        if (r.role != RectRole::Op || e.lane != Lane::Compute) {
            m_otherBars.push_back(int(i));
            continue;
        }
        auto [it, added] = rowOf.try_emplace({r.panel, e.device}, m_rows.size());
        if (added) m_rows.push_back(Row{r.panel, r.y, r.h, {}, {}});
        Row& row = m_rows[it->second];
        row.events.push_back(e);
        row.rects.push_back(int(i));
    }
    for (Row& row : m_rows) {
        // Devices run their ops in order, so rows are nearly always sorted already.
        std::vector<std::size_t> order(row.events.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return row.events[a].start < row.events[b].start;
        });
        Row sorted{row.panel, row.y, row.h, {}, {}};
        sorted.events.reserve(order.size());
        sorted.rects.reserve(order.size());
        for (std::size_t i : order) {
            sorted.events.push_back(row.events[i]);
            sorted.rects.push_back(row.rects[i]);
        }
        row = std::move(sorted);
    }
}

void GanttView::updateScrollBars() {
    const QSize vp = viewport()->size();
    horizontalScrollBar()->setRange(0, std::max(0, int(std::ceil(m_scene.width * m_k)) - vp.width()));
    horizontalScrollBar()->setPageStep(vp.width());
    horizontalScrollBar()->setSingleStep(kArrowStepPx);
    verticalScrollBar()->setRange(0, std::max(0, int(std::ceil(m_scene.height * m_k)) - vp.height()));
    verticalScrollBar()->setPageStep(vp.height());
    verticalScrollBar()->setSingleStep(20);
}

std::pair<double, double> GanttView::timeMapping() const {
    if (!m_result) return {0, 0};
    for (const SceneRect& r : m_scene.rects) {
        if (!isBar(r) || std::size_t(r.panel) >= m_result->outcomes.size()) continue;
        const auto& events = m_result->outcomes[std::size_t(r.panel)].prediction.timeline.events;
        if (std::size_t(r.event) >= events.size()) continue;
        const TimelineEvent& e = events[std::size_t(r.event)];
        if (e.duration() > 0 && r.w > 0) {
            const double b = r.w / e.duration();
            return {r.x - b * e.start, b};
        }
    }
    return {0, 0};
}

void GanttView::zoomBy(double factor, double anchorX) {
    const double zoom = std::clamp(m_zoom * factor, kMinZoom, kMaxZoom);
    if (zoom == m_zoom) return;
    const auto [a0, b0] = timeMapping();
    const double sceneX = (anchorX + horizontalScrollBar()->value()) / m_k;
    const double t = b0 > 0 ? (sceneX - a0) / b0 : 0;
    m_zoom = zoom;
    relayout();
    const auto [a1, b1] = timeMapping();
    if (b1 > 0) horizontalScrollBar()->setValue(int(std::lround((a1 + b1 * t) * m_k - anchorX)));
    emit zoomChanged(m_zoom);
}

void GanttView::zoomIn() {
    zoomBy(kWheelStep * kWheelStep, viewport()->width() / 2.0);
}
void GanttView::zoomOut() {
    zoomBy(1.0 / (kWheelStep * kWheelStep), viewport()->width() / 2.0);
}

void GanttView::fit() {
    m_zoom = 1.0;
    relayout();
    horizontalScrollBar()->setValue(0);
    verticalScrollBar()->setValue(0);
    emit zoomChanged(m_zoom);
}

void GanttView::resizeEvent(QResizeEvent* event) {
    QAbstractScrollArea::resizeEvent(event);
    const double fraction = m_scene.width > 0 ? horizontalScrollBar()->value() / (m_scene.width * m_k) : 0;
    relayout();
    horizontalScrollBar()->setValue(int(fraction * m_scene.width * m_k));
}

void GanttView::scrollContentsBy(int, int) {
    viewport()->update();
}

int GanttView::rectOfEvent(int panel, int event) const {
    for (std::size_t i = 0; i < m_scene.rects.size(); ++i) {
        const SceneRect& r = m_scene.rects[i];
        if (r.panel == panel && r.event == event && isBar(r)) return int(i);
    }
    return -1;
}

int GanttView::rectAt(const QPoint& viewportPos) const {
    const QPointF p = toScene(viewportPos);
    // Last drawn wins, as on screen; a bar narrower than 3 px is hit within 1.5 px.
    for (std::size_t i = m_scene.rects.size(); i-- > 0;) {
        const SceneRect& r = m_scene.rects[i];
        if (!isBar(r)) continue;
        const double slack = r.w * m_k < 3 ? 1.5 / m_k : 0;
        if (p.x() >= r.x - slack && p.x() <= r.x + r.w + slack && p.y() >= r.y && p.y() <= r.y + r.h)
            return int(i);
    }
    return -1;
}

QString GanttView::toolTipAt(const QPoint& viewportPos) const {
    const int i = rectAt(viewportPos);
    if (i < 0 && m_result) return idleToolTipAt(toScene(viewportPos));
    if (i < 0 || !m_result) return {};
    const SceneRect& r = m_scene.rects[std::size_t(i)];
    if (std::size_t(r.panel) >= m_result->outcomes.size()) return {};
    const ScheduleOutcome& o = m_result->outcomes[std::size_t(r.panel)];
    const auto& events = o.prediction.timeline.events;
    if (std::size_t(r.event) >= events.size()) return QString::fromStdString(r.tooltip).toHtmlEscaped();
    QString text = QStringLiteral("<b>%1</b><br>").arg(QString::fromStdString(o.title).toHtmlEscaped()) +
                   describeEvent(events[std::size_t(r.event)], o.prediction.report.unitless)
                       .toHtmlEscaped()
                       .replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    if (events[std::size_t(r.event)].lane == Lane::Compute)
        text += QStringLiteral("<br>") +
                memoryAfterText(o.prediction, events[std::size_t(r.event)]).toHtmlEscaped();
    if (m_result->overlay && m_result->overlay->outcome == std::size_t(r.panel) && m_result->measured) {
        // The measured counterpart, when the trace has one.
        const TimelineEvent& p = events[std::size_t(r.event)];
        for (const TimelineEvent& m : m_result->measured->events)
            if (m.op == p.op && m.device == p.device && m.lane == p.lane) {
                text += QStringLiteral("<br><span style='color:#d62728'>measured: ") +
                        describeEvent(m, false).section(QLatin1Char('\n'), 1).toHtmlEscaped() +
                        QStringLiteral("</span>");
                break;
            }
    }
    return text;
}

void GanttView::selectEvent(int panel, int event) {
    m_selection = std::make_pair(panel, event);
    m_producers.clear();
    m_consumers.clear();
    if (m_result && panel >= 0 && std::size_t(panel) < m_result->outcomes.size()) {
        auto& deps = m_dependencies[panel];
        if (!deps) {
            const Prediction& p = m_result->outcomes[std::size_t(panel)].prediction;
            deps = std::make_unique<EventDependencies>(p);
        }
        m_producers = deps->producers(event);
        m_consumers = deps->consumers(event);
        emit panelActivated(panel);
    }
    viewport()->update();
}

void GanttView::clearSelection() {
    m_selection.reset();
    m_producers.clear();
    m_consumers.clear();
    viewport()->update();
}

void GanttView::paintHighlights(QPainter& painter) const {
    if (!m_selection) return;
    const int self = rectOfEvent(m_selection->first, m_selection->second);
    if (self < 0) return;
    const SceneRect& s = m_scene.rects[std::size_t(self)];
    auto outline = [&](const SceneRect& r, const QColor& color, Qt::PenStyle style) {
        QPen pen(color, 1.6, style);
        pen.setJoinStyle(Qt::MiterJoin);
        painter.setPen(pen);
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(QRectF(r.x - 1, r.y - 1, r.w + 2, r.h + 2));
    };
    auto arrow = [&](QPointF from, QPointF to, const QColor& color, Qt::PenStyle style) {
        painter.setPen(QPen(color, 1.3, style));
        QPainterPath path(from);
        const double mid = (from.x() + to.x()) / 2;
        path.cubicTo(QPointF(mid, from.y()), QPointF(mid, to.y()), to);
        painter.setBrush(Qt::NoBrush);
        painter.drawPath(path);
        painter.setBrush(color);
        painter.setPen(Qt::NoPen);
        const double dir = to.x() >= mid ? 1 : -1;
        painter.drawPolygon(QPolygonF{to, to + QPointF(-5 * dir, -3), to + QPointF(-5 * dir, 3)});
    };
    const QColor producer(0x11, 0x11, 0x11);
    const QColor consumer(0x6a, 0x3d, 0x9a);
    for (int e : m_producers) {
        const int i = rectOfEvent(m_selection->first, e);
        if (i < 0) continue;
        const SceneRect& r = m_scene.rects[std::size_t(i)];
        outline(r, producer, Qt::SolidLine);
        arrow(QPointF(r.x + r.w, r.y + r.h / 2), QPointF(s.x, s.y + s.h / 2), producer, Qt::SolidLine);
    }
    for (int e : m_consumers) {
        const int i = rectOfEvent(m_selection->first, e);
        if (i < 0) continue;
        const SceneRect& r = m_scene.rects[std::size_t(i)];
        outline(r, consumer, Qt::DashLine);
        arrow(QPointF(s.x + s.w, s.y + s.h / 2), QPointF(r.x, r.y + r.h / 2), consumer, Qt::DashLine);
    }
    outline(s, QColor(0xff, 0xc1, 0x07), Qt::SolidLine);
}

void GanttView::paintEvent(QPaintEvent*) {
    QPainter painter(viewport());
    painter.fillRect(viewport()->rect(), Qt::white);
    m_lastPaintFolded = false;
    m_lastPaintItems = 0;
    if (m_scene.rects.empty() && m_scene.texts.empty()) {
        painter.setPen(QColor(0x70, 0x70, 0x70));
        const QString text =
            !m_layoutError.isEmpty()
                ? tr("The chart cannot be drawn: %1").arg(m_layoutError)
                : tr("No schedule to show.\nCheck one in the Schedules panel, or open a project "
                     "(Ctrl+O).");
        painter.drawText(viewport()->rect().adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap,
                         text);
        return;
    }
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.translate(-horizontalScrollBar()->value(), -verticalScrollBar()->value());
    painter.scale(m_k, m_k);
    const QPointF topLeft = toScene(QPoint(0, 0));
    const QRectF visible(topLeft, QSizeF(viewport()->width() / m_k, viewport()->height() / m_k));
    if (m_rows.empty()) {
        render::paintScene(painter, m_scene, &visible);
        m_lastPaintItems = m_scene.rects.size();
    } else {
        paintFolded(painter, visible);
    }
    paintOverlays(painter, visible);
    paintHighlights(painter);
}

void GanttView::setShowCriticalPath(bool on) {
    m_showCriticalPath = on;
    viewport()->update();
}

void GanttView::setShowIdleCauses(bool on) {
    m_showIdleCauses = on;
    viewport()->update();
}

const std::vector<std::size_t>& GanttView::criticalPathEvents(int panel) const {
    auto [it, added] = m_criticalPaths.try_emplace(panel);
    if (added && m_result && panel >= 0 && std::size_t(panel) < m_result->outcomes.size())
        it->second = gui::criticalPathOf(m_result->outcomes[std::size_t(panel)].prediction);
    return it->second;
}

const std::vector<IdleInterval>& GanttView::idleGaps(int panel) const {
    auto [it, added] = m_idleGaps.try_emplace(panel);
    if (added && m_result && panel >= 0 && std::size_t(panel) < m_result->outcomes.size())
        it->second = idleIntervalsOf(m_result->outcomes[std::size_t(panel)].prediction);
    return it->second;
}

void GanttView::ensureGeometry() const {
    if (m_geometryBuilt || !m_result) return;
    m_geometryBuilt = true;
    for (std::size_t i = 0; i < m_scene.rects.size(); ++i) {
        const SceneRect& r = m_scene.rects[i];
        if (!isBar(r) || std::size_t(r.panel) >= m_result->outcomes.size()) continue;
        const auto& events = m_result->outcomes[std::size_t(r.panel)].prediction.timeline.events;
        if (std::size_t(r.event) >= events.size()) continue;
        auto& rects = m_eventRects[r.panel];
        if (rects.empty()) rects.assign(events.size(), -1);
        rects[std::size_t(r.event)] = int(i);
        const TimelineEvent& e = events[std::size_t(r.event)];
        if (r.role == RectRole::Op && e.lane == Lane::Compute)
            m_deviceRows.try_emplace({r.panel, e.device}, r.y, r.h);
    }
}

QRectF GanttView::idleRect(int panel, const IdleInterval& iv) const {
    ensureGeometry();
    const auto row = m_deviceRows.find({panel, iv.device});
    const auto [a, b] = timeMapping();
    if (row == m_deviceRows.end() || b <= 0) return {};
    return QRectF(a + b * iv.start, row->second.first, b * iv.duration(), row->second.second);
}

void GanttView::paintOverlays(QPainter& painter, const QRectF& visible) {
    m_lastPaintCriticalBars = 0;
    m_lastPaintIdleGaps = 0;
    if (!m_result || (!m_showCriticalPath && !m_showIdleCauses)) return;
    ensureGeometry();
    const auto [a, b] = timeMapping();
    for (std::size_t panel = 0; panel < m_result->outcomes.size(); ++panel) {
        if (m_showIdleCauses && b > 0) {
            painter.setPen(Qt::NoPen);
            for (const IdleInterval& iv : idleGaps(int(panel))) {
                const auto row = m_deviceRows.find({int(panel), iv.device});
                if (row == m_deviceRows.end()) continue;
                const QRectF r(a + b * iv.start, row->second.first, b * iv.duration(), row->second.second);
                if (!r.intersects(visible)) continue;
                QColor tint = idleColor(iv.cause);
                tint.setAlpha(40);
                painter.fillRect(r, tint);
                QBrush hatch(idleColor(iv.cause), Qt::BDiagPattern);
                // Hatching in device pixels keeps its density at every zoom.
                hatch.setTransform(QTransform::fromScale(1 / m_k, 1 / m_k));
                painter.fillRect(r, hatch);
                ++m_lastPaintIdleGaps;
            }
        }
        if (m_showCriticalPath) {
            const auto rects = m_eventRects.find(int(panel));
            if (rects == m_eventRects.end()) continue;
            QPen pen(QColor(0xd6, 0x27, 0x28), 1.8);
            pen.setJoinStyle(Qt::MiterJoin);
            painter.setPen(pen);
            painter.setBrush(Qt::NoBrush);
            const SceneRect* previous = nullptr;
            for (const std::size_t e : criticalPathEvents(int(panel))) {
                const int i = e < rects->second.size() ? rects->second[e] : -1;
                if (i < 0) continue;
                const SceneRect& r = m_scene.rects[std::size_t(i)];
                const QRectF box(r.x, r.y, r.w, r.h);
                if (box.intersects(visible)) {
                    painter.drawRect(box);
                    ++m_lastPaintCriticalBars;
                }
                if (previous && previous->y != r.y)
                    painter.drawLine(QPointF(previous->x + previous->w, previous->y + previous->h / 2),
                                     QPointF(r.x, r.y + r.h / 2));
                previous = &r;
            }
        }
    }
}

QString GanttView::idleToolTipAt(const QPointF& p) const {
    if (!m_showIdleCauses || !m_result) return {};
    ensureGeometry();
    const auto [a, b] = timeMapping();
    if (b <= 0) return {};
    const double t = (p.x() - a) / b;
    for (const auto& [key, row] : m_deviceRows) {
        if (p.y() < row.first || p.y() > row.first + row.second) continue;
        const auto& o = m_result->outcomes[std::size_t(key.first)];
        for (const IdleInterval& iv : idleGaps(key.first))
            if (iv.device == key.second && t >= iv.start && t <= iv.end)
                return QStringLiteral("<b>%1</b> · D%2<br>")
                           .arg(QString::fromStdString(o.title).toHtmlEscaped())
                           .arg(iv.device) +
                       describeIdle(iv, o.prediction.timeline, o.prediction.report.unitless).toHtmlEscaped();
    }
    return {};
}

void GanttView::paintFolded(QPainter& painter, const QRectF& visible) {
    // Level of detail (Tracy's draw lists, core/layout/draw_list.h): per visible row, bars wide
    // enough to see are drawn as laid out and runs of narrower ones fold into one box. The work
    // is proportional to what is visible, not to the schedule. Decoration, lines and labels are
    // the scene's own; texts come last so labels stay over the bars.
    m_lastPaintFolded = true;
    Scene frame;
    frame.width = m_scene.width;
    frame.height = m_scene.height;
    frame.fontFamily = m_scene.fontFamily;
    frame.rects = m_decor.rects;
    const auto [a, b] = timeMapping();
    if (b > 0) {
        DrawWindow window;
        window.t0 = (visible.left() - a) / b;
        window.t1 = (visible.right() - a) / b;
        window.pxPerUs = b * m_k;
        window.minPx = 3;
        for (const Row& row : m_rows) {
            if (row.y > visible.bottom() || row.y + row.h < visible.top() || row.events.empty()) continue;
            for (const DrawItem& item : buildDrawList(row.events, window)) {
                const SceneRect& first = m_scene.rects[std::size_t(row.rects[item.first])];
                if (item.type == DrawItem::Type::Event) {
                    frame.rects.push_back(first);
                    continue;
                }
                SceneRect fold = first;
                fold.x = a + b * item.start;
                fold.w = std::max(b * (item.end - item.start), 1.0 / m_k);
                // A fold is darker than its bars: it stands for many of them.
                fold.fill = mixColor(first.fill, Color{0x30, 0x30, 0x30, 255}, 0.35);
                fold.stroke = Color{0, 0, 0, 0};
                fold.tooltip = std::to_string(item.count) + " ops";
                frame.rects.push_back(fold);
            }
        }
    }
    for (int i : m_otherBars) frame.rects.push_back(m_scene.rects[std::size_t(i)]);
    m_lastPaintItems = frame.rects.size() - m_decor.rects.size();
    frame.lines = m_decor.lines;
    frame.texts = m_decor.texts;
    render::paintScene(painter, frame, &visible);
}

void GanttView::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (event->modifiers() & Qt::ShiftModifier || steps == 0) {
        // Shift+wheel (or a horizontal wheel) pans.
        const int dx = event->angleDelta().x() != 0 ? -event->angleDelta().x() : -event->angleDelta().y();
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() + dx);
        event->accept();
        return;
    }
    zoomBy(std::pow(kWheelStep, steps), event->position().x());
    event->accept();
}

void GanttView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        return;
    case Qt::Key_Minus:
        zoomOut();
        return;
    case Qt::Key_F:
        fit();
        return;
    case Qt::Key_Left:
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - kArrowStepPx);
        return;
    case Qt::Key_Right:
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() + kArrowStepPx);
        return;
    case Qt::Key_Up:
        verticalScrollBar()->setValue(verticalScrollBar()->value() - 20);
        return;
    case Qt::Key_Down:
        verticalScrollBar()->setValue(verticalScrollBar()->value() + 20);
        return;
    case Qt::Key_Escape:
        clearSelection();
        return;
    default:
        QAbstractScrollArea::keyPressEvent(event);
    }
}

void GanttView::mousePressEvent(QMouseEvent* event) {
    m_pressPos = m_lastPos = event->pos();
    m_moved = false;
    const bool band = event->button() == Qt::RightButton ||
                      (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier));
    if (band) {
        m_drag = Drag::Band;
        if (!m_band) m_band = new QRubberBand(QRubberBand::Rectangle, viewport());
        m_band->setGeometry(QRect(m_pressPos, QSize()));
        m_band->show();
    } else if (event->button() == Qt::LeftButton) {
        m_drag = Drag::Pan;
        viewport()->setCursor(Qt::ClosedHandCursor);
    }
    event->accept();
}

void GanttView::mouseMoveEvent(QMouseEvent* event) {
    if ((event->pos() - m_pressPos).manhattanLength() > 3) m_moved = true;
    if (m_drag == Drag::Pan) {
        const QPoint d = event->pos() - m_lastPos;
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - d.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
    } else if (m_drag == Drag::Band && m_band) {
        const QRect r = QRect(m_pressPos, event->pos()).normalized();
        m_band->setGeometry(QRect(r.left(), 0, r.width(), viewport()->height()));
    }
    m_lastPos = event->pos();
    event->accept();
}

void GanttView::mouseReleaseEvent(QMouseEvent* event) {
    const Drag drag = m_drag;
    m_drag = Drag::None;
    viewport()->unsetCursor();
    if (drag == Drag::Band && m_band) {
        m_band->hide();
        const int x0 = std::min(m_pressPos.x(), event->pos().x());
        const int x1 = std::max(m_pressPos.x(), event->pos().x());
        if (x1 - x0 >= 4) {
            // Zoom so the band's time range fills the viewport, its left edge at the left.
            const auto [a0, b0] = timeMapping();
            if (b0 > 0) {
                const double t0 = (toScene(QPoint(x0, 0)).x() - a0) / b0;
                const double plotPx = std::max(50.0, viewport()->width() - a0 * m_k - 10.0);
                const double factor = plotPx / double(x1 - x0);
                m_zoom = std::clamp(m_zoom * factor, kMinZoom, kMaxZoom);
                relayout();
                const auto [a1, b1] = timeMapping();
                // The band's start lands where the time axis starts at fit.
                horizontalScrollBar()->setValue(int(std::lround(b1 * t0 * m_k)));
                emit zoomChanged(m_zoom);
            }
        }
    } else if (drag == Drag::Pan && !m_moved) {
        const int i = rectAt(event->pos());
        if (i >= 0) {
            const SceneRect& r = m_scene.rects[std::size_t(i)];
            selectEvent(r.panel, r.event);
        } else {
            clearSelection();
        }
    }
    event->accept();
}

bool GanttView::viewportEvent(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, viewport());
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

} // namespace stagecraft::gui
