#include "gui/gantt_view.h"

#include "error.h"
#include "eval/selection_links.h"
#include "gui/chart_drag_editor.h"
#include "gui/chart_ghost.h"
#include "gui/models/release_off_thread.h"
#include "layout/palette.h"
#include "layout/text_metrics.h"
#include "render/scene_painter.h"

#include <QBrush>
#include <QFontMetrics>
#include <QKeyEvent>
#include <QPainter>
#include <QPainterPath>
#include <QRubberBand>
#include <QScrollBar>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

namespace stagecraft::gui {
namespace {

constexpr double kWheelStep = 1.25;
constexpr int kArrowStepPx = 60;
constexpr double kMinBarPx = 3; ///< bars narrower fold; hover reaches them within half of it

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

void GanttView::setResult(AnalysisPtr result, std::shared_ptr<WindowedChart> prepared) {
    if (m_drag == Drag::Edit) { // a drag's bars are the old result's: it ends here, nothing to restore
        m_drag = Drag::None;
        m_dragEditor->chartReplaced();
        viewport()->unsetCursor();
    }
    const bool fitAgain = std::exchange(m_previewFromFit, std::nullopt).value_or(false);
    replaceResult(std::move(result), std::move(prepared), fitAgain ? Mapping::Fit : Mapping::Keep);
}

void GanttView::showPreview(AnalysisPtr result) {
    if (!m_previewFromFit) m_previewFromFit = zoom() == 1.0;
    replaceResult(std::move(result), nullptr, Mapping::Hold);
}

void GanttView::replaceResult(AnalysisPtr result, std::shared_ptr<WindowedChart> prepared, Mapping mapping) {
    m_result = std::move(result);
    m_prepared = std::move(prepared);
    m_dependencies.clear();
    m_criticalPaths.clear();
    m_idleGaps.clear();
    m_idleByDevice.clear();
    m_selection.reset();
    m_producers.clear();
    m_consumers.clear();
    m_measuredOf.clear();
    if (m_result && m_result->overlay && m_result->measured &&
        m_result->overlay->outcome < m_result->outcomes.size()) {
        // Measured counterparts for the tooltips, from core's matching (the outlines use it too).
        const auto& events = m_result->outcomes[m_result->overlay->outcome].prediction.timeline.events;
        m_measuredOf.assign(events.size(), -1);
        for (const OpDeviation& d : m_result->overlay->report.ops)
            if (d.predictedEvent < events.size() && d.measuredEvent < m_result->measured->events.size())
                m_measuredOf[d.predictedEvent] = int(d.measuredEvent);
    }
    rebuild(mapping);
}

void GanttView::setSettings(const ChartSettings& settings) {
    m_settings = settings;
    rebuild();
}

void GanttView::rebuild(Mapping mapping) {
    // Charts are laid out in points; on screen a point is logicalDpi/72 pixels, so the chart
    // reads at the size it prints. A little larger than print size: screens are read from
    // further away than paper.
    m_k = std::max(1.0, logicalDpiX() / 72.0 * 1.15);
    // A new result keeps the window (scale and the time at the left edge) so edits compare in
    // place; a chart at fit stays at fit.
    const bool atFit = mapping == Mapping::Fit || (mapping == Mapping::Keep && zoom() == 1.0);
    const double pxPerUs = m_hasChart && !atFit ? m_view.mapping().pxPerUs : 0.0;
    const double leftTime = m_hasChart && !atFit ? m_view.mapping().originTime : 0.0;
    m_layoutError.clear();
    m_hasChart = false;
    m_scene.reset();
    // The old model (tens of bytes per op) is freed on a pool thread, not in this frame.
    releaseOffThread(std::make_tuple(std::exchange(m_chart, ChartComposition{}),
                                     std::exchange(m_content, ChartContent{}),
                                     std::exchange(m_rows, ChartRows{})));
    if (m_result && !m_result->outcomes.empty()) {
        try {
            // The worker's, when it drew this result under these settings; moving it keeps the
            // rows' pointers valid (they point into vectors and the result).
            std::shared_ptr<WindowedChart> w = std::move(m_prepared);
            if (!w || w->result != m_result || !(w->settings == m_settings)) {
                w = buildWindowedChart(m_result, m_settings);
                ++m_chartsBuiltHere;
            }
            m_chart = std::move(w->chart);
            m_options = w->options;
            m_content = std::move(w->content);
            m_rows = std::move(w->rows);
            m_hasChart = true;
        } catch (const Error& e) {
            m_layoutError = QString::fromStdString(e.message());
        }
    }
    m_prepared.reset();
    relayoutFrame(1.0, leftTime, pxPerUs);
}

void GanttView::relayoutFrame(double zoom, double leftTime, double pxPerUs) {
    m_scene.reset();
    m_frame = ChartFrame{};
    m_decor = Scene{};
    if (m_hasChart) {
        try {
            m_options.widthPt = std::max(220.0, (viewport()->width() - 1.0) / m_k);
            m_frame = layoutChartFrame(m_content, m_options);
            m_decor.width = m_frame.width;
            m_decor.height = m_frame.height;
            m_decor.fontFamily = m_frame.fontFamily;
            m_decor.rects.push_back(chartBackground(m_frame));
            for (std::size_t p = 0; p < m_frame.panels.size(); ++p) appendPanelDecor(m_decor, m_frame, p);
            if (m_options.legend) appendLegend(m_decor, m_frame);
            appendChartNotes(m_decor, *m_result, m_settings);
        } catch (const Error& e) {
            m_hasChart = false;
            m_frame = ChartFrame{};
            m_decor = Scene{};
            m_layoutError = QString::fromStdString(e.message());
        }
    }
    if (m_hasChart) {
        m_view.setFrame(m_frame, zoom, leftTime);
        if (pxPerUs > 0) {
            TimeMapping m = m_view.mapping();
            m.pxPerUs = pxPerUs;
            m.originTime = leftTime;
            m_view.setMapping(m);
        }
    } else {
        m_view.clear();
    }
    viewChanged();
}

double GanttView::zoom() const {
    return m_hasChart ? m_view.zoom() : 1.0;
}

void GanttView::setMapping(const TimeMapping& mapping) {
    m_view.setMapping(mapping);
    viewChanged();
}

void GanttView::viewChanged() {
    updateScrollBars();
    viewport()->update();
}

void GanttView::updateScrollBars() {
    // The horizontal bar is the time axis at the current zoom, in pixels; the vertical one the
    // frame's height. Setting them must not move the mapping back (scrollContentsBy).
    m_syncingScroll = true;
    const QSize vp = viewport()->size();
    QScrollBar* h = horizontalScrollBar();
    if (m_hasChart) {
        const double pxPerUs = m_view.mapping().pxPerUs * m_k;
        const double total = m_frame.timeEnd * pxPerUs;
        const double page = m_frame.plotWidth * m_k;
        // Deep zooms on a wide plot pass an int's range in pixels: the bar then counts in larger
        // steps (a step of a pixel or more is still finer than a hand moves it).
        m_scrollUnit = std::max(1.0, std::ceil(total / 1e9));
        h->setRange(0, std::max(0, int(std::lround((total - page) / m_scrollUnit))));
        h->setPageStep(std::max(1, int(page / m_scrollUnit)));
        h->setValue(int(std::lround(m_view.mapping().originTime * pxPerUs / m_scrollUnit)));
    } else {
        h->setRange(0, 0);
    }
    h->setSingleStep(kArrowStepPx);
    QScrollBar* v = verticalScrollBar();
    v->setRange(0, std::max(0, int(std::ceil(m_decor.height * m_k)) - vp.height()));
    v->setPageStep(vp.height());
    v->setSingleStep(20);
    m_syncingScroll = false;
}

void GanttView::scrollContentsBy(int dx, int) {
    if (!m_syncingScroll && dx != 0 && m_hasChart) {
        // The user moved the horizontal bar: its value is the left edge's time in pixels.
        m_view.setLeftTime(horizontalScrollBar()->value() * m_scrollUnit / (m_view.mapping().pxPerUs * m_k));
    }
    viewport()->update();
}

const Scene& GanttView::scene() const {
    if (!m_scene) {
        m_scene = Scene{};
        if (m_hasChart) {
            ChartSettings screen = m_settings;
            screen.tooltips = false;
            try {
                *m_scene = buildChartScene(*m_result, screen, m_frame.width);
            } catch (const Error&) {
                // The frame was laid out with these very options; nothing else can fail.
            }
        }
    }
    return *m_scene;
}

QPointF GanttView::toScene(const QPoint& p) const {
    const double y = (p.y() + verticalScrollBar()->value()) / m_k;
    if (!m_hasChart) return QPointF(p.x() / m_k, y);
    return QPointF(fitMapping().timeToX(m_view.mapping().xToTime(p.x() / m_k)), y);
}

QPointF GanttView::fromScene(const QPointF& p) const {
    const double y = p.y() * m_k - verticalScrollBar()->value();
    if (!m_hasChart) return QPointF(p.x() * m_k, y);
    return QPointF(m_view.mapping().timeToX(fitMapping().xToTime(p.x())) * m_k, y);
}

void GanttView::zoomBy(double factor, double anchorX) {
    if (!m_hasChart) return;
    const double before = zoom();
    if (!m_view.zoomAbout(anchorX / m_k, factor)) return;
    viewChanged();
    if (zoom() != before) emit zoomChanged(zoom());
}

void GanttView::zoomIn() {
    zoomBy(kWheelStep * kWheelStep, viewport()->width() / 2.0);
}
void GanttView::zoomOut() {
    zoomBy(1.0 / (kWheelStep * kWheelStep), viewport()->width() / 2.0);
}

void GanttView::fit() {
    if (m_hasChart) {
        m_view.fit();
        viewChanged();
    }
    verticalScrollBar()->setValue(0);
    emit zoomChanged(zoom());
}

void GanttView::resizeEvent(QResizeEvent* event) {
    QAbstractScrollArea::resizeEvent(event);
    relayoutFrame(zoom(), m_hasChart ? m_view.mapping().originTime : 0.0);
}

QRectF GanttView::boxOf(int panel, int event) const {
    if (!m_hasChart) return {};
    const auto box = m_rows.eventBox(m_frame, m_view.mapping(), panel, event);
    return box ? QRectF(box->x, box->y, box->w, box->h) : QRectF();
}

std::optional<ChartHit> GanttView::eventAt(const QPoint& viewportPos) const {
    if (!m_hasChart) return std::nullopt;
    const double x = viewportPos.x() / m_k;
    if (x < plotLeft() || x > plotRight()) return std::nullopt;
    const double y = (viewportPos.y() + verticalScrollBar()->value()) / m_k;
    return m_rows.eventAt(m_frame, m_view.mapping(), x, y, kMinBarPx / m_k);
}

QString GanttView::toolTipAt(const QPoint& viewportPos) const {
    const auto hit = eventAt(viewportPos);
    if (!hit) return idleToolTipAt(viewportPos);
    if (!m_result || std::size_t(hit->panel) >= m_result->outcomes.size()) return {};
    const ScheduleOutcome& o = m_result->outcomes[std::size_t(hit->panel)];
    if (hit->panel == m_chart.comparedPanel && m_chart.compared) {
        // Paired rows: core's text names the op, both sides and their difference.
        const ComparedRows& rows = *m_chart.compared;
        QString text =
            QStringLiteral("<b>%1</b><br>").arg(QString::fromStdString(o.title).toHtmlEscaped()) +
            QString::fromStdString(comparedEventText(rows, std::size_t(hit->event), m_frame.axisAtFit))
                .toHtmlEscaped()
                .replace(QLatin1Char('\n'), QStringLiteral("<br>"));
        const auto& predicted = o.prediction.timeline.events;
        if (!rows.isMeasured(std::size_t(hit->event)) &&
            predicted[std::size_t(hit->event)].lane == Lane::Compute)
            text += QStringLiteral("<br>") +
                    memoryAfterText(o.prediction, predicted[std::size_t(hit->event)]).toHtmlEscaped();
        return text;
    }
    const auto& events = o.prediction.timeline.events;
    const TimelineEvent& e = events[std::size_t(hit->event)];
    QString text = QStringLiteral("<b>%1</b><br>").arg(QString::fromStdString(o.title).toHtmlEscaped()) +
                   describeEvent(e, o.prediction.timeline.shape, o.prediction.report.unitless)
                       .toHtmlEscaped()
                       .replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    if (e.lane == Lane::Compute)
        text += QStringLiteral("<br>") + memoryAfterText(o.prediction, e).toHtmlEscaped();
    if (m_result->overlay && m_result->overlay->outcome == std::size_t(hit->panel) &&
        std::size_t(hit->event) < m_measuredOf.size() && m_measuredOf[std::size_t(hit->event)] >= 0) {
        // The measured counterpart, when the trace has one.
        const TimelineEvent& m =
            m_result->measured->events[std::size_t(m_measuredOf[std::size_t(hit->event)])];
        text += QStringLiteral("<br><span style='color:#d62728'>measured: ") +
                QString::fromStdString(eventTimesText(m, false)).toHtmlEscaped() + QStringLiteral("</span>");
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
        // What the click outlines is core's rule (eval/selection_links.h), as in the viewer: a
        // measured box of paired rows shows its prediction's dependencies on the measured boxes.
        const ComparedRows* rows = panel == m_chart.comparedPanel ? m_chart.compared.get() : nullptr;
        SelectionLinks links = selectionLinks(*deps, event, rows);
        m_producers = std::move(links.producers);
        m_consumers = std::move(links.consumers);
        emit panelActivated(panel);
    }
    viewport()->update();
}

void GanttView::revealEvent(int panel, int event) {
    selectEvent(panel, event);
    const QRectF box = boxOf(panel, event); // in chart coordinates at the current mapping
    if (box.isNull()) return;
    const double centre = (plotLeft() + plotRight()) / 2;
    setMapping(m_view.mapping().panned(centre - box.center().x()));
    const QRectF moved = boxOf(panel, event);
    const int y = int(moved.center().y() * m_k) - viewport()->height() / 2;
    verticalScrollBar()->setValue(
        std::clamp(y, verticalScrollBar()->minimum(), verticalScrollBar()->maximum()));
    viewport()->update();
}

void GanttView::setDragEditor(ChartDragEditor* editor) {
    if (m_drag == Drag::Edit) {
        m_drag = Drag::None;
        m_dragEditor->cancelDrag();
    }
    m_dragEditor = editor;
}

void GanttView::setGhost(std::optional<std::pair<int, int>> originalAndEdited) {
    if (originalAndEdited == m_ghost) return;
    m_ghost = originalAndEdited;
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
    const QRectF s = boxOf(m_selection->first, m_selection->second);
    if (s.isNull()) return;
    auto outline = [&](const QRectF& r, const QColor& color, Qt::PenStyle style) {
        QPen pen(color, 1.6, style);
        pen.setJoinStyle(Qt::MiterJoin);
        painter.setPen(pen);
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(r.adjusted(-1, -1, 1, 1));
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
        const QRectF r = boxOf(m_selection->first, e);
        if (r.isNull()) continue;
        outline(r, producer, Qt::SolidLine);
        arrow(QPointF(r.right(), r.center().y()), QPointF(s.left(), s.center().y()), producer, Qt::SolidLine);
    }
    for (int e : m_consumers) {
        const QRectF r = boxOf(m_selection->first, e);
        if (r.isNull()) continue;
        outline(r, consumer, Qt::DashLine);
        arrow(QPointF(s.right(), s.center().y()), QPointF(r.left(), r.center().y()), consumer, Qt::DashLine);
    }
    outline(s, QColor(0xff, 0xc1, 0x07), Qt::SolidLine);
}

void GanttView::paintEvent(QPaintEvent*) {
    QPainter painter(viewport());
    painter.fillRect(viewport()->rect(), Qt::white);
    m_lastPaintFolded = false;
    m_lastPaintItems = 0;
    m_lastPaintCriticalBars = 0;
    m_lastPaintIdleGaps = 0;
    if (!m_hasChart) {
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
    painter.scale(m_k, m_k);
    const double top = verticalScrollBar()->value() / m_k;
    painter.translate(0, -top);
    const QRectF visible(0, top, viewport()->width() / m_k, viewport()->height() / m_k);

    // What does not move horizontally: background, headers, row labels, legend, notes.
    const render::PaintOptions screen{true}; // whole pixels: a million-op chart repaints in a frame
    render::paintScene(painter, m_decor, &visible, screen);

    // The plot: the visible window's bars through core's draw lists, clipped to the plot.
    ChartWindow window;
    window.mapping = m_view.mapping();
    window.x0 = plotLeft();
    window.x1 = plotRight();
    window.y0 = visible.top();
    window.y1 = visible.bottom();
    window.pixelsPerUnit = m_k;
    window.minPx = kMinBarPx;
    Scene plot;
    plot.fontFamily = m_decor.fontFamily;
    const ChartWindowStats stats = m_rows.appendVisible(plot, m_frame, window);
    m_lastPaintFolded = stats.folds > 0;
    m_lastPaintItems = stats.bars + stats.folds;
    m_lastPaintGhostBars =
        m_ghost ? insertGhost(plot, m_rows, m_frame, window, m_ghost->first, m_ghost->second) : 0;
    const double t0 = m_view.mapping().xToTime(window.x0), t1 = m_view.mapping().xToTime(window.x1);
    painter.save();
    painter.setClipRect(QRectF(window.x0, visible.top(), window.x1 - window.x0, visible.height()));
    render::paintScene(painter, plot, &visible, screen);
    paintOverlays(painter, t0, t1, visible.top(), visible.bottom());
    paintHighlights(painter);
    if (m_dragEditor) m_dragEditor->paintSelection(painter);
    if (m_drag == Drag::Edit && m_dragEditor) m_dragEditor->paintDrag(painter);
    painter.restore();

    // The axis: ticks for the window, in the chart's unit. When the chart is taller than the
    // view, the ruler sticks to the view's bottom edge instead of scrolling out of sight.
    Scene axis;
    axis.fontFamily = m_decor.fontFamily;
    appendAxis(axis, m_frame, m_view.mapping(), t0, t1);
    const double axisHeight = 4 + 2.8 * m_frame.palette->fontSize;
    if (m_frame.axisY + axisHeight > visible.bottom()) {
        const double dy = visible.bottom() - axisHeight - m_frame.axisY;
        painter.fillRect(
            QRectF(visible.left(), visible.bottom() - axisHeight - 2, visible.width(), axisHeight + 2),
            Qt::white);
        painter.translate(0, dy);
        render::paintScene(painter, axis, nullptr);
        painter.translate(0, -dy);
    } else {
        render::paintScene(painter, axis, &visible);
    }
    painter.resetTransform();
    paintOverlayLegend(painter);
    paintStale(painter);
}

void GanttView::setStale(const QString& reason) {
    if (reason == m_staleReason) return;
    m_staleReason = reason;
    viewport()->update();
}

void GanttView::paintStale(QPainter& painter) {
    if (m_staleReason.isEmpty()) return;
    // Washed out, so that no number on it reads as the form's, and a banner that says why.
    painter.resetTransform();
    const QRect area = viewport()->rect();
    painter.fillRect(area, QColor(236, 236, 236, 190));
    QFont font = painter.font();
    font.setBold(true);
    painter.setFont(font);
    const int width = std::min(area.width() - 24, 720);
    QRect box = painter.fontMetrics().boundingRect(QRect(0, 0, width - 24, 10000),
                                                   Qt::AlignLeft | Qt::TextWordWrap, m_staleReason);
    box = QRect(area.center().x() - width / 2, 12, width, box.height() + 16);
    painter.setPen(QColor(0xb0, 0x8a, 0x2e));
    painter.setBrush(QColor(0xff, 0xf4, 0xce));
    painter.drawRoundedRect(box, 4, 4);
    painter.setPen(QColor(0x4a, 0x3b, 0x12));
    painter.drawText(box.adjusted(12, 8, -12, -8), Qt::AlignLeft | Qt::TextWordWrap, m_staleReason);
}

void GanttView::paintOverlayLegend(QPainter& painter) {
    // A key for every mark the overlays draw, in the view's top-right corner, so it stays in
    // sight however the chart is zoomed or scrolled.
    m_overlayLegendRect = QRect();
    if (!m_result || (!m_showCriticalPath && !m_showIdleCauses)) return;
    struct Entry {
        QString text;
        QColor color;
        bool hatched;
    };
    std::vector<Entry> entries;
    if (m_showIdleCauses)
        for (IdleCause cause :
             {IdleCause::Warmup, IdleCause::WaitingOn, IdleCause::Communication, IdleCause::Other})
            entries.push_back({cause == IdleCause::Warmup ? tr("idle: warm-up/cool-down")
                                                          : QString::fromLatin1(idleCauseName(cause)),
                               idleColor(cause), true});
    if (m_showCriticalPath) entries.push_back({tr("critical path"), QColor(0xd6, 0x27, 0x28), false});
    const QFontMetrics metrics(font());
    const int line = metrics.height() + 4, swatch = line - 6, gap = 8;
    // One row, right-aligned just above the first device row (in the first panel's title band),
    // so that the key never covers bars at fit.
    int width = 6;
    for (const Entry& e : entries) width += swatch + 4 + metrics.horizontalAdvance(e.text) + gap;
    const int height = swatch + 8;
    const int firstRow =
        m_frame.rows.empty() ? 0 : int(m_frame.rows.front().y * m_k) - verticalScrollBar()->value();
    // Right of the first panel's title and key figures when there is room, else at the right edge.
    double headerRight = 0;
    if (!m_frame.rows.empty())
        for (const SceneText& t : m_decor.texts)
            if (t.anchor == TextAnchor::Start && t.y < m_frame.rows.front().y)
                headerRight = std::max(headerRight, t.x + estimateTextWidth(t.text, t.size, t.bold));
    const int left = std::max(int(headerRight * m_k) + 12, viewport()->width() - width - 8);
    const QRect box(left + width <= viewport()->width() ? left : std::max(0, viewport()->width() - width - 8),
                    std::max(2, firstRow - height - 2), width, height);
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.setPen(QColor(0xc8, 0xc8, 0xc8));
    painter.setBrush(QColor(255, 255, 255, 230));
    painter.drawRect(box);
    int x = box.left() + 6;
    for (const Entry& e : entries) {
        const QRect sw(x, box.top() + 4, swatch, swatch);
        if (e.hatched) {
            QColor tint = e.color;
            tint.setAlpha(40);
            painter.fillRect(sw, tint);
            painter.fillRect(sw, QBrush(e.color, Qt::BDiagPattern));
            painter.setPen(e.color);
            painter.setBrush(Qt::NoBrush);
        } else {
            painter.setPen(QPen(e.color, 1.8));
            painter.setBrush(Qt::NoBrush);
        }
        painter.drawRect(sw);
        painter.setPen(QColor(0x30, 0x30, 0x30));
        painter.drawText(QPoint(sw.right() + 4, sw.top() + metrics.ascent() - 1), e.text);
        x = sw.right() + 4 + metrics.horizontalAdvance(e.text) + gap;
    }
    m_overlayLegendRect = box;
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

const std::vector<std::size_t>& GanttView::idleGapsOf(int panel, int device) const {
    static const std::vector<std::size_t> none;
    auto [it, added] = m_idleByDevice.try_emplace(panel);
    if (added) {
        // Gaps of one device do not overlap: in start order, their ends are in order too.
        const std::vector<IdleInterval>& gaps = idleGaps(panel);
        for (std::size_t i = 0; i < gaps.size(); ++i) {
            if (gaps[i].device < 0) continue;
            if (std::size_t(gaps[i].device) >= it->second.size())
                it->second.resize(std::size_t(gaps[i].device) + 1);
            it->second[std::size_t(gaps[i].device)].push_back(i);
        }
        for (auto& list : it->second)
            std::stable_sort(list.begin(), list.end(),
                             [&](std::size_t a, std::size_t b) { return gaps[a].start < gaps[b].start; });
    }
    return device >= 0 && std::size_t(device) < it->second.size() ? it->second[std::size_t(device)] : none;
}

int GanttView::rowOfDevice(int panel, int device) const {
    if (device < 0) return -1;
    return panel == m_chart.comparedPanel ? ComparedRows::predictedRow(device) : device;
}

int GanttView::deviceOfRow(int panel, int row) const {
    if (panel != m_chart.comparedPanel) return row;
    return ComparedRows::isMeasuredRow(row) ? -1 : ComparedRows::deviceOfRow(row);
}

QRectF GanttView::idleRect(int panel, const IdleInterval& iv) const {
    if (!m_hasChart || panel < 0 || std::size_t(panel) >= m_frame.panels.size()) return {};
    const ChartFramePanel& fp = m_frame.panels[std::size_t(panel)];
    const int r = rowOfDevice(panel, iv.device);
    if (r < 0 || r >= fp.rows) return {};
    const ChartFrameRow& row = m_frame.rows[std::size_t(fp.firstRow) + std::size_t(r)];
    const TimeMapping& fit = fitMapping();
    return QRectF(fit.timeToX(iv.start), row.y, fit.pxPerUs * iv.duration(), m_frame.rowHeight);
}

void GanttView::paintOverlays(QPainter& painter, double t0, double t1, double y0, double y1) {
    if (!m_result || (!m_showCriticalPath && !m_showIdleCauses)) return;
    for (std::size_t panel = 0; panel < m_frame.panels.size(); ++panel) {
        const ChartFramePanel& fp = m_frame.panels[panel];
        if (fp.rows == 0 || fp.bottom < y0 || fp.top > y1) continue;
        if (m_showIdleCauses) {
            painter.setPen(Qt::NoPen);
            const std::vector<IdleInterval>& gaps = idleGaps(int(panel));
            for (int r = 0; r < fp.rows; ++r) {
                const ChartFrameRow& row = m_frame.rows[std::size_t(fp.firstRow) + std::size_t(r)];
                const int d = deviceOfRow(int(panel), r);
                if (d < 0 || row.y > y1 || row.y + m_frame.rowHeight < y0) continue;
                const std::vector<std::size_t>& list = idleGapsOf(int(panel), d);
                // The first gap ending after t0, then on while they start before t1.
                auto it = std::partition_point(list.begin(), list.end(),
                                               [&](std::size_t i) { return gaps[i].end <= t0; });
                for (; it != list.end() && gaps[*it].start < t1; ++it) {
                    const IdleInterval& iv = gaps[*it];
                    const QRectF r(m_view.mapping().timeToX(iv.start), row.y,
                                   m_view.mapping().pxPerUs * iv.duration(), m_frame.rowHeight);
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
        }
        if (m_showCriticalPath) {
            const std::vector<std::size_t>& path = criticalPathEvents(int(panel));
            const auto& events = m_result->outcomes[panel].prediction.timeline.events;
            QPen pen(QColor(0xd6, 0x27, 0x28), 1.8);
            pen.setJoinStyle(Qt::MiterJoin);
            painter.setPen(pen);
            painter.setBrush(Qt::NoBrush);
            // The path's ops follow each other in time: search to the window, and draw from the
            // op before it to the one after it so the links crossing the edges show too.
            auto first = std::partition_point(path.begin(), path.end(), [&](std::size_t e) {
                return e < events.size() && events[e].end < t0;
            });
            if (first != path.begin()) --first;
            QRectF previous;
            for (auto it = first; it != path.end(); ++it) {
                const QRectF box = boxOf(int(panel), int(*it));
                if (box.isNull()) continue;
                if (box.right() >= m_view.mapping().timeToX(t0) &&
                    box.left() <= m_view.mapping().timeToX(t1) && box.bottom() >= y0 && box.top() <= y1) {
                    painter.drawRect(box);
                    ++m_lastPaintCriticalBars;
                }
                if (!previous.isNull() && previous.y() != box.y())
                    painter.drawLine(QPointF(previous.right(), previous.center().y()),
                                     QPointF(box.left(), box.center().y()));
                previous = box;
                if (events[*it].start > t1) break;
            }
        }
    }
}

QString GanttView::idleToolTipAt(const QPoint& viewportPos) const {
    if (!m_showIdleCauses || !m_result || !m_hasChart) return {};
    const QPointF p(viewportPos.x() / m_k, (viewportPos.y() + verticalScrollBar()->value()) / m_k);
    if (p.x() < plotLeft() || p.x() > plotRight()) return {};
    int lane = 0;
    const int row = m_frame.rowAt(p.y(), lane);
    if (row < 0 || lane != 0) return {};
    const ChartFrameRow& r = m_frame.rows[std::size_t(row)];
    const double t = m_view.mapping().xToTime(p.x());
    const std::vector<IdleInterval>& gaps = idleGaps(r.panel);
    const int device = deviceOfRow(r.panel, r.device);
    if (device < 0) return {}; // a measured row: its gaps are the run's, not the schedule's
    const std::vector<std::size_t>& list = idleGapsOf(r.panel, device);
    const auto it =
        std::partition_point(list.begin(), list.end(), [&](std::size_t i) { return gaps[i].end < t; });
    if (it == list.end() || gaps[*it].start > t) return {};
    const IdleInterval& iv = gaps[*it];
    const auto& o = m_result->outcomes[std::size_t(r.panel)];
    return QStringLiteral("<b>%1</b> · D%2<br>")
               .arg(QString::fromStdString(o.title).toHtmlEscaped())
               .arg(iv.device) +
           describeIdle(iv, o.prediction.timeline, o.prediction.report.unitless).toHtmlEscaped();
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
        if (m_drag == Drag::Edit) {
            m_drag = Drag::None;
            m_dragEditor->cancelDrag();
            viewport()->unsetCursor();
        }
        if (m_dragEditor) m_dragEditor->clearBlock();
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
    if (m_dragEditor && event->button() == Qt::LeftButton && (event->modifiers() & Qt::ControlModifier)) {
        // Edit mode's multi-select: Ctrl+click a bar, or Ctrl+drag a band along a row.
        m_drag = Drag::Select;
        if (!m_band) m_band = new QRubberBand(QRubberBand::Rectangle, viewport());
        m_band->setGeometry(QRect(m_pressPos, QSize()));
        m_band->show();
    } else if (band) {
        m_drag = Drag::Band;
        if (!m_band) m_band = new QRubberBand(QRubberBand::Rectangle, viewport());
        m_band->setGeometry(QRect(m_pressPos, QSize()));
        m_band->show();
    } else if (const auto hit =
                   event->button() == Qt::LeftButton && m_dragEditor ? eventAt(m_pressPos) : std::nullopt;
               hit && m_dragEditor->beginDrag(hit->panel, hit->event)) {
        m_drag = Drag::Edit;
        clearSelection(); // its arrows would cross the ghost; the moved op is selected after the drop
        viewport()->setCursor(Qt::SizeHorCursor);
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
        if (m_hasChart && d.x() != 0) setMapping(m_view.mapping().panned(d.x() / m_k));
        verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
    } else if (m_drag == Drag::Edit) {
        m_dragEditor->dragTo(event->pos());
        viewport()->update();
    } else if (m_drag == Drag::Band && m_band) {
        const QRect r = QRect(m_pressPos, event->pos()).normalized();
        m_band->setGeometry(QRect(r.left(), 0, r.width(), viewport()->height()));
    } else if (m_drag == Drag::Select && m_band) { // along the pressed row only
        const QRect r = QRect(m_pressPos, event->pos()).normalized();
        const int rowHeight = int(m_frame.rowHeight * m_k);
        m_band->setGeometry(QRect(r.left(), m_pressPos.y() - rowHeight / 2, r.width(), rowHeight));
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
        if (x1 - x0 >= 4 && m_hasChart) {
            // The band's time range fills the plot, its start at the plot's left edge.
            m_view.showSpan(m_view.mapping().xToTime(x0 / m_k), m_view.mapping().xToTime(x1 / m_k));
            viewChanged();
            emit zoomChanged(zoom());
        }
    } else if (drag == Drag::Select) {
        if (m_band) m_band->hide();
        if (!m_moved) {
            if (const auto hit = eventAt(m_pressPos)) m_dragEditor->toggleSelect(hit->panel, hit->event);
        } else {
            m_dragEditor->selectBand(m_pressPos, event->pos());
        }
        viewport()->update();
    } else if (drag == Drag::Edit) {
        if (m_moved) {
            m_dragEditor->drop();
        } else { // a click: selects the bar, as outside edit mode, and ends a multi-selection
            m_dragEditor->cancelDrag();
            m_dragEditor->clearBlock();
            if (const auto hit = eventAt(event->pos())) selectEvent(hit->panel, hit->event);
        }
        viewport()->update();
    } else if (drag == Drag::Pan && !m_moved) {
        if (m_dragEditor) m_dragEditor->clearBlock(); // a plain click ends a multi-selection
        if (const auto hit = eventAt(event->pos()))
            selectEvent(hit->panel, hit->event);
        else
            clearSelection();
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
