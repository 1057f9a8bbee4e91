#include "edit/repair.h"

#include "edit/fewest_moves.h"
#include "error.h"
#include "ir/op_name.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <stdexcept>

namespace stagecraft {

namespace {

/// The order run without times, as far as it goes. Ops are named by their global id in the index
/// of the order repair started from: the ops never change, only their places. Copied to try a move.
class DryRun {
  public:
    explicit DryRun(const Schedule& s)
        : m_index(std::make_shared<const OpIndex>(s)), m_done(m_index->opCount(), 0),
          m_pos(m_index->opCount()) {
        m_order.resize(std::size_t(s.devices));
        m_cursor.assign(std::size_t(s.devices), 0);
        for (int d = 0; d < s.devices; ++d)
            for (std::size_t i = 0; i < s.order[std::size_t(d)].size(); ++i) {
                const std::size_t gid = m_index->globalId(OpRef{d, std::int32_t(i)});
                m_order[std::size_t(d)].push_back(gid);
                m_pos[gid] = i;
            }
    }

    bool ready(std::size_t gid) const {
        const OpDeps& deps = m_index->depsOf(gid);
        return (deps.first < 0 || m_done[std::size_t(deps.first)]) &&
               (deps.second < 0 || m_done[std::size_t(deps.second)]);
    }
    /// The first producer of `gid` that has not run (-1: none).
    std::int64_t waitsFor(std::size_t gid) const {
        const OpDeps& deps = m_index->depsOf(gid);
        if (deps.first >= 0 && !m_done[std::size_t(deps.first)]) return deps.first;
        if (deps.second >= 0 && !m_done[std::size_t(deps.second)]) return deps.second;
        return -1;
    }
    bool consumes(std::size_t consumer, std::size_t producer) const {
        const OpDeps& deps = m_index->depsOf(consumer);
        return deps.first == std::int32_t(producer) || deps.second == std::int32_t(producer);
    }

    /// Runs every op that can run; true when all have.
    bool runAll() {
        bool progressed = true;
        while (progressed) {
            progressed = false;
            for (std::size_t d = 0; d < m_order.size(); ++d)
                while (m_cursor[d] < m_order[d].size() && ready(m_order[d][m_cursor[d]])) {
                    m_done[m_order[d][m_cursor[d]++]] = 1;
                    ++m_ran;
                    progressed = true;
                }
        }
        return m_ran == m_done.size();
    }

    /// Moves the op at `from` of device `d` to index `to` (its index after the move).
    void move(std::size_t d, std::size_t from, std::size_t to) {
        auto& ops = m_order[d];
        if (to < from)
            std::rotate(ops.begin() + std::ptrdiff_t(to), ops.begin() + std::ptrdiff_t(from),
                        ops.begin() + std::ptrdiff_t(from + 1));
        else
            std::rotate(ops.begin() + std::ptrdiff_t(from), ops.begin() + std::ptrdiff_t(from + 1),
                        ops.begin() + std::ptrdiff_t(to + 1));
        for (std::size_t i = std::min(from, to); i <= std::max(from, to); ++i) m_pos[ops[i]] = i;
    }

    const OpIndex& index() const { return *m_index; }
    const std::vector<std::vector<std::size_t>>& order() const { return m_order; }
    std::size_t cursor(std::size_t d) const { return m_cursor[d]; }
    std::size_t position(std::size_t gid) const { return m_pos[gid]; }
    std::size_t ran() const { return m_ran; }
    /// Ops placed before one of their producers on their own device: each needs a move of its own
    /// (one of the two must move), whatever else happens.
    std::size_t inversions() const {
        std::size_t count = 0;
        for (std::size_t gid = 0; gid < m_pos.size(); ++gid) {
            const OpDeps& deps = m_index->depsOf(gid);
            for (const std::int32_t p : {deps.first, deps.second})
                if (p >= 0 && m_index->deviceOf(std::size_t(p)) == m_index->deviceOf(gid) &&
                    m_pos[std::size_t(p)] > m_pos[gid])
                    ++count;
        }
        return count;
    }

