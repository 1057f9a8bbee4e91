#include "gui/schedule_edit_drag.h"

#include "error.h"
#include "gui/gantt_view.h"
#include "gui/models/schedule_edit_preview.h"
#include "gui/models/schedule_edit_session.h"
#include "gui/schedule_edit_controller.h"
#include "ir/op_name.h"

#include <QPainter>
#include <QScrollBar>
#include <algorithm>

namespace stagecraft::gui {
namespace {

bool sameOp(const Op& a, const Op& b) {
    return a.kind == b.kind && a.pipe == b.pipe && a.stage == b.stage && a.mb == b.mb;
}

const QColor kValid(0x1f, 0x6f, 0xd0);
const QColor kInvalid(0xd0, 0x20, 0x20);

} // namespace

ScheduleEditDrag::ScheduleEditDrag(ScheduleEditController* controller, GanttView* view)
    : m_controller(controller), m_view(view) {}

bool ScheduleEditDrag::beginDrag(int panel, int event) {
    const AnalysisPtr& result = m_view->result();
    ScheduleEditSession* session = m_controller->session();
    if (!session || panel != m_controller->editedPanel(result)) return false;
    const Timeline& timeline = result->outcomes[std::size_t(panel)].prediction.timeline;
    const TimelineEvent& grabbed = timeline.events[std::size_t(event)];
    if (grabbed.lane != Lane::Compute || !session->editor().find(grabbed.op).valid()) return false;
    m_active = true;
    m_grabbed = false;
    m_panel = panel;
    m_event = event;
    m_op = grabbed.op;
    m_row.clear();
    for (std::size_t i = 0; i < timeline.events.size(); ++i) {
        const TimelineEvent& e = timeline.events[i];
        if (e.lane != Lane::Compute || e.device != grabbed.device || sameOp(e.op, m_op)) continue;
        if (!session->editor().find(e.op).valid()) continue; // the iteration's tail: not movable
        m_row.push_back({e.op, int(i), e.start, e.end});
    }
    std::sort(m_row.begin(), m_row.end(),
              [](const Neighbour& a, const Neighbour& b) { return a.start < b.start; });
    m_ghost = m_view->eventBox(panel, event);
    m_grabDx = 0;
    m_gap.reset();
    m_tried = m_previewed = 0;
    m_move.reset();
    m_refusal.clear();
    m_ring.clear();
    m_caretX = m_ghost.left();
    return true;
}

void ScheduleEditDrag::dragTo(QPoint pos) {
    if (!m_active) return;
    const double k = m_view->pixelsPerPoint();
    const double x = pos.x() / k;
    if (!m_grabbed) { // the first move: where the bar was grabbed
        m_grabDx = x - m_ghost.left();
        m_grabbed = true;
    }
    m_ghost.moveLeft(x - m_grabDx);
    if (m_row.empty()) return;

    // The gap: before the first other op whose middle is later than the pointer. The mapping
    // holds still while previews are shown (GanttView::showPreview), so the times are the start's.
    const double t = m_view->mapping().xToTime(x);
    const auto next = std::find_if(m_row.begin(), m_row.end(),
                                   [&](const Neighbour& n) { return (n.start + n.end) / 2 > t; });
    const std::pair<MoveAnchor, Op> gap = next != m_row.end() ? std::pair(MoveAnchor::Before, next->op)
                                                              : std::pair(MoveAnchor::After, m_row.back().op);
    if (m_gap && m_gap->first == gap.first && sameOp(m_gap->second, gap.second)) return; // tried already
    m_gap = gap;
    Edit edit;
    edit.op = m_op;
    edit.anchor = gap.first;
    edit.other = gap.second;
    // The op's own place (between the same neighbours) is no move.
    const ScheduleEditor& editor = m_controller->session()->editor();
    const OpRef at = editor.find(m_op);
    const OpRef anchor = editor.find(edit.other);
    const std::int64_t target = edit.anchor == MoveAnchor::Before ? anchor.index - (anchor.index > at.index)
                                                                  : anchor.index + (anchor.index < at.index);
    tryGap(target == at.index ? std::nullopt : std::optional(edit));
}

void ScheduleEditDrag::tryGap(const std::optional<Edit>& edit) {
    m_move = edit;
    m_refusal.clear();
    m_ring.clear();
    ++m_tried;
    EditTrial trial;
    if (edit) {
        try {
            trial = m_controller->session()->trial(*edit, true);
            m_refusal = QString::fromStdString(trial.broken.message);
        } catch (const Error& e) {
            m_refusal = QString::fromStdString(e.what());
        }
    }
    // Valid: the chart shows the order it makes, the caret at the op's new place. Else the chart
    // as it was, the caret at the gap (and the ring, on the start's events).
    const AnalysisPtr shown = trial.edited ? m_controller->preview(std::move(*trial.edited)) : nullptr;
    if (!shown) m_controller->endPreview();
    const Timeline& timeline = m_view->result()->outcomes[std::size_t(m_panel)].prediction.timeline;
    if (shown) {
        ++m_previewed;
        m_caretX = m_view->eventBox(m_panel, computeEventOf(timeline, m_op)).left();
        return;
    }
    if (!edit) {
        m_caretX = m_view->eventBox(m_panel, m_event).left();
        return;
    }
    const auto neighbour = std::find_if(m_row.begin(), m_row.end(),
                                        [&](const Neighbour& n) { return sameOp(n.op, edit->other); });
    const QRectF box = m_view->eventBox(m_panel, neighbour->event);
    m_caretX = edit->anchor == MoveAnchor::Before ? box.left() : box.right();
    for (const Op& op : trial.involved)
        if (const int e = computeEventOf(timeline, op); e >= 0) m_ring.push_back(e);
}

void ScheduleEditDrag::drop() {
    if (!m_active) return;
    const std::optional<Edit> move = m_move;
    const bool valid = m_refusal.isEmpty();
    end();
    if (move && valid) {
        m_controller->forgetPreview(); // what it shows is the move's: the analysis replaces it
        m_controller->move(*move);
        return;
    }
    m_controller->endPreview();
    if (move) m_controller->move(*move); // refused again, and named in the message bar
}

void ScheduleEditDrag::cancelDrag() {
    end();
    m_controller->endPreview();
}

void ScheduleEditDrag::chartReplaced() {
    end();
    m_controller->forgetPreview();
}

void ScheduleEditDrag::end() {
    m_active = false;
    m_move.reset();
    m_gap.reset();
    m_refusal.clear();
    m_ring.clear();
}

void ScheduleEditDrag::paintDrag(QPainter& painter) const {
    if (!m_active || m_ghost.isNull()) return;
    const bool invalid = !m_refusal.isEmpty();
    const QColor color = invalid ? kInvalid : kValid;
    painter.save();
    // The ring (or the dependency) the gap would create: its ops outlined.
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(kInvalid, 1.6, Qt::DashLine));
    for (int e : m_ring) {
        const QRectF r = m_view->eventBox(m_panel, e);
        if (!r.isNull()) painter.drawRect(r.adjusted(-1.5, -1.5, 1.5, 1.5));
    }
    // The ghost: the bar at the pointer, half transparent.
    QColor fill = color;
    fill.setAlpha(70);
    painter.setBrush(fill);
    painter.setPen(QPen(color, 1.2, Qt::DashLine));
    painter.drawRect(m_ghost);
    // The caret: where the op goes in its device's order.
    if (m_move) {
        const double y0 = m_ghost.top() - 3, y1 = m_ghost.bottom() + 3;
        painter.setPen(QPen(color, 2.4));
        painter.drawLine(QPointF(m_caretX, y0), QPointF(m_caretX, y1));
        painter.drawLine(QPointF(m_caretX - 3, y0), QPointF(m_caretX + 3, y0));
        painter.drawLine(QPointF(m_caretX - 3, y1), QPointF(m_caretX + 3, y1));
    }
    if (invalid) {
        QFont font = painter.font();
        font.setPointSizeF(7.5);
        painter.setFont(font);
        // At the view's bottom edge, from the caret on: the rows (and the ring's ops) stay visible.
        const double k = m_view->pixelsPerPoint();
        const double bottom = (m_view->verticalScrollBar()->value() + m_view->viewport()->height()) / k - 4;
        const double left = std::max(4.0, m_caretX - 40);
        const QRectF text(left, bottom - 40, m_view->viewport()->width() / k - left - 8, 40);
        const QRectF bounds = painter.boundingRect(text, Qt::TextWordWrap | Qt::AlignBottom, m_refusal);
        painter.setPen(QPen(kInvalid, 0.8));
        painter.setBrush(QColor(255, 255, 255, 240));
        painter.drawRect(bounds.adjusted(-3, -2, 3, 2));
        painter.setPen(kInvalid);
        painter.drawText(text, Qt::TextWordWrap | Qt::AlignBottom, m_refusal);
    }
    painter.restore();
}

} // namespace stagecraft::gui
