#include "io/measured_run.h"

#include "error.h"
#include "io/measured_slots.h"
#include "io/measured_transfer.h"
#include "ir/stage_flow.h"
#include "number_text.h"
#include "sim/statistics.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>

namespace stagecraft {

namespace {

/// Stages and micro-batches beyond this are not a pipeline a person ran; refusing them keeps
/// shapes (and the vectors sized by them) small.
constexpr int kMaxIndex = 1 << 20;
constexpr std::size_t kRangeKindCount = std::size_t(RangeKind::R) + 1;

/// An op of the timeline: torch's compute actions and stagecraft-run's recomputes.
bool isCompute(RangeKind k) {
    return isComputeRange(k) || k == RangeKind::R;
}

std::uint64_t keyOf(RangeKind kind, int stage, int mb) {
    return std::uint64_t(kind) | std::uint64_t(std::uint32_t(stage)) << 4 |
           std::uint64_t(std::uint32_t(mb + 1)) << 30;
}

std::string rangeName(const ActionRange& r) {
    return std::to_string(r.stage) + rangeKindName(r.kind) +
           (r.mb >= 0 ? std::to_string(r.mb) : std::string());
}

std::string where(const RankTrace& t, const ActionRange& r) {
    (void)t;
    return "event " + std::to_string(r.event) + " (" + rangeName(r) + ")";
}

[[noreturn]] void shapeError(const std::string& field, const std::string& message) {
    throw ParseError("trace.shape", field, 0, 0, message);
}

/// One rank's ranges grouped by action: occurrences[key] = indices into ranges, in time order.
struct RankIndex {
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> occurrences;
};

/// When the op of a range began: after the wait for its input that torch's runtime counts
/// inside a compute range (zero for every other range).
double opStart(const ActionRange& r) {
    return std::min(r.end, r.start + std::max(0.0, r.wait));
}

std::string listIds(int n) {
    return n == 0 ? std::string("none") : n == 1 ? std::string("0") : "0.." + std::to_string(n - 1);
}

} // namespace

void refuseWithoutCompute(const std::vector<RankTrace>& ranks) {
    std::string files;
    std::size_t transfers = 0;
    for (const RankTrace& t : ranks) {
        files += (files.empty() ? "" : ", ") + t.source;
        transfers += t.transferRecords;
    }
    if (transfers == 0)
        throw ParseError("trace.empty", files, 0, 0,
                         "no range named with a pipeline compute action (such as torch's 'PP:2F0', "
                         "'2F0', GPipe's 'Forward 0' or Megatron's 'F0.1') was found");
    throw ParseError(
        "trace.unlabelled", files, 0, 0,
        std::to_string(transfers) +
            " point-to-point transfer records (gloo:send, gloo:recv) but no range named with a pipeline "
            "compute action: the run labels none of its forwards and backwards (torch's Schedule1F1B "
            "wraps nothing in record_function). Label it: wrap each forward and backward in "
            "torch.profiler.record_function(f\"PP:{stage}F{mb}\") and (f\"PP:{stage}B{mb}\"), the names "
            "torch's runtime writes; or run the same order through torch's runtime, which labels every "
            "action: write it as a CSV (stagecraft-cli export -s 1f1b --set parallel.pp=P --set "
            "parallel.microbatches=M -o 1f1b.csv) and load that into a _PipelineScheduleRuntime with "
            "_load_csv");
}

bool isComputeRange(RangeKind k) {
    return k == RangeKind::F || k == RangeKind::I || k == RangeKind::B || k == RangeKind::W;
}

bool isBookkeepingRange(RangeKind k) {
    return k == RangeKind::Other || k == RangeKind::WaitSendF || k == RangeKind::WaitSendB ||
           k == RangeKind::ReduceGrad || k == RangeKind::Unshard || k == RangeKind::Reshard;
}

const char* rangeKindName(RangeKind k) {
    switch (k) {
    case RangeKind::F:
        return "F";
    case RangeKind::I:
        return "I";
    case RangeKind::B:
        return "B";
    case RangeKind::W:
        return "W";
    case RangeKind::SendF:
        return "SEND_F";
    case RangeKind::RecvF:
        return "RECV_F";
    case RangeKind::SendB:
        return "SEND_B";
    case RangeKind::RecvB:
        return "RECV_B";
    case RangeKind::Other:
        return "other";
    case RangeKind::WaitSendF:
        return "WAIT_SEND_F";
    case RangeKind::WaitSendB:
        return "WAIT_SEND_B";
    case RangeKind::ReduceGrad:
        return "REDUCE_GRAD";
    case RangeKind::Unshard:
        return "UNSHARD";
    case RangeKind::Reshard:
        return "RESHARD";
    case RangeKind::R:
        return "R";
    }
    return "?";
}

bool parseRangeName(std::string_view name, ActionRange& range, std::string* why) {
    auto refuse = [&](const std::string& reason) {
        if (why) *why = "'" + std::string(name.substr(0, 80)) + "' " + reason;
        return false;
    };
    std::size_t pos = 0;
    while (pos < name.size() && name[pos] == ' ') ++pos;
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (pos < name.size() && name[pos] == '(')
        return refuse("is a compound action (OVERLAP_F_B), not one action");
    const std::size_t digits = pos;
    while (pos < name.size() && name[pos] >= '0' && name[pos] <= '9') ++pos;
    if (pos == digits) return refuse("does not start with a stage number (torch's STAGE TYPE MB)");
    int stage = 0;
    if (pos - digits > 7 ||
        std::from_chars(name.data() + digits, name.data() + pos, stage).ec != std::errc() ||
        stage >= kMaxIndex)
        return refuse("names a stage beyond 2^20");
    const std::string_view rest = name.substr(pos);
    struct Type {
        std::string_view text;
        RangeKind kind;
        bool mb;
    };
    static constexpr Type kTypes[] = {
        {"SEND_F", RangeKind::SendF, true},
        {"RECV_F", RangeKind::RecvF, true},
        {"SEND_B", RangeKind::SendB, true},
        {"RECV_B", RangeKind::RecvB, true},
        {"WAIT_SEND_F", RangeKind::WaitSendF, true},
        {"WAIT_SEND_B", RangeKind::WaitSendB, true},
        {"WAIT_RECV_F", RangeKind::Other, true},
        {"WAIT_RECV_B", RangeKind::Other, true},
        {"WAIT_REDUCE_GRAD", RangeKind::Other, false},
        {"REDUCE_GRAD", RangeKind::ReduceGrad, false},
        {"UNSHARD", RangeKind::Unshard, false},
        {"RESHARD", RangeKind::Reshard, false},
        {"F", RangeKind::F, true},
        {"I", RangeKind::I, true},
        {"B", RangeKind::B, true},
        {"W", RangeKind::W, true},
        {"R", RangeKind::R, true}, // after RECV_*, RESHARD and REDUCE_GRAD, which start with R too
    };
    for (const Type& t : kTypes) {
        if (rest.substr(0, t.text.size()) != t.text) continue;
        const std::string_view tail = rest.substr(t.text.size());
        int mb = -1;
        if (t.mb) {
            if (tail.empty() || tail.size() > 7)
                return refuse("needs a micro-batch number after " + std::string(t.text));
            const auto [end, ec] = std::from_chars(tail.data(), tail.data() + tail.size(), mb);
            if (ec != std::errc() || end != tail.data() + tail.size() || mb < 0 || mb >= kMaxIndex)
                return refuse("has '" + std::string(tail) + "' where a micro-batch number (0..2^20) belongs");
        } else if (!tail.empty()) {
            return refuse("has '" + std::string(tail.substr(0, 20)) + "' after " + std::string(t.text));
        }
        range.kind = t.kind;
        range.stage = stage;
        range.mb = t.mb ? mb : -1;
        return true;
    }
    return refuse("names no torch action type (F, I, B, W, SEND_F, RECV_F, SEND_B, RECV_B, UNSHARD, "
                  "RESHARD, REDUCE_GRAD) nor a recompute (R)");
}

int parsePipelineRangeName(std::string_view name, ActionRange& range, std::string* why) {
    if (name.substr(0, 3) == "PP:") return parseRangeName(name.substr(3), range, why) ? 1 : -1;
    if (!name.empty() && name[0] >= '0' && name[0] <= '9') {
        std::string ignored;
        return parseRangeName(name, range, &ignored) ? 1 : 0;
    }
    // F{mb}.{chunk}[.{seq}]
    if (name.size() < 4 || (name[0] != 'F' && name[0] != 'B' && name[0] != 'W')) return 0;
    int numbers[3] = {-1, -1, -1};
    std::size_t pos = 1;
    int count = 0;
    while (count < 3) {
        const std::size_t begin = pos;
        while (pos < name.size() && name[pos] >= '0' && name[pos] <= '9') ++pos;
        if (pos == begin || pos - begin > 7) return 0;
        std::from_chars(name.data() + begin, name.data() + pos, numbers[count]);
        ++count;
        if (pos == name.size()) break;
        if (name[pos] != '.') return 0;
        ++pos;
    }
    if (pos != name.size() || count < 2 || numbers[0] >= kMaxIndex || numbers[1] >= kMaxIndex) return 0;
    range.kind = name[0] == 'F' ? RangeKind::F : name[0] == 'B' ? RangeKind::B : RangeKind::W;
    range.mb = numbers[0];
    range.chunk = numbers[1];
    range.stage = -1;
    return 1;
}

// Files of one rank are joined when their time spans follow one another on the host's clock
// (every process of a machine stamps Kineto's one clock): the k-th occurrence of an action is then
// iteration k over all of them, as within one file. Files of one rank that overlap in time are two
// traces of the same moments, a slip (the same file twice, or two runs' files mixed).
std::vector<RankTrace> joinRepeatedRecordings(std::vector<RankTrace> ranks) {
    std::stable_sort(ranks.begin(), ranks.end(),
                     [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
    const auto span = [](const RankTrace& t) {
        double t0 = INFINITY, t1 = -INFINITY;
        for (const ActionRange& r : t.ranges) {
            t0 = std::min(t0, r.start);
            t1 = std::max(t1, r.end);
        }
        return std::pair{t0, t1};
    };
    std::vector<RankTrace> joined;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t end = i + 1;
        while (end < ranks.size() && ranks[end].rank == ranks[i].rank) ++end;
        std::sort(ranks.begin() + std::ptrdiff_t(i), ranks.begin() + std::ptrdiff_t(end),
                  [&](const RankTrace& a, const RankTrace& b) { return span(a).first < span(b).first; });
        RankTrace out = std::move(ranks[i]);
        if (end - i > 1) out.recordingStarts = {span(out).first};
        for (std::size_t k = i + 1; k < end; ++k) {
            RankTrace& next = ranks[k];
            if (out.ranges.empty() || next.ranges.empty() || span(next).first < span(out).second ||
                next.host != out.host)
                shapeError("", out.source + " and " + next.source + " are both of rank " +
                                   std::to_string(out.rank) +
                                   "; give one file per rank (recordings of one run made one after the "
                                   "other on one machine are joined; these overlap in time)");
            out.recordingStarts.push_back(span(next).first);
            out.source += " + " + next.source;
            out.ranges.insert(out.ranges.end(), std::make_move_iterator(next.ranges.begin()),
                              std::make_move_iterator(next.ranges.end()));
            out.overlapsByRule += next.overlapsByRule;
            out.transferRecords += next.transferRecords;
        }
        joined.push_back(std::move(out));
        i = end;
    }
    return joined;
}

namespace {

/// Ranges named by chunk (Megatron/zero-bubble): their stage from the rank and the placement.
void stagesOfChunks(std::vector<RankTrace>& ranks, ChunkPlacement placement) {
    const int devices = int(ranks.size());
    for (int d = 0; d < devices; ++d)
        for (ActionRange& r : ranks[std::size_t(d)].ranges) {
            if (r.stage >= 0) continue;
            if (r.chunk < 0 || (placement == ChunkPlacement::V && r.chunk > 1))
                throw ParseError("trace.event", ranks[std::size_t(d)].source, 0, 0,
                                 where(ranks[std::size_t(d)], r) + ": chunk " + std::to_string(r.chunk) +
                                     " does not name a stage (V placement has chunks 0 and 1)");
            r.stage = placement == ChunkPlacement::V ? (r.chunk == 0 ? d : 2 * devices - 1 - d)
                                                     : r.chunk * devices + d;
        }
}

/// The pipeline the compute ranges describe: which rank runs each stage, the highest stage and
/// micro-batch, and which backward halves the trace names.
struct RunShape {
    std::map<int, int> rankOfStage;
    int maxStage = -1, maxMb = -1;
    bool sawI = false, sawW = false, sawB = false;
    bool wholeBackwards = false; ///< B ranges are whole backwards next to I halves
    bool split = false;          ///< the run splits the backward (I and W)
    int stages() const { return maxStage + 1; }
};

/// Sorts each rank's ranges by start, refuses broken times and a stage on two ranks, and reads
/// the shape off the compute ranges.
RunShape readShape(std::vector<RankTrace>& ranks) {
    RunShape shape;
    for (int d = 0; d < int(ranks.size()); ++d) {
        RankTrace& t = ranks[std::size_t(d)];
        std::stable_sort(t.ranges.begin(), t.ranges.end(),
                         [](const ActionRange& a, const ActionRange& b) { return a.start < b.start; });
        for (const ActionRange& r : t.ranges) {
            if (!(std::isfinite(r.start) && std::isfinite(r.end) && r.end >= r.start))
                throw ParseError("trace.event", t.source, 0, 0,
                                 where(t, r) + ": a range must have finite times with end >= start");
            if (!isCompute(r.kind)) continue;
            const auto [it, inserted] = shape.rankOfStage.emplace(r.stage, d);
            if (!inserted && it->second != d)
                shapeError(t.source, where(t, r) + ": stage " + std::to_string(r.stage) + " runs on rank " +
                                         std::to_string(it->second) + " (" +
                                         ranks[std::size_t(it->second)].source + ") and on rank " +
                                         std::to_string(d) + "; a stage belongs to one rank");
            shape.maxStage = std::max(shape.maxStage, r.stage);
            shape.maxMb = std::max(shape.maxMb, r.mb);
            shape.sawI |= r.kind == RangeKind::I;
            shape.sawW |= r.kind == RangeKind::W;
            shape.sawB |= r.kind == RangeKind::B;
        }
    }
    return shape;
}

/// Next to input-gradient halves, a B range is a whole backward (torch's B in DualPipeV, alone or
/// in an OVERLAP_F_B). With weight-gradient ranges but no I, it is the input-gradient half (the
/// zero-bubble runtime's and torch's older naming): renamed I here.
void nameBackwardHalves(std::vector<RankTrace>& ranks, RunShape& shape) {
    shape.wholeBackwards = shape.sawI && shape.sawB;
    if (shape.sawW && shape.sawB && !shape.sawI) {
        for (RankTrace& t : ranks)
            for (ActionRange& r : t.ranges)
                if (r.kind == RangeKind::B) r.kind = RangeKind::I;
        shape.sawI = true;
    }
    shape.split = shape.sawI || shape.sawW;
}

/// Whether every file names one host: its ranks share its clock and are not moved. There a
/// consumer that seems to start early is a producer range that went on after its send (a rank
/// descheduled between the post and the end of its range, ms on an oversubscribed machine), and
/// the largest such gap over many iterations would shift whole ranks by it.
bool oneHost(const std::vector<RankTrace>& ranks) {
    return std::all_of(ranks.begin(), ranks.end(),
                       [&](const RankTrace& t) { return !t.host.empty() && t.host == ranks.front().host; });
}

/// Every stage on some rank, and as many stages on each rank.
void checkStages(const std::vector<RankTrace>& ranks, const RunShape& shape) {
    const int devices = int(ranks.size());
    if (shape.stages() % devices != 0)
        shapeError(ranks.front().source, std::to_string(shape.stages()) +
                                             " stages do not split evenly over " + std::to_string(devices) +
                                             " ranks; give every rank's file");
    for (int s = 0; s < shape.stages(); ++s)
        if (!shape.rankOfStage.count(s))
            shapeError(ranks.front().source, "stage " + std::to_string(s) + " of 0.." +
                                                 std::to_string(shape.maxStage) +
                                                 " has no compute range in any file; give every rank's file");
}

/// Each rank's ranges by action, in time order.
std::vector<RankIndex> indexRanges(const std::vector<RankTrace>& ranks) {
    std::vector<RankIndex> index(ranks.size());
    for (std::size_t d = 0; d < ranks.size(); ++d)
        for (std::uint32_t i = 0; i < ranks[d].ranges.size(); ++i) {
            const ActionRange& r = ranks[d].ranges[i];
            index[d].occurrences[keyOf(r.kind, r.stage, r.mb)].push_back(i);
        }
    return index;
}

/// Complete iterations: every compute action occurs that many times on its rank.
int completeIterations(const std::vector<RankIndex>& index) {
    int iterations = -1;
    for (const RankIndex& r : index)
        for (const auto& [key, list] : r.occurrences)
            if (isCompute(RangeKind(key & 0xF)))
                iterations = iterations < 0 ? int(list.size()) : std::min(iterations, int(list.size()));
    return iterations;
}

/// The iteration options ask for (-1 for the median of all), refused when the trace lacks it.
int chosenIteration(const MeasuredRunOptions& options, int iterations, const std::string& source) {
    if (options.pick != IterationPick::One) return -1;
    if (options.iteration < -1 || options.iteration >= iterations)
        throw ParseError("trace.iteration", source, 0, 0,
                         "iteration " + std::to_string(options.iteration) +
                             " is not in the trace, which holds " + std::to_string(iterations) +
                             " complete iteration" + (iterations == 1 ? "" : "s") + " (" +
                             listIds(iterations) + "; -1 is the last)");
    return options.iteration < 0 ? iterations - 1 : options.iteration;
}

/// The ranks' ranges with their shape and index, and the steps that read times off them.
class Assembly {
  public:
    Assembly(std::vector<RankTrace> ranks, const MeasuredRunOptions& options)
        : m_ranks(std::move(ranks)), m_options(options) {}

    Timeline run(MeasuredRunInfo& info);

  private:
    using Times = std::optional<std::pair<double, double>>;

    int devices() const { return int(m_ranks.size()); }
    int stages() const { return m_shape.stages(); }
    const ActionRange* occurrence(int d, std::uint64_t key, int k) const;
    const ActionRange* producer(int a, RangeKind kind, int from, int mb, int k) const;
    bool consumes(RangeKind kind) const;
    double shiftedClock(int b, std::uint64_t key, const ActionRange& consumer) const;
    void alignClocks();
    void iterationBounds(MeasuredRunInfo& info);
    Times timesOf(int d, std::uint64_t key) const;
    Times medianTimes(int d, const std::vector<std::uint32_t>& list) const;
    void assembleDevice(int d, Timeline& timeline, MeasuredRunInfo& info);
    bool addSync(int d, RangeKind kind, const ActionRange& first, const Times& times, MeasuredRunInfo& info);
    void addBookkeeping(RangeKind kind, std::size_t occurrences, const Times& times, MeasuredRunInfo& info);
    void addTransfer(int d, RangeKind kind, const ActionRange& first, const TimelineEvent& e,
                     const Times& times, MeasuredRunInfo& info);
    void finish(Timeline& timeline, MeasuredRunInfo& info);

    std::vector<RankTrace> m_ranks;
    const MeasuredRunOptions& m_options;
    RunShape m_shape;
    std::vector<RankIndex> m_index;
    std::vector<int> m_chunkOf; ///< a stage's rank among the stages of its device
    int m_iterations = 0;
    int m_chosen = -1;
    std::vector<double> m_shift;     ///< µs added to each rank's clock
    std::vector<double> m_iterStart; ///< each iteration's start, shifted clocks
    std::vector<TimelineEvent> m_transfers, m_syncs;
    std::array<MeasuredRunInfo::Bookkeeping, kRangeKindCount> m_bookkeeping{};
};

Timeline Assembly::run(MeasuredRunInfo& info) {
    if (std::all_of(m_ranks.begin(), m_ranks.end(), [](const RankTrace& t) { return t.rank >= 0; }))
        m_ranks = joinRepeatedRecordings(std::move(m_ranks));
    info.ranks = devices();
    info.clock = m_ranks.front().clock;
    stagesOfChunks(m_ranks, m_options.placement);
    m_shape = readShape(m_ranks);
    if (m_shape.maxStage < 0) refuseWithoutCompute(m_ranks);
    nameBackwardHalves(m_ranks, m_shape);
    m_index = indexRanges(m_ranks);
    checkStages(m_ranks, m_shape);
    m_iterations = completeIterations(m_index);
    info.iterations = m_iterations;
    m_chosen = chosenIteration(m_options, m_iterations, m_ranks.front().source);
    info.iteration = m_chosen;
    m_shift.assign(std::size_t(devices()), 0.0);
    if (m_options.alignClocks && devices() > 1 && !oneHost(m_ranks)) alignClocks();
    info.clockShift = m_shift;
    iterationBounds(info);

    Timeline timeline;
    timeline.origin = "measured";
    timeline.shape.devices = devices();
    timeline.shape.pipes = 1;
    timeline.shape.stagesPerPipe = stages();
    timeline.shape.microbatches = m_shape.maxMb + 1;
    timeline.shape.chunksPerDevice = stages() / devices();
    timeline.shape.splitBackward = m_shape.split;
    m_chunkOf.assign(std::size_t(stages()), 0);
    std::vector<int> next(std::size_t(devices()), 0);
    for (const auto& [s, d] : m_shape.rankOfStage) m_chunkOf[std::size_t(s)] = next[std::size_t(d)]++;
    for (int d = 0; d < devices(); ++d) assembleDevice(d, timeline, info);
    finish(timeline, info);
    return timeline;
}

/// The k-th occurrence of action `key` on rank d, or null.
const ActionRange* Assembly::occurrence(int d, std::uint64_t key, int k) const {
    const auto& occ = m_index[std::size_t(d)].occurrences;
    const auto it = occ.find(key);
    if (it == occ.end() || k >= int(it->second.size())) return nullptr;
    return &m_ranks[std::size_t(d)].ranges[it->second[std::size_t(k)]];
}

/// Consumers: forwards and the backwards that send an input gradient (I, or B when whole).
bool Assembly::consumes(RangeKind kind) const {
    return kind == RangeKind::F || kind == (m_shape.split ? RangeKind::I : RangeKind::B) ||
           (m_shape.wholeBackwards && kind == RangeKind::B);
}

/// The k-th range on rank a that feeds a consumer of `kind` (stage `from`, micro-batch mb).
const ActionRange* Assembly::producer(int a, RangeKind kind, int from, int mb, int k) const {
    if (kind == RangeKind::F) return occurrence(a, keyOf(kind, from, mb), k);
    const ActionRange* p = occurrence(a, keyOf(m_shape.split ? RangeKind::I : RangeKind::B, from, mb), k);
    return p || !m_shape.wholeBackwards ? p : occurrence(a, keyOf(RangeKind::B, from, mb), k);
}

/// Rank b's clock shift once its action `key` starts after its producer on another rank ended,
/// in every iteration (the shift as it is when it already does).
double Assembly::shiftedClock(int b, std::uint64_t key, const ActionRange& consumer) const {
    const auto kind = RangeKind(key & 0xF);
    const int from = producerStage(kind == RangeKind::F ? OpKind::F : OpKind::B, consumer.stage, stages());
    if (from < 0) return m_shift[std::size_t(b)];
    const int a = m_shape.rankOfStage.at(from);
    if (a == b) return m_shift[std::size_t(b)];
    double shifted = m_shift[std::size_t(b)];
    for (int k = 0; k < m_iterations; ++k) {
        const ActionRange* p = producer(a, kind, from, consumer.mb, k);
        const ActionRange* c = occurrence(b, key, k);
        if (!p || !c) continue;
        const double late = (p->end + m_shift[std::size_t(a)]) - (opStart(*c) + shifted);
        if (late > 1e-3) shifted += late;
    }
    return shifted;
}

/// Clock alignment: a consumer cannot start before its producer on another rank ended. Rank 0
/// is the reference clock; each round walks the consumers present (linear in the ranges).
void Assembly::alignClocks() {
    for (int round = 0; round < devices(); ++round) {
        bool moved = false;
        for (int b = 1; b < devices(); ++b)
            for (const auto& [key, list] : m_index[std::size_t(b)].occurrences) {
                if (!consumes(RangeKind(key & 0xF))) continue;
                const double shifted = shiftedClock(b, key, m_ranks[std::size_t(b)].ranges[list.front()]);
                if (shifted != m_shift[std::size_t(b)]) {
                    m_shift[std::size_t(b)] = shifted;
                    moved = true;
                }
            }
        if (!moved) break;
    }
}

/// Iteration starts and ends (shifted clocks): the earliest compute range of the iteration on any
/// rank, and the latest end of one.
void Assembly::iterationBounds(MeasuredRunInfo& info) {
    m_iterStart.assign(std::size_t(m_iterations), INFINITY);
    std::vector<double> iterEnd(std::size_t(m_iterations), -INFINITY);
    for (int d = 0; d < devices(); ++d)
        for (const auto& [key, list] : m_index[std::size_t(d)].occurrences)
            if (isCompute(RangeKind(key & 0xF)))
                for (int k = 0; k < m_iterations; ++k) {
                    const ActionRange& r = m_ranks[std::size_t(d)].ranges[list[std::size_t(k)]];
                    const double shifted = m_shift[std::size_t(d)];
                    m_iterStart[std::size_t(k)] = std::min(m_iterStart[std::size_t(k)], opStart(r) + shifted);
                    iterEnd[std::size_t(k)] = std::max(iterEnd[std::size_t(k)], r.end + shifted);
                }
    info.iterationMakespans.clear();
    for (int k = 0; k < m_iterations; ++k)
        info.iterationMakespans.push_back(iterEnd[std::size_t(k)] - m_iterStart[std::size_t(k)]);
}

/// The time of one action (rank, key) in the timeline: of the chosen iteration, or the median.
Assembly::Times Assembly::timesOf(int d, std::uint64_t key) const {
    const auto& occ = m_index[std::size_t(d)].occurrences;
    const auto it = occ.find(key);
    if (it == occ.end()) return std::nullopt;
    if (m_chosen < 0) return medianTimes(d, it->second);
    if (m_chosen >= int(it->second.size())) return std::nullopt;
    const ActionRange& r = m_ranks[std::size_t(d)].ranges[it->second[std::size_t(m_chosen)]];
    const double sh = m_shift[std::size_t(d)], base = m_iterStart[std::size_t(m_chosen)];
    return std::pair{opStart(r) + sh - base, r.end + sh - base};
}

/// The median start and end of an action over the complete iterations, each from its iteration's
/// start.
Assembly::Times Assembly::medianTimes(int d, const std::vector<std::uint32_t>& list) const {
    std::vector<double> starts, ends;
    for (int k = 0; k < std::min(m_iterations, int(list.size())); ++k) {
        const ActionRange& r = m_ranks[std::size_t(d)].ranges[list[std::size_t(k)]];
        const double sh = m_shift[std::size_t(d)], base = m_iterStart[std::size_t(k)];
        starts.push_back(opStart(r) + sh - base);
        ends.push_back(r.end + sh - base);
    }
    if (starts.empty()) return std::nullopt;
    const double s = median(starts), e = median(ends);
    return std::pair{s, std::max(s, e)};
}

/// torch's REDUCE_GRAD is where the stage's gradients are scaled (reduced, with FSDP): the
/// prediction's gradient sync of that stage, on the communication lane as there. False when the
/// range is not one.
bool Assembly::addSync(int d, RangeKind kind, const ActionRange& first, const Times& times,
                       MeasuredRunInfo& info) {
    if (kind != RangeKind::ReduceGrad || !times || first.stage < 0 || first.stage >= stages() ||
        m_shape.rankOfStage.at(first.stage) != d)
        return false;
    TimelineEvent e;
    e.device = d;
    e.start = std::max(0.0, times->first);
    e.end = std::max(e.start, times->second);
    e.op = Op{OpKind::GradSync, 0, std::uint16_t(m_chunkOf[std::size_t(first.stage)]), first.stage, -1};
    e.lane = Lane::Comm;
    e.comm = CommKind::Collective;
    m_syncs.push_back(e);
    ++info.syncRanges;
    return true;
}

/// A bookkeeping action (WAIT_SEND_*, UNSHARD ...): counted and timed, not drawn.
void Assembly::addBookkeeping(RangeKind kind, std::size_t occurrences, const Times& times,
                              MeasuredRunInfo& info) {
    info.otherRanges += m_chosen >= 0 ? (times ? 1 : 0) : occurrences;
    if (!times) return;
    auto& b = m_bookkeeping[std::size_t(kind)];
    b.kind = kind;
    ++b.ranges;
    b.time += times->second - times->first;
}

/// A SEND or RECV: its time and the part of it spent waiting for the peer's matching range; a
/// send to another rank is drawn on the communication lane.
void Assembly::addTransfer(int d, RangeKind kind, const ActionRange& first, const TimelineEvent& event,
                           const Times& times, MeasuredRunInfo& info) {
    ++info.commRanges;
    const bool send = kind == RangeKind::SendF || kind == RangeKind::SendB;
    const bool forward = kind == RangeKind::SendF || kind == RangeKind::RecvF;
    const int peerStage = transferPeerStage(forward ? OpKind::F : OpKind::B, send, first.stage);
    const RangeKind peerKind =
        forward ? (send ? RangeKind::RecvF : RangeKind::SendF) : (send ? RangeKind::RecvB : RangeKind::SendB);
    if (peerStage < 0 || peerStage >= stages()) return;
    const int peer = m_shape.rankOfStage.at(peerStage);
    if (const auto peerTimes = timesOf(peer, keyOf(peerKind, peerStage, first.mb))) {
        info.commTime += times->second - times->first;
        const auto& [sendTimes, recvTimes] =
            send ? std::pair{*times, *peerTimes} : std::pair{*peerTimes, *times};
        const MeasuredTransfer t =
            measureTransfer({sendTimes.first, sendTimes.second, recvTimes.first, recvTimes.second});
        info.commWaitTime += send ? t.senderWait() : t.receiverWait();
    }
    if (!send || first.stage >= stages() || peer == d) return;
    TimelineEvent e = event;
    e.op.kind = forward ? OpKind::F : OpKind::B;
    e.op.chunk = std::uint16_t(m_chunkOf[std::size_t(first.stage)]);
    e.lane = Lane::Comm;
    e.comm = forward ? CommKind::Activation : CommKind::Gradient;
    e.peer = peer;
    m_transfers.push_back(e);
}

/// Rank d's actions into the timeline: its compute ops in time order (whole backwards of a split
/// run divided into B and W), its transfers, syncs and bookkeeping kept for finish().
void Assembly::assembleDevice(int d, Timeline& timeline, MeasuredRunInfo& info) {
    std::vector<TimelineEvent> compute;
    std::vector<std::size_t> whole;
    for (const auto& [key, list] : m_index[std::size_t(d)].occurrences) {
        const auto kind = RangeKind(key & 0xF);
        const ActionRange& first = m_ranks[std::size_t(d)].ranges[list.front()];
        const auto times = timesOf(d, key);
        if (addSync(d, kind, first, times, info)) continue;
        if (isBookkeepingRange(kind)) {
            addBookkeeping(kind, list.size(), times, info);
            continue;
        }
        if (!times) continue;
        TimelineEvent e;
        e.device = d;
        e.start = std::max(0.0, times->first);
        e.end = std::max(e.start, times->second);
        e.op.stage = first.stage;
        e.op.mb = first.mb;
        if (!isCompute(kind)) {
            addTransfer(d, kind, first, e, times, info);
            continue;
        }
        if (first.mb < 0) continue;
        e.op.kind = kind == RangeKind::F   ? OpKind::F
                    : kind == RangeKind::W ? OpKind::W
                    : kind == RangeKind::R ? OpKind::R
                                           : OpKind::B;
        e.op.chunk = std::uint16_t(m_chunkOf[std::size_t(first.stage)]);
        if (m_shape.wholeBackwards && kind == RangeKind::B) whole.push_back(compute.size());
        if (first.overlap == OverlapHalf::Forward) timeline.shape.overlapped.push_back(e.op);
        compute.push_back(e);
        ++info.computeRanges;
    }
    splitWholeBackwards(compute, whole);
    std::stable_sort(compute.begin(), compute.end(), [](const TimelineEvent& a, const TimelineEvent& b) {
        return a.start != b.start ? a.start < b.start : a.end < b.end;
    });
    timeline.events.insert(timeline.events.end(), compute.begin(), compute.end());
}

/// After every rank's compute: the overlap heads in order, the bookkeeping totals, and the
/// transfers and syncs by device and start.
void Assembly::finish(Timeline& timeline, MeasuredRunInfo& info) {
    sortOverlapHeads(timeline.shape.overlapped);
    info.overlapSlots = timeline.shape.overlapped.size();
    for (const RankTrace& t : m_ranks) info.overlapsByRule += t.overlapsByRule;
    for (const auto& b : m_bookkeeping)
        if (b.ranges > 0) info.bookkeeping.push_back(b);
    m_transfers.insert(m_transfers.end(), m_syncs.begin(), m_syncs.end());
    std::stable_sort(m_transfers.begin(), m_transfers.end(),
                     [](const TimelineEvent& a, const TimelineEvent& b) {
                         return a.device != b.device ? a.device < b.device : a.start < b.start;
                     });
    timeline.events.insert(timeline.events.end(), m_transfers.begin(), m_transfers.end());
}

} // namespace

Timeline assembleMeasuredRun(std::vector<RankTrace> ranks, const MeasuredRunOptions& options,
                             MeasuredRunInfo* infoOut) {
    if (ranks.empty()) throw ParseError("trace.empty", "", 0, 0, "no trace file was given");
    MeasuredRunInfo info;
    Timeline timeline = Assembly(std::move(ranks), options).run(info);
    if (infoOut) *infoOut = std::move(info);
    return timeline;
}

std::string iterationSpreadText(const MeasuredRunInfo& info) {
    const std::vector<double>& m = info.iterationMakespans;
    const auto [low, high] = medianInterval(m);
    if (m.size() < 3 || high <= low) return {};
    const double mid = median(m);
    const auto [shortest, longest] = std::minmax_element(m.begin(), m.end());
    return std::to_string(m.size()) + " iterations of " + durationText(*shortest) + " to " +
           durationText(*longest) + "; their median " + durationText(mid) + ", within " + durationText(low) +
           " to " + durationText(high) + " (95 %, \u00b1" + formatNumber(100 * (high - low) / 2 / mid, 0) +
           " %)";
}

} // namespace stagecraft