  private:
    std::shared_ptr<const OpIndex> m_index;
    std::vector<std::uint8_t> m_done;              // [gid]
    std::vector<std::size_t> m_pos;                // [gid] its index in its device's order now
    std::vector<std::vector<std::size_t>> m_order; // [device] gids in order
    std::vector<std::size_t> m_cursor;             // [device] first op not run
    std::size_t m_ran = 0;
};

/// One move repair may make: `gid` from `from` to `to` on `device`, as `edit`.
struct Candidate {
    std::size_t device = 0, from = 0, to = 0, gid = 0;
    bool ownDevice = false; ///< the stuck op that asks for it is on its device (the plainer reason)
    Edit edit;
    bool splitFirst = false; ///< a whole backward's B: split before it moves
    std::string reason;
    std::size_t score = 0;      ///< ops that can run after it (max: all)
    std::size_t inversions = 0; ///< ops after it placed before a producer on their own device
};

} // namespace

namespace {

/// What repair knows of the order it started from: each op by its global id (ids never change
/// while ops move), and how to name and place it in a reason.
struct RepairView {
    const Schedule& start;
    bool split;
    const DryRun& run;
    const ScheduleEditor& editor;

    Op opOf(std::size_t gid) const {
        const OpRef ref = run.index().refOf(gid);
        return start.order[std::size_t(ref.device)][std::size_t(ref.index)];
    }
    std::string name(std::size_t gid) const { return opName(opOf(gid), split, start.sequenceSlices); }
    std::size_t deviceOf(std::size_t gid) const { return std::size_t(run.index().deviceOf(gid)); }
    std::string where(std::size_t gid, std::size_t device) const {
        return "position " + std::to_string(run.position(gid)) +
               (deviceOf(gid) == device ? std::string(" of the same device")
                                        : " of device " + std::to_string(deviceOf(gid)));
    }
    /// True for the I or W of a backward that runs whole (it moves only as a pair).
    bool whole(std::size_t gid) const {
        const Op op = opOf(gid);
        const Op b{OpKind::B, op.pipe, 0, op.stage, op.mb};
        return split && (op.kind == OpKind::B || op.kind == OpKind::W) && editor.isWhole(b);
    }
};

/// The moves that could unstick device d (its stuck op X waits for Y, which has not run):
///  pull: follow what X waits for, and what that waits for, to an op R that can run now (one
///        exists: the dependencies form no cycle); move R before the stuck op of its device.
///        R then runs: every pull lets the order go on.
///  push: move X out of the way, right after Y when Y is on its device, else right before X's
///        first consumer on its device (or to the end).
void addCandidates(const RepairView& v, std::size_t d, std::vector<Candidate>& candidates) {
    const DryRun& run = v.run;
    const bool split = v.split;
    const int slices = v.start.sequenceSlices;
    const auto& ops = run.order()[d];
    const auto opOf = [&](std::size_t gid) { return v.opOf(gid); };
    const auto name = [&](std::size_t gid) { return v.name(gid); };
    const auto deviceOf = [&](std::size_t gid) { return v.deviceOf(gid); };
    const auto where = [&](std::size_t gid, std::size_t device) { return v.where(gid, device); };
    const auto whole = [&](std::size_t gid) { return v.whole(gid); };
    const std::size_t x = ops[run.cursor(d)];
    const std::size_t y = std::size_t(run.waitsFor(x));
    const std::string stuck = "device " + std::to_string(d) + " is stuck at position " +
                              std::to_string(run.cursor(d)) + ": " + name(x) + " waits for " + name(y) +
                              " at " + where(y, d) + ", which has not run";
    std::size_t r = x;
    while (!run.ready(r)) r = std::size_t(run.waitsFor(r));
    Candidate pull;
    pull.device = deviceOf(r);
    pull.from = run.position(r);
    pull.to = run.cursor(pull.device);
    pull.gid = r;
    pull.edit.kind = EditKind::Move;
    pull.edit.op = opOf(r);
    pull.edit.anchor = MoveAnchor::Before;
    pull.edit.other = opOf(run.order()[pull.device][pull.to]);
    pull.splitFirst = whole(r);
    pull.ownDevice = pull.device == d;
    pull.reason = stuck + (r != y ? "; that waits, in turn, for " + name(r) + " at " + where(r, d) : "") +
                  "; " + name(r) + " can run now: moved before " + opName(pull.edit.other, split, slices) +
                  ", where device " + std::to_string(pull.device) + " is stuck";
    candidates.push_back(std::move(pull));
    if (whole(x)) return; // a whole backward moves only as a pair
    Candidate push;
    push.device = d;
    push.ownDevice = true;
    push.from = run.cursor(d);
    push.gid = x;
    push.edit.kind = EditKind::Move;
    push.edit.op = opOf(x);
    if (deviceOf(y) == d) {
        std::size_t after = run.position(y);
        if (whole(y) && opOf(y).kind == OpKind::B) ++after; // after its W, not inside the pair
        push.to = after;
        push.edit.anchor = MoveAnchor::After;
        push.edit.other = opOf(ops[after]);
        push.reason = stuck + ": " + name(x) + " moved after " + opName(push.edit.other, split, slices);
    } else {
        std::size_t next = push.from + 1;
        while (next < ops.size() && !run.consumes(ops[next], x)) ++next;
        push.edit.anchor = next < ops.size() ? MoveAnchor::Before : MoveAnchor::Index;
        push.to = next - 1;
        if (next < ops.size()) push.edit.other = opOf(ops[next]);
        push.edit.index = std::int64_t(push.to);
        push.reason = stuck + ": " + name(x) + " moved out of the way, " +
                      (next < ops.size() ? "right before its consumer " + name(ops[next])
                                         : std::string("to the end of the device's order"));
    }
    if (push.to > push.from) candidates.push_back(std::move(push));
}

/// Each candidate tried on a copy of the dry run, best first: a move after which the order runs;
/// then the fewest ops left before a producer of their own device (each will need a move); then
/// the most ops run; then the op that travels least, explained from its own device when it can be.
void rankCandidates(const DryRun& run, std::vector<Candidate>& candidates) {
    for (Candidate& c : candidates) {
        DryRun tried = run;
        tried.move(c.device, c.from, c.to);
        c.inversions = tried.inversions();
        c.score = tried.runAll() ? std::numeric_limits<std::size_t>::max() : tried.ran();
    }
    // A move after which the order runs first; then the fewest ops left before a producer of
    // their own device (each will need a move); then the most ops run; then the op that
    // travels least, explained from its own device when it can be.
    std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        const bool doneA = a.score == std::numeric_limits<std::size_t>::max();
        const bool doneB = b.score == std::numeric_limits<std::size_t>::max();
        if (doneA != doneB) return doneA;
        if (a.inversions != b.inversions) return a.inversions < b.inversions;
        if (a.score != b.score) return a.score > b.score;
        const std::size_t ta = a.from > a.to ? a.from - a.to : a.to - a.from;
        const std::size_t tb = b.from > b.to ? b.from - b.to : b.to - b.from;
        if (ta != tb) return ta < tb;
        return a.ownDevice && !b.ownDevice;
    });
}

