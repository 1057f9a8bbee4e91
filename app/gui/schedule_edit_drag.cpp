#include "gui/schedule_edit_drag.h"

#include "edit/block_move.h"
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
    // An op of a block of two or more drags the block.
    const std::vector<Op>& block = m_controller->block();
    const bool inBlock =
        std::any_of(block.begin(), block.end(), [&](const Op& o) { return sameOp(o, m_op); });
    m_dragged = inBlock && block.size() > 1 ? block : std::vector<Op>{m_op};
    const auto dragged = [&](const Op& op) {
        return std::any_of(m_dragged.begin(), m_dragged.end(), [&](const Op& o) { return sameOp(o, op); });
    };
    m_row.clear();
    for (std::size_t i = 0; i < timeline.events.size(); ++i) {
        const TimelineEvent& e = timeline.events[i];
        if (e.lane != Lane::Compute || e.device != grabbed.device || dragged(e.op)) continue;
        if (!session->editor().find(e.op).valid()) continue; // the iteration's tail: not movable
        m_row.push_back({e.op, int(i), e.start, e.end});
    }
    std::sort(m_row.begin(), m_row.end(),
              [](const Neighbour& a, const Neighbour& b) { return a.start < b.start; });
    m_ghost = m_view->eventBox(panel, event);
    m_grabDx = 0;
    m_gap.reset();
    m_tried = m_previewed = 0;
    m_edits.clear();
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
    tryGap(editsFor(gap));
}

std::vector<Edit> ScheduleEditDrag::editsFor(const std::pair<MoveAnchor, Op>& gap) const {
    const ScheduleEditor& editor = m_controller->session()->editor();
    if (m_dragged.size() > 1) {
        // The block's own place: contiguous, and the gap is right before or after it.
        const std::vector<Op> block = orderedBlock(editor, m_dragged);
        const OpRef first = editor.find(block.front()), last = editor.find(block.back());
        const OpRef other = editor.find(gap.second);
        const bool contiguous = last.index - first.index + 1 == std::int32_t(block.size());
        if (contiguous && ((gap.first == MoveAnchor::Before && other.index == last.index + 1) ||
                           (gap.first == MoveAnchor::After && other.index == first.index - 1)))
            return {};
        return blockMove(editor, block, gap.first, gap.second);
    }
    Edit edit;
    edit.op = m_op;
    edit.anchor = gap.first;
    edit.other = gap.second;
    // The op's own place (between the same neighbours) is no move.
    const OpRef at = editor.find(m_op);
    const OpRef anchor = editor.find(edit.other);
    const std::int64_t target = edit.anchor == MoveAnchor::Before ? anchor.index - (anchor.index > at.index)
                                                                  : anchor.index + (anchor.index < at.index);
    if (target == at.index) return {};
    return {edit};
}

void ScheduleEditDrag::tryGap(std::vector<Edit> edits) {
    m_edits = std::move(edits);
    m_refusal.clear();
    m_ring.clear();
    ++m_tried;
    EditTrial trial;
    if (!m_edits.empty()) {
        try {
            trial = m_controller->session()->trial(m_edits, true);
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
        m_caretX = m_view->eventBox(m_panel, computeEventOf(timeline, m_dragged.front())).left();
        return;
    }
    if (m_edits.empty()) {
        m_caretX = m_view->eventBox(m_panel, m_event).left();
        return;
    }
    const Edit& first = m_edits.front(); // placed relative to the gap's neighbour
    const auto neighbour = std::find_if(m_row.begin(), m_row.end(),
                                        [&](const Neighbour& n) { return sameOp(n.op, first.other); });
    const QRectF box = m_view->eventBox(m_panel, neighbour->event);
    m_caretX = first.anchor == MoveAnchor::Before ? box.left() : box.right();
    for (const Op& op : trial.involved)
        if (const int e = computeEventOf(timeline, op); e >= 0) m_ring.push_back(e);
}

void ScheduleEditDrag::drop() {
    if (!m_active) return;
    const std::vector<Edit> edits = m_edits;
    const bool valid = m_refusal.isEmpty();
    const std::size_t ops = m_dragged.size();
    end();
    if (edits.empty()) {
        m_controller->endPreview();
        return;
    }
    if (valid)
        m_controller->forgetPreview(); // what it shows is the move's: the analysis replaces it
    else
        m_controller->endPreview();
    // A refused move is refused again, and named in the message bar.
    if (ops == 1)
        m_controller->move(edits.front());
    else
        m_controller->moveBlock(edits);
}

bool ScheduleEditDrag::toggleSelect(int panel, int event) {
    const AnalysisPtr& result = m_view->result();
    if (!m_controller->session() || panel != m_controller->editedPanel(result) || event < 0) return false;
    const TimelineEvent& e =
        result->outcomes[std::size_t(panel)].prediction.timeline.events[std::size_t(event)];
    if (e.lane != Lane::Compute || !m_controller->session()->editor().find(e.op).valid()) return false;
    m_controller->toggleBlockOp(e.op);
    return true;
}

bool ScheduleEditDrag::selectBand(QPoint from, QPoint to) {
    // The row under the press, the ops of the edited panel whose bars the band's times overlap.
    const AnalysisPtr& result = m_view->result();
    const int panel = m_controller->editedPanel(result);
    if (!m_controller->session() || panel < 0) return false;
    const double k = m_view->pixelsPerPoint();
    int lane = 0;
    const int row = m_view->frame().rowAt(m_view->toScene(from).y(), lane);
    if (row < 0 || m_view->frame().rows[std::size_t(row)].panel != panel) return false;
    const int device = m_view->frame().rows[std::size_t(row)].device;
    const double t0 = m_view->mapping().xToTime(std::min(from.x(), to.x()) / k);
    const double t1 = m_view->mapping().xToTime(std::max(from.x(), to.x()) / k);
    std::vector<Op> ops;
    for (const TimelineEvent& e : result->outcomes[std::size_t(panel)].prediction.timeline.events)
        if (e.lane == Lane::Compute && e.device == device && e.end > t0 && e.start < t1 &&
            m_controller->session()->editor().find(e.op).valid())
            ops.push_back(e.op);
    m_controller->setBlock(std::move(ops));
    return true;
}

void ScheduleEditDrag::clearBlock() {
    m_controller->setBlock({});
}

void ScheduleEditDrag::paintSelection(QPainter& painter) const {
    const std::vector<Op>& block = m_controller->block();
    const AnalysisPtr& result = m_view->result();
    const int panel = m_controller->editedPanel(result);
    if (block.empty() || panel < 0) return;
    // Outlined where the chart shows them now (a preview moves them).
    painter.save();
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(kValid, 1.8));
    const Timeline& timeline = result->outcomes[std::size_t(panel)].prediction.timeline;
    for (const Op& op : block) {
        const QRectF r = m_view->eventBox(panel, computeEventOf(timeline, op));
        if (!r.isNull()) painter.drawRect(r.adjusted(-1, -1, 1, 1));
    }
    painter.restore();
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
    m_edits.clear();
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
    if (!m_edits.empty()) {
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
