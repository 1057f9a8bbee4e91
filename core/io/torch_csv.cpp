#include "io/torch_csv.h"

#include "error.h"
#include "io/csv_rows.h"
#include "ir/action.h"
#include "ir/op_name.h"
#include "ir/overlap.h"
#include "validate/validator.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <vector>

namespace stagecraft {

namespace {

constexpr std::string_view kOverlapSuffix = "OVERLAP_F_B";
/// Action types of torch's compute+comms format (and its merged "BW" backward). A compute-only
/// file never holds them: its sends, receives and their waits are derived by torch's lowering.
constexpr std::array<std::string_view, 9> kCommTypes{
    "WAIT_SEND_F", "WAIT_SEND_B", "SEND_F", "RECV_F", "SEND_B", "RECV_B", "UNSHARD", "RESHARD", "BW"};
/// The gradient reduction torch's GPipe and 1F1B orders end each rank with, also in the
/// compute-only file: REDUCE_GRAD starts a stage's reduction, WAIT_REDUCE_GRAD waits for it.
constexpr std::string_view kReduceGrad = "REDUCE_GRAD";
constexpr std::string_view kWaitReduceGrad = "WAIT_REDUCE_GRAD";

using csv::trimBlanks;

/// Length of the stage number a cell starts with.
std::size_t leadingDigits(std::string_view text) {
    std::size_t pos = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
    return pos;
}

/// The comm action type a cell names ("2SEND_F3" -> "SEND_F"), if any.
std::string_view commTypeOf(std::string_view text) {
    const std::size_t pos = leadingDigits(text);
    if (pos == 0) return {};
    const std::string_view rest = text.substr(pos);
    for (std::string_view type : kCommTypes)
        if (rest.substr(0, type.size()) == type) return type;
    return {};
}

std::string quote(std::string_view text) {
    return "'" + std::string(text) + "'";
}

std::string cellName(int row, int col) {
    return "row " + std::to_string(row) + ", column " + std::to_string(col);
}

/// What a cell holds: a compute action, or one of torch's gradient-reduction cells.
enum class CellKind : std::uint8_t { Compute, Reduce, WaitReduce };

/// A gradient-reduction cell ("3REDUCE_GRAD", "3WAIT_REDUCE_GRAD"): its kind and the length of
/// its stage number, or nothing when the text is not one.
struct Reduction {
    CellKind kind = CellKind::Reduce;
    std::size_t digits = 0;
    std::string_view rest; ///< what follows the keyword (must be empty)
};

std::optional<Reduction> reductionOf(std::string_view text) {
    const std::size_t pos = leadingDigits(text);
    if (pos == 0) return std::nullopt;
    const std::string_view rest = text.substr(pos);
    if (rest.substr(0, kWaitReduceGrad.size()) == kWaitReduceGrad)
        return Reduction{CellKind::WaitReduce, pos, rest.substr(kWaitReduceGrad.size())};
    if (rest.substr(0, kReduceGrad.size()) == kReduceGrad)
        return Reduction{CellKind::Reduce, pos, rest.substr(kReduceGrad.size())};
    return std::nullopt;
}

/// One cell read from the file. `row` is the 0-based rank, `col` the 1-based cell; `mb` and
/// `type` only mean something for compute cells.
struct CellAction {
    std::int32_t row;
    std::int32_t col;
    std::int32_t stage;
    std::int32_t mb;
    ActionType type;
    CellKind kind;
    bool overlapHead = false; ///< the F of an OVERLAP_F_B cell read as an overlapped slot
};

/// Indices into the action list of one (stage, micro-batch)'s actions, -1 when absent.
struct MbActions {
    std::int32_t f = -1;
    std::int32_t b = -1;
    std::int32_t i = -1;
    std::int32_t w = -1;
    std::int32_t& of(ActionType type) {
        switch (type) {
        case ActionType::F:
            return f;
        case ActionType::B:
            return b;
        case ActionType::I:
            return i;
        case ActionType::W:
            break;
        }
        return w;
    }
};

/// Per stage: its first cell, its gradient-reduction cells and a summary of its forwards.
struct StageCells {
    std::int32_t first = -1;      ///< first cell naming the stage, -1 when none
    std::int32_t reduce = -1;     ///< its REDUCE_GRAD cell
    std::int32_t waitReduce = -1; ///< its WAIT_REDUCE_GRAD cell
    std::int32_t forwards = 0;    ///< number of F cells
    std::int32_t minForward = 0;  ///< smallest and largest micro-batch of its F cells
    std::int32_t maxForward = 0;
};

class CsvReader {
  public:
    CsvReader(const std::string& source, const TorchCsvOptions& options)
        : m_source(source), m_options(options) {}