/// Makes the best candidate that the editor takes and that lets more ops run (splitting a whole
/// backward first where it must); false when none does.
bool makeBestMove(const RepairView& v, ScheduleEditor& editor, DryRun& run,
                  std::vector<Candidate>& candidates, std::vector<RepairMove>& moves) {
    const auto opOf = [&](std::size_t gid) { return v.opOf(gid); };
    const auto name = [&](std::size_t gid) { return v.name(gid); };
    for (Candidate& c : candidates) {
        if (c.score <= run.ran()) continue; // no progress: never made (a pull always makes some)
        std::vector<Edit> undoSplit;
        try {
            if (c.splitFirst) {
                Edit e;
                e.kind = EditKind::Split;
                e.op = opOf(c.gid);
                undoSplit = editor.apply(e).inverse;
                moves.push_back({e, name(c.gid) + " runs with its W as one whole backward, which moves only "
                                                  "as a pair: split so that its I can move"});
            }
            editor.apply(c.edit);
        } catch (const ValidationError&) {
            // A place the editor refuses (inside a whole backward): the next candidate.
            if (!undoSplit.empty()) {
                editor.applyAll(undoSplit);
                moves.pop_back();
            }
            continue;
        }
        run.move(c.device, c.from, c.to);
        moves.push_back({c.edit, std::move(c.reason)});
        return true;
    }
    return false;
}

