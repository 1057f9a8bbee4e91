#include "gui/schedule_edit_drag.h"

#include "error.h"
#include "gui/gantt_view.h"
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
    const QRectF bar = m_view->eventBox(m_panel, m_event);
    if (m_ghost == bar && m_grabDx == 0) m_grabDx = x - bar.left(); // first move: where it was grabbed
    m_ghost.moveLeft(x - m_grabDx);

    // The gap: before the first other op whose middle is later than the pointer.
    const double t = m_view->mapping().xToTime(x);
    const auto next = std::find_if(m_row.begin(), m_row.end(),
                                   [&](const Neighbour& n) { return (n.start + n.end) / 2 > t; });
    Edit edit;
    edit.op = m_op;
    if (next != m_row.end()) {
        edit.anchor = MoveAnchor::Before;
        edit.other = next->op;
        m_caretX = m_view->eventBox(m_panel, next->event).left();
    } else if (!m_row.empty()) {
        edit.anchor = MoveAnchor::After;
        edit.other = m_row.back().op;
        m_caretX = m_view->eventBox(m_panel, m_row.back().event).right();
    }
    m_move.reset();
    m_refusal.clear();
    m_ring.clear();
    if (m_row.empty()) return;
    // The op's own place (between the same neighbours) is no move.
    ScheduleEditSession* session = m_controller->session();
    const OpRef at = session->editor().find(m_op);
    const OpRef anchor = session->editor().find(edit.other);
    const std::int64_t target = edit.anchor == MoveAnchor::Before ? anchor.index - (anchor.index > at.index)
                                                                  : anchor.index + (anchor.index < at.index);
    if (target == at.index) return;
    m_move = edit;
    try {
        const EditTrial trial = session->trial(edit);
        m_refusal = QString::fromStdString(trial.broken.message);
        const Timeline& timeline = m_view->result()->outcomes[std::size_t(m_panel)].prediction.timeline;
        for (const Op& op : trial.involved)
            for (std::size_t i = 0; i < timeline.events.size(); ++i)
                if (timeline.events[i].lane == Lane::Compute && sameOp(timeline.events[i].op, op)) {
                    m_ring.push_back(int(i));
                    break;
                }
    } catch (const Error& e) {
        m_refusal = QString::fromStdString(e.what());
    }
}

void ScheduleEditDrag::drop() {
    if (!m_active) return;
    m_active = false;
    if (m_move) m_controller->move(*m_move); // a refused move is named in the message bar
    m_move.reset();
}

void ScheduleEditDrag::cancelDrag() {
    m_active = false;
    m_move.reset();
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