    Schedule read(std::string_view text) {
        readCells(text);
        checkStages();
        checkCounts();
        return build();
    }

  private:
    [[noreturn]] void fail(const char* id, int line, int column, const std::string& message) const {
        throw ParseError(id, m_source, line, column, message);
    }
    [[noreturn]] void failAt(const char* id, std::int32_t action, const std::string& message) const {
        const CellAction& a = m_actions[std::size_t(action)];
        fail(id, a.row + 1, a.col, message);
    }
    static std::string textOf(const CellAction& a) {
        switch (a.kind) {
        case CellKind::Reduce:
            return std::to_string(a.stage) + std::string(kReduceGrad);
        case CellKind::WaitReduce:
            return std::to_string(a.stage) + std::string(kWaitReduceGrad);
        case CellKind::Compute:
            break;
        }
        return formatAction(Action{0, a.stage, a.type, a.mb});
    }
    std::string nameOf(std::int32_t action) const { return quote(textOf(m_actions[std::size_t(action)])); }
    std::string whereOf(std::int32_t action) const {
        const CellAction& a = m_actions[std::size_t(action)];
        return cellName(a.row + 1, a.col);
    }

    void readCells(std::string_view text) {
        text = csv::body(text);
        if (text.empty())
            fail("csv.empty", 0, 0,
                 "the file has no action: a compute-only schedule CSV has one row of actions per rank");
        csv::forEachRow(text, [&](int row, std::string_view line) {
            if (row >= kMaxDevices)
                fail("csv.size", row + 1, 0,
                     "more than " + std::to_string(kMaxDevices) + " rows: a row is a rank and the limit is " +
                         std::to_string(kMaxDevices) + " ranks");
            readRow(line, row);
            m_rows = row + 1;
        });
    }

    void readRow(std::string_view line, int row) {
        const std::size_t before = m_computeCells;
        csv::forEachCell(line, [&](int col, std::string_view cell) { readCell(cell, row, col); });
        if (m_computeCells == before)
            fail("csv.row", row + 1, 0,
                 "row " + std::to_string(row + 1) +
                     " has no action: every row is a rank that runs at least one stage (an empty cell is an "
                     "idle "
                     "step, an empty row is not a rank)");
    }

    void readCell(std::string_view cell, int row, int col) {
        if (cell.empty()) return; // a deliberate idle step
        if (cell.front() != '(') {
            if (const auto reduction = reductionOf(cell)) {
                addReduction(cell, *reduction, row, col);
                return;
            }
            addAction(parseSimple(cell, cell, row, col), row, col);
            return;
        }
        const std::size_t close = cell.find(')');
        if (close == std::string_view::npos || cell.substr(close + 1) != kOverlapSuffix)
            fail("csv.cell", row + 1, col,
                 quote(cell) + ": a compound action is '(' actions separated by ';' ')OVERLAP_F_B', as in "
                               "'(0F7;7B3)OVERLAP_F_B'");
        m_compound.clear();
        std::string_view inner = cell.substr(1, close - 1);
        for (;;) {
            const std::size_t semi = inner.find(';');
            m_compound.push_back(parseSimple(inner.substr(0, semi), cell, row, col));
            if (semi == std::string_view::npos) break;
            inner.remove_prefix(semi + 1);
        }
        if (m_options.overlap == OverlapPolicy::Refuse) {
            std::string parts;
            for (const Action& a : m_compound) parts += (parts.empty() ? "" : " then ") + formatAction(a);
            fail("csv.overlap", row + 1, col,
                 quote(cell) +
                     " runs its actions overlapped in one slot (DualPipeV's F/B overlap), which this reader "
                     "was told to refuse; read it as an overlapped slot (the default) or, with "
                     "--serialize-overlap, as its sub-actions one after the other (" +
                     parts + ")");
        }
        if (m_options.overlap == OverlapPolicy::Keep) {
            if (m_compound.size() != 2 || m_compound[0].type != ActionType::F ||
                m_compound[1].type != ActionType::B)
                fail("csv.overlap", row + 1, col,
                     quote(cell) +
                         ": an overlapped slot is one forward and one whole backward, as in "
                         "'(0F7;7B3)OVERLAP_F_B'; --serialize-overlap reads other compound cells as their "
                         "sub-actions one after the other");
            addAction(m_compound[0], row, col);
            m_actions.back().overlapHead = true;
            addAction(m_compound[1], row, col);
            return;
        }
        for (const Action& a : m_compound) addAction(a, row, col);
    }