/// The op of `ops` a gradient sync or optimizer step `tail` must follow that comes last: the
/// last backward (kind `last`) of each micro-batch of its pipe's stage, and for a step its
/// stage's sync. -1 when none comes after it.
std::ptrdiff_t lastAwaited(const std::vector<Op>& ops, std::size_t at, OpKind last) {
    const Op& tail = ops[at];
    std::ptrdiff_t found = -1;
    for (std::size_t i = at + 1; i < ops.size(); ++i) {
        const Op& op = ops[i];
        const bool backward = op.kind == last;
        const bool sync = tail.kind == OpKind::Optimizer && op.kind == OpKind::GradSync;
        if ((backward || sync) && op.pipe == tail.pipe && op.stage == tail.stage) found = std::ptrdiff_t(i);
    }
    return found;
}

/// Gradient syncs and optimizer steps the compute repair left before what they wait for move
/// right after the last of it; they only move later, so no compute op waits longer. If a step
/// still waits on a collective that waits on ops after it (a ring through the collective), the
/// steps go to the ends of their devices' orders, where they belong.
void placeTailOps(ScheduleEditor& editor, std::vector<RepairMove>& moves) {
    const auto apply = [&](const Edit& edit, std::string reason) {
        editor.apply(edit);
        moves.push_back({edit, std::move(reason)});
    };
    const OpKind last = editor.schedule().splitBackward ? OpKind::W : OpKind::B;
    const bool split = editor.schedule().splitBackward;
    const int slices = editor.schedule().sequenceSlices;
    for (std::size_t d = 0; d < editor.schedule().order.size(); ++d)
        for (std::size_t i = 0; i < editor.schedule().order[d].size(); ++i) {
            const std::vector<Op>& ops = editor.schedule().order[d];
            if (isComputeKind(ops[i].kind)) continue;
            const std::ptrdiff_t after = lastAwaited(ops, i, last);
            if (after < 0) continue;
            const Op tail = ops[i], awaited = ops[std::size_t(after)];
            apply(Edit{EditKind::Move, tail, false, MoveAnchor::After, awaited, 0},
                  opName(tail, split, slices) + " at position " + std::to_string(i) + " of device " +
                      std::to_string(d) + " waits for " + opName(awaited, split, slices) + " at position " +
                      std::to_string(after) + ", which comes later: moved right after it");
            --i; // the op now at i has not been looked at
        }
    if (editor.runs()) return;
    for (std::size_t d = 0; d < editor.schedule().order.size(); ++d)
        for (std::size_t i = editor.schedule().order[d].size(); i-- > 0;) {
            const std::vector<Op>& ops = editor.schedule().order[d];
            if (ops[i].kind != OpKind::Optimizer || i + 1 == ops.size()) continue;
            const Op step = ops[i];
            apply(Edit{EditKind::Move, step, false, MoveAnchor::Index, {}, std::int64_t(ops.size() - 1)},
                  "the order waits in a ring through " + opName(step, split, slices) +
                      "'s collective: the step moved to the end of device " + std::to_string(d) + "'s order");
        }
}

/// Work the fewest-moves search may do, in ops visited: its cycle checks are this over the
/// order's size (about 0.1 s).
constexpr std::size_t kSearchWork = 50'000'000;