    /// One simple action of `cell` (the whole cell, or a sub-action of a compound cell).
    Action parseSimple(std::string_view text, std::string_view cell, int row, int col) const {
        const std::string_view trimmed = trimBlanks(text);
        const std::string context = trimmed == cell ? "" : quote(cell) + ": sub-action ";
        if (trimmed.empty()) fail("csv.cell", row + 1, col, quote(cell) + ": a sub-action is empty");
        const std::string_view comm = commTypeOf(trimmed);
        if (!comm.empty())
            fail(
                "csv.comms", row + 1, col,
                context + quote(trimmed) + " is torch's " + std::string(comm) +
                    " action, which belongs to the compute+comms format: compute+comms CSV is not supported; "
                    "export the compute-only schedule");
        if (reductionOf(trimmed))
            fail("csv.cell", row + 1, col,
                 context + quote(trimmed) +
                     ": an overlapped cell runs compute actions (F, I, B, W) only; a gradient reduction is a "
                     "cell of its own");
        std::string why;
        const auto action = parseAction(trimmed, &why);
        if (!action) fail("csv.cell", row + 1, col, context + why);
        if (action->pipe != 0)
            fail("csv.pipe", row + 1, col,
                 context + quote(trimmed) +
                     ": torch's CSV has no second pipe (the 'p<pipe>:' prefix is Stagecraft's); save "
                     "bidirectional schedules as .json");
        if (action->stage >= kMaxStagesPerPipe || action->mb >= kMaxMicrobatches)
            fail("csv.size", row + 1, col,
                 context + quote(trimmed) + ": stages must be below " + std::to_string(kMaxStagesPerPipe) +
                     " and micro-batches below " + std::to_string(kMaxMicrobatches));
        return *action;
    }

    /// Appends a cell and checks that its stage stays on one rank. Returns the cell's index.
    std::int32_t addCell(const CellAction& cell) {
        if (m_actions.size() >= kMaxOps)
            fail("csv.size", cell.row + 1, cell.col, "more than " + std::to_string(kMaxOps) + " actions");
        const auto stage = std::size_t(cell.stage);
        if (stage >= m_stages.size()) m_stages.resize(stage + 1);
        const auto index = std::int32_t(m_actions.size());
        m_actions.push_back(cell);
        std::int32_t& first = m_stages[stage].first;
        if (first < 0)
            first = index;
        else if (m_actions[std::size_t(first)].row != cell.row)
            fail("csv.stage", cell.row + 1, cell.col,
                 nameOf(index) + ": stage " + std::to_string(cell.stage) + " is on rank " +
                     std::to_string(m_actions[std::size_t(first)].row) + " (" + nameOf(first) + " at " +
                     whereOf(first) + ") and on rank " + std::to_string(cell.row) +
                     ": a stage runs on one rank");
        return index;
    }

    void addAction(const Action& action, int row, int col) {
        addCell({row, col, action.stage, action.mb, action.type, CellKind::Compute});
        ++m_computeCells;
        StageCells& stage = m_stages[std::size_t(action.stage)];
        if (action.type == ActionType::F) {
            stage.minForward = stage.forwards == 0 ? action.mb : std::min(stage.minForward, action.mb);
            stage.maxForward = stage.forwards == 0 ? action.mb : std::max(stage.maxForward, action.mb);
            ++stage.forwards;
        }
        if (action.mb > m_maxMb) m_maxMb = action.mb;
    }

    /// REDUCE_GRAD starts the reduction of a stage's gradients over all micro-batches (the
    /// stage's GradSync); WAIT_REDUCE_GRAD, which waits for it, must follow it on its rank.
    void addReduction(std::string_view cell, const Reduction& reduction, int row, int col) {
        const char* keyword = reduction.kind == CellKind::Reduce ? "REDUCE_GRAD" : "WAIT_REDUCE_GRAD";
        if (!reduction.rest.empty())
            fail("csv.cell", row + 1, col,
                 quote(cell) + ": unexpected '" + std::string(reduction.rest) + "' after " + keyword + ": " +
                     keyword + " names a stage, not a micro-batch (it covers all of them), as in '2" +
                     keyword + "'");
        int stage = 0;
        const auto [end, ec] = std::from_chars(cell.data(), cell.data() + reduction.digits, stage);
        if (ec != std::errc() || end != cell.data() + reduction.digits || stage >= kMaxStagesPerPipe)
            fail("csv.size", row + 1, col,
                 quote(cell) + ": stages must be below " + std::to_string(kMaxStagesPerPipe));
        const std::int32_t index = addCell({row, col, stage, -1, ActionType::F, reduction.kind});
        StageCells& cells = m_stages[std::size_t(stage)];
        std::int32_t& slot = reduction.kind == CellKind::Reduce ? cells.reduce : cells.waitReduce;
        if (slot >= 0)
            failAt("csv.duplicate", index,
                   nameOf(index) + " appears twice (first at " + whereOf(slot) + "): each action runs once");
        if (reduction.kind == CellKind::WaitReduce && cells.reduce < 0)
            failAt("csv.sync", index,
                   nameOf(index) + " waits for the gradient reduction of stage " + std::to_string(stage) +
                       ", but no '" + std::to_string(stage) +
                       "REDUCE_GRAD' comes before it on its row: a WAIT_REDUCE_GRAD follows its REDUCE_GRAD");
        slot = index;
    }

    void checkStages() const {
        for (std::size_t s = 0; s < m_stages.size(); ++s)
            if (m_stages[s].first < 0)
                fail("csv.stage", 0, 0,
                     "stage " + std::to_string(s) + " has no action, but stage " +
                         std::to_string(m_stages.size() - 1) +
                         " has: stages are numbered 0..S-1 and each runs on one rank");
    }

    [[noreturn]] void failForwardCount(std::size_t stage) const {
        const std::int32_t first = m_stages[stage].first;
        fail("csv.count", m_actions[std::size_t(first)].row + 1, 0,
             "stage " + std::to_string(stage) + " has " + std::to_string(m_stages[stage].forwards) +
                 " forward actions (F), expected " + std::to_string(m_microbatches) +
                 ": one per micro-batch 0.." + std::to_string(m_microbatches - 1) +
                 " (the largest micro-batch index in the file is " + std::to_string(m_microbatches - 1) +
                 ")");
    }

    /// "3F1..3F8", "only 3F5", "7 forwards from 3F0 to 3F9": what a stage's F cells cover.
    std::string describeForwards(std::int32_t stage) const {
        const StageCells& s = m_stages[std::size_t(stage)];
        auto name = [&](int mb) { return formatAction(Action{0, stage, ActionType::F, mb}); };
        if (s.forwards == 1) return "only " + name(s.minForward);
        if (s.maxForward - s.minForward + 1 == s.forwards)
            return name(s.minForward) + ".." + name(s.maxForward);
        return std::to_string(s.forwards) + " forwards from " + name(s.minForward) + " to " +
               name(s.maxForward);
    }

    /// A backward (B, I or W) whose stage runs no F of its micro-batch, blamed on its own cell:
    /// the row that is wrong is the one that lacks the forward, not the rows whose micro-batch
    /// count the wrong row's indices stretch (torch's static 1F1B order runs 3F1..3F8 on its last
    /// rank, never 3F0; the other rows are right).
    [[noreturn]] void failOrphan(std::int32_t action) const {
        const CellAction& a = m_actions[std::size_t(action)];
        if (m_stages[std::size_t(a.stage)].forwards == 0)
            failAt("csv.count", action,
                   nameOf(action) + " has no forward: its stage runs no F of that micro-batch");
        failAt("csv.count", action,
               nameOf(action) + " has no forward: rank " + std::to_string(a.row) + " runs " +
                   describeForwards(a.stage) + " and never " +
                   formatAction(Action{0, a.stage, ActionType::F, a.mb}));
    }