/// "0B3 moved after 0F7: this one move makes the order run (...)", or "one of the 2 moves, ...".
std::string fewestReason(const Edit& edit, std::size_t count, bool split, int slices, int device) {
    const std::string where = edit.anchor == MoveAnchor::Index
                                  ? "to the front of device " + std::to_string(device) + "'s order"
                                  : "after " + opName(edit.other, split, slices);
    const std::string which =
        count == 1 ? "this one move makes the order run"
                   : "one of " + std::to_string(count) + " moves, the fewest that make the order run";
    return opName(edit.op, split, slices) + " moved " + where + ": " + which +
           " (searched: with fewer ops moved and the others kept in their order, some device waits forever)";
}

/// The greedy's moves, or fewer found by the search; `search` says whether they are the fewest.
std::vector<RepairMove> fewestOrGreedy(ScheduleEditor& editor, const ScheduleEditor& before,
                                       std::vector<RepairMove> greedy, RepairSearch& search) {
    search.greedyMoves = greedy.size();
    search.fewest = greedy.size() <= 1; // a broken order needs a move
    if (search.fewest) return greedy;
    const Schedule& start = before.schedule();
    const std::size_t budget =
        std::max<std::size_t>(1, kSearchWork / std::max<std::size_t>(1, start.opCount()));
    const FewestMoves found = fewestMoves(start, greedy.size() - 1, budget);
    search.steps = found.steps;
    if (!found.found) {
        search.fewest = found.complete;
        return greedy;
    }
    ScheduleEditor trial = before;
    std::vector<RepairMove> moves;
    for (const Edit& edit : found.moves) {
        trial.apply(edit);
        moves.push_back({edit, fewestReason(edit, found.moves.size(), start.splitBackward,
                                            start.sequenceSlices, trial.find(edit.op).device)});
    }
    if (!trial.runs()) return greedy; // the list scheduler sees what the graph does not: keep the greedy's
    editor = std::move(trial);
    search.fewest = found.complete;
    return moves;
}

} // namespace

std::vector<RepairMove> repair(ScheduleEditor& editor, RepairSearch* search) {
    std::vector<RepairMove> moves;
    RepairSearch ignored;
    RepairSearch& report = search ? *search : ignored;
    report = RepairSearch{};
    if (editor.runs()) {
        report.fewest = true;
        return moves;
    }
    const ScheduleEditor before = editor;
    const Schedule start = editor.schedule();
    DryRun run(start);
    const RepairView view{start, start.splitBackward, run, editor};
    const std::size_t limit = 2 * run.index().opCount(); // a move, and perhaps a split, per op
    while (!run.runAll()) {
        if (moves.size() > limit)
            throw std::logic_error("repair: more moves than ops: the dry run and the editor disagree");
        std::vector<Candidate> candidates;
        for (std::size_t d = 0; d < run.order().size(); ++d)
            if (run.cursor(d) < run.order()[d].size()) addCandidates(view, d, candidates);
        rankCandidates(run, candidates);
        if (!makeBestMove(view, editor, run, candidates, moves))
            throw std::logic_error("repair: no move lets the order go on");
    }
    // The dry run follows compute dependencies; syncs and steps wait for their stage's backwards.
    if (!editor.runs()) placeTailOps(editor, moves);
    if (!editor.runs())
        throw std::logic_error("repair: the dry run completes, the editor's order does not: " +
                               editor.broken().message);
    return fewestOrGreedy(editor, before, std::move(moves), report);
}

std::string describeRepair(std::size_t moves, const RepairSearch& search) {
    std::string out = std::to_string(moves) + " move(s)";
    if (moves == 0) return out + ": the order runs";
    if (!search.fewest) return out + ", not proven the fewest (the search's budget ran out)";
    if (moves == 1 && search.greedyMoves <= 1) return out + ", the fewest";
    out += ", the fewest (searched";
    if (search.greedyMoves > moves) out += "; the greedy made " + std::to_string(search.greedyMoves);
    return out + ")";
}

} // namespace stagecraft