    /// torch's rules: every stage has exactly m F; #B + #I == m and #I == #W per stage; each
    /// action once. Also resolves the older naming (B followed by W = today's I).
    void checkCounts() {
        const std::size_t stages = m_stages.size();
        m_microbatches = m_maxMb + 1;
        const auto m = std::size_t(m_microbatches);
        // A table of every (stage, mb) is only allocated when the file is large enough to fill it;
        // otherwise some stage has fewer than m forwards.
        if (stages * m > m_computeCells) {
            for (std::size_t s = 0; s < stages; ++s)
                if (m_stages[s].forwards < m_microbatches) failForwardCount(s);
        }
        std::vector<MbActions> table(stages * m);
        for (std::size_t index = 0; index < m_actions.size(); ++index) {
            const CellAction& a = m_actions[index];
            if (a.kind != CellKind::Compute) continue;
            std::int32_t& slot = table[std::size_t(a.stage) * m + std::size_t(a.mb)].of(a.type);
            if (slot >= 0)
                failAt("csv.duplicate", std::int32_t(index),
                       nameOf(std::int32_t(index)) + " appears twice (first at " + whereOf(slot) +
                           "): each action runs once");
            slot = std::int32_t(index);
        }
        // Backwards without their forward first, in file order: they name the wrong row.
        for (std::size_t index = 0; index < m_actions.size(); ++index) {
            const CellAction& a = m_actions[index];
            if (a.kind == CellKind::Compute && a.type != ActionType::F &&
                table[std::size_t(a.stage) * m + std::size_t(a.mb)].f < 0)
                failOrphan(std::int32_t(index));
        }
        for (std::size_t s = 0; s < stages; ++s)
            for (std::size_t mb = 0; mb < m; ++mb) checkMicrobatch(table[s * m + mb], s);
    }

    void checkMicrobatch(MbActions& x, std::size_t stage) {
        if (x.f < 0) failForwardCount(stage);   // backwards without a forward were reported before
        if (x.i < 0 && x.b >= 0 && x.w > x.b) { // older naming: B then W is the input-gradient part
            m_actions[std::size_t(x.b)].type = ActionType::I;
            std::swap(x.i, x.b);
        }
        if (x.i >= 0 && x.b >= 0) {
            const std::int32_t later = std::max(x.i, x.b), earlier = std::min(x.i, x.b);
            failAt("csv.count", later,
                   nameOf(later) + " and " + nameOf(earlier) + " (at " + whereOf(earlier) +
                       ") are two backwards of one micro-batch: a backward is either whole (B) or split (I, "
                       "then W)");
        }
        if (x.i < 0 && x.b < 0)
            failAt("csv.count", x.f,
                   nameOf(x.f) +
                       " has no backward: each micro-batch of a stage needs a B, or an I and a W (#B + #I "
                       "must equal the number of micro-batches)");
        if (x.i >= 0 && x.w < 0)
            failAt("csv.count", x.i,
                   nameOf(x.i) +
                       " has no weight-gradient action W of the same stage and micro-batch (#I must "
                       "equal #W)");
        if (x.w >= 0 && x.i < 0)
            failAt("csv.count", x.w,
                   nameOf(x.w) +
                       " has no input-gradient action before it on its rank: a W follows its I (or, in "
                       "the older naming, its B) (#I must equal #W)");
        if (x.w >= 0) m_split = true;
    }

    Schedule build() {
        const std::size_t stages = m_stages.size();
        std::vector<StageSlot> placement(stages);
        std::vector<int> chunks(std::size_t(m_rows), 0);
        for (std::size_t s = 0; s < stages; ++s) {
            const int rank = m_actions[std::size_t(m_stages[s].first)].row;
            placement[s] = {rank, chunks[std::size_t(rank)]++};
        }
        Schedule schedule =
            makeSchedule(m_options.name, m_rows, m_microbatches, {std::move(placement)}, m_split);
        std::vector<std::vector<std::int32_t>> columns(static_cast<std::size_t>(m_rows));
        auto push = [&](const CellAction& a, OpKind kind) {
            const StageSlot& slot = schedule.slot(0, a.stage);
            schedule.order[std::size_t(a.row)].push_back(
                Op{kind, 0, std::uint16_t(slot.chunk), a.stage, kind == OpKind::GradSync ? -1 : a.mb});
            columns[std::size_t(a.row)].push_back(a.col);
        };
        bool slotBackward = false; // the next action is the backward of an overlapped slot
        for (const CellAction& a : m_actions) {
            if (a.kind == CellKind::WaitReduce) continue; // the IR's sync is waited for by its optimizer step
            if (a.kind == CellKind::Reduce) {
                push(a, OpKind::GradSync);
                continue;
            }
            push(a, opKindOf(a.type));
            if (a.overlapHead) schedule.overlapped.push_back(schedule.order[std::size_t(a.row)].back());
            // A whole backward in a split schedule: its input part, then at once its weight part,
            // run as one unit (its own, or the backward of an overlapped slot).
            if (a.type == ActionType::B && m_split) {
                if (!slotBackward)
                    schedule.wholeBackward.push_back(schedule.order[std::size_t(a.row)].back());
                push(a, OpKind::W);
            }
            slotBackward = a.overlapHead;
        }
        sortSlotHeads(schedule);
        const auto problems = findProblems(schedule, 1);
        if (problems.empty()) return schedule;
        const Problem& p = problems.front();
        std::string where;
        if (p.device >= 0 && p.device < m_rows) {
            where = "row " + std::to_string(p.device + 1);
            const auto& cols = columns[std::size_t(p.device)];
            if (p.position >= 0 && std::size_t(p.position) < cols.size())
                where += ", column " + std::to_string(cols[std::size_t(p.position)]);
        }
        throw ValidationError("csv.schedule", where,
                              m_source + (where.empty() ? "" : " " + where) + ": " + p.message);
    }

    const std::string& m_source;
    const TorchCsvOptions& m_options;
    std::vector<CellAction> m_actions; // in file order (rank by rank, cell by cell)
    std::vector<StageCells> m_stages;  // [stage]
    std::vector<Action> m_compound;    // sub-actions of the cell being read
    std::size_t m_computeCells = 0;    // compute actions among m_actions
    int m_rows = 0;
    int m_maxMb = -1;
    int m_microbatches = 0;
    bool m_split = false;
};

} // namespace

std::string scheduleToTorchCsv(const Schedule& schedule) {
    if (schedule.pipes > 1)
        throw ValidationError(
            "csv.bidirectional", "pipes",
            "schedule '" + schedule.name + "' has " + std::to_string(schedule.pipes) +
                " pipes: torch's compute-only CSV has no way to express a second pipe (an action "
                "names a stage, not a pipe); save it as .json, Stagecraft's schedule format");
    if (schedule.sequenceSlices > 1)
        throw ValidationError("csv.slices", "sequence_slices",
                              "schedule '" + schedule.name + "' cuts every micro-batch into " +
                                  std::to_string(schedule.sequenceSlices) +
                                  " sequence slices: torch's compute-only CSV has no slice index (an action "
                                  "names a micro-batch); save it as .json, Stagecraft's schedule format");
    for (std::size_t d = 0; d < schedule.order.size(); ++d)
        for (const Op& op : schedule.order[d])
            if (op.kind == OpKind::R)
                refuseTorchRecompute("device " + std::to_string(d),
                                     opName(op, schedule.splitBackward, schedule.sequenceSlices));
    std::string out;
    const ScheduleSlots slots = schedule.overlapped.empty() && schedule.wholeBackward.empty()
                                    ? ScheduleSlots{}
                                    : findSlots(schedule, OpIndex(schedule));
    for (std::size_t d = 0; d < schedule.order.size(); ++d) {
        const auto& ops = schedule.order[d];
        const std::vector<Slot> none;
        const auto& deviceSlots = d < slots.of.size() ? slots.of[d] : none;
        std::size_t nextSlot = 0;
        bool first = true;
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const Op& op = ops[i];
            if (!isComputeKind(op.kind)) continue; // GradSync, Optimizer: not compute-only actions
            if (!first) out += ',';
            first = false;
            if (nextSlot < deviceSlots.size() && std::size_t(deviceSlots[nextSlot].position) == i) {
                // torch's overlapped cell (the forward, then the whole backward), or a whole backward:
                // "B" even when the schedule splits the backward, the slot's W being part of it.
                const Slot& slot = deviceSlots[nextSlot++];
                if (slot.overlapped)
                    out += "(" + actionString(op, schedule.splitBackward) + ";" +
                           actionString(ops[i + 1], false) + ")" + std::string(kOverlapSuffix);
                else
                    out += actionString(op, false);
                i += std::size_t(slot.length) - 1;
                continue;
            }
            out += actionString(op, schedule.splitBackward);
        }
        out += '\n';
    }
    return out;
}

void refuseTorchRecompute(const std::string& where, const std::string& op) {
    throw ValidationError("csv.recompute", where,
                          where + " runs the recompute " + op +
                              ": torch's action set has no recompute (F, I, B, W and their transfers), so a "
                              "torch CSV cannot hold it; save the schedule as .json, Stagecraft's format");
}

Schedule parseTorchCsv(std::string_view text, const std::string& source, const TorchCsvOptions& options) {
    return CsvReader(source, options).read(text);
}

} // namespace stagecraft
