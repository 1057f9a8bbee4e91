#include "io/torch_trace.h"

#include "error.h"
#include "file_kind.h"
#include "io/json_scan.h"
#include "io/overlap_ranges.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>

namespace stagecraft {

namespace {

constexpr double kNoValue = -1.0;
constexpr double kMaxCorrelation = 9007199254740992.0; // 2^53: every integer below is exact

/// The fields of one event the reader looks at; everything else is skipped unparsed.
struct RawEvent {
    // Owned, and reused from event to event (no allocation once their capacity suffices): a
    // view may point into the scanner's escape buffer, which the next string read overwrites.
    std::string ph, cat, name;
    double ts = NAN, dur = NAN, pid = kNoValue, correlation = kNoValue;

    void clear() {
        ph.clear();
        cat.clear();
        name.clear();
        ts = dur = NAN;
        pid = correlation = kNoValue;
    }
};

/// Where a slice lives: a host range, its GPU copy, a kernel launch or a kernel.
enum class Role : std::uint8_t { None, HostRange, GpuRange, Launch, Kernel };

struct Launch {
    double pid, ts, correlation;
};
struct Kernel {
    double correlation, start, end;
};
struct Range {
    double pid;
    ActionRange range;
};
/// The end of a `gloo:recv` span: when the wait for a received tensor returned.
struct Receive {
    double pid, end;
};

bool startsWith(std::string_view s, std::string_view p) {
    return s.substr(0, p.size()) == p;
}

[[noreturn]] void eventError(const std::string& source, std::size_t i, const std::string& message) {
    throw ParseError("trace.event", source, 0, 0, "traceEvents[" + std::to_string(i) + "] " + message);
}

/// What the reader collects from a file.
struct Collected {
    std::vector<Range> host, gpu;
    std::vector<Launch> launches;
    std::vector<Kernel> kernels;
    std::vector<Receive> receives;
    /// Each process's CPU ops, to find where the backward of an OVERLAP_F_B range began; and the
    /// point-to-point records (gloo:send/recv) of each, to tell a run whose compute is not labelled.
    std::map<double, HostActivity> activity;
    std::map<double, std::size_t> transferRecords;
    int rank = -1;
    std::string hostName;         ///< Kineto's host_name: the machine whose clock stamped the file
    bool dumpChrometrace = false; ///< bare action names in computation/communication slices
};

/// Opens the object the scanner is at; anything else is skipped (false): the profiler's other
/// values are not an error, only not what the reader looks for.
bool enterObject(JsonScanner& in) {
    if (in.peek() != '{') {
        in.skipValue();
        return false;
    }
    in.beginObject();
    return true;
}

void readArgs(JsonScanner& in, RawEvent& e) {
    if (!enterObject(in)) return;
    std::string_view key;
    while (in.nextKey(key)) {
        if (key == "correlation")
            e.correlation = in.readNumberOr(kNoValue);
        else
            in.skipValue();
    }
}

/// ScheduleGPipe's own labels, "Forward 3" / "Backward 3": the forward (backward) of micro-batch 3
/// on the rank's single stage (chunk 0 of the rank).
bool parseSingleStageLabel(std::string_view name, ActionRange& r) {
    RangeKind kind = RangeKind::F;
    if (startsWith(name, "Forward "))
        name.remove_prefix(8);
    else if (startsWith(name, "Backward ")) {
        name.remove_prefix(9);
        kind = RangeKind::B;
    } else {
        return false;
    }
    int mb = -1;
    const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), mb);
    if (ec != std::errc() || end != name.data() + name.size() || mb < 0 || mb >= (1 << 20)) return false;
    r.kind = kind;
    r.mb = mb;
    r.chunk = 0;
    r.stage = -1;
    return true;
}

bool isTransferRecord(std::string_view name) {
    return name == "gloo:send" || name == "gloo:recv" || name == "nccl:send" || name == "nccl:recv";
}

/// A range named with a pipeline action ("PP:" prefix, or a `_dump_chrometrace` slice): one range,
/// or the two halves of an OVERLAP_F_B, both holding the whole range until readRanks splits them.
void addActionRange(const RawEvent& e, std::size_t i, const std::string& source, bool pp, Collected& out) {
    const std::string_view name = pp ? std::string_view(e.name).substr(3) : std::string_view(e.name);
    ActionRange r, second;
    std::string why;
    const int overlap = parseOverlapRangeName(name, r, second, &why);
    if (overlap < 0 || (overlap == 0 && !parseRangeName(name, r, &why)))
        eventError(source, i, "named '" + e.name.substr(0, 80) + "': " + why);
    if (!(std::isfinite(e.ts) && std::isfinite(e.dur) && e.dur >= 0))
        eventError(source, i, "'" + e.name + "' needs finite ts and dur >= 0 (µs)");
    auto& list = e.cat == "gpu_user_annotation" ? out.gpu : out.host;
    for (ActionRange* half : {&r, &second}) {
        if (half == &second && overlap == 0) break;
        half->start = e.ts;
        half->end = e.ts + e.dur;
        half->event = std::uint32_t(std::min<std::size_t>(i, UINT32_MAX));
        list.push_back(Range{e.pid, *half});
    }
}

void classify(const RawEvent& e, std::size_t i, const std::string& source, Collected& out) {
    if (e.ph != "X") return;
    const bool timed = std::isfinite(e.ts) && std::isfinite(e.dur) && e.dur >= 0;
    // gloo's record of a receive: from its posting to the return of its wait(), which torch's
    // runtime calls inside the consuming compute range.
    if (e.cat == "user_annotation" && isTransferRecord(e.name)) {
        ++out.transferRecords[e.pid];
        if (e.name == "gloo:recv" && timed) out.receives.push_back(Receive{e.pid, e.ts + e.dur});
        return;
    }
    // A CPU op, unless it is a labelled range recorded as one (some writers give record_function
    // ranges that category).
    if (e.cat == "cpu_op" && !startsWith(e.name, "PP:")) {
        if (!timed) return;
        HostActivity& a = out.activity[e.pid];
        a.addOp(e.ts, e.ts + e.dur);
        if (startsWith(e.name, "autograd::engine::evaluate_function")) a.addBackwardStart(e.ts);
        return;
    }
    if ((e.cat == "user_annotation" || e.cat == "gpu_user_annotation") && timed) {
        ActionRange r;
        if (parseSingleStageLabel(e.name, r)) {
            r.start = e.ts;
            r.end = e.ts + e.dur;
            r.event = std::uint32_t(std::min<std::size_t>(i, UINT32_MAX));
            (e.cat == "gpu_user_annotation" ? out.gpu : out.host).push_back(Range{e.pid, r});
            return;
        }
    }
    const bool pp = startsWith(e.name, "PP:");
    const bool dump = !pp && (e.cat == "computation" || e.cat == "communication");
    if (pp || dump) {
        addActionRange(e, i, source, pp, out);
        out.dumpChrometrace |= dump;
        return;
    }
    // A correlation id is a whole number; one beyond 2^53 (or NaN) is no id (it could not be
    // converted to an integer key without undefined behaviour).
    if (!(e.correlation >= 0 && e.correlation <= kMaxCorrelation) || !std::isfinite(e.ts)) return;
    if (e.cat == "cuda_runtime" || e.cat == "cuda_driver" || e.cat == "hip_runtime") {
        out.launches.push_back(Launch{e.pid, e.ts, e.correlation});
    } else if ((e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset") &&
               std::isfinite(e.dur) && e.dur >= 0) {
        out.kernels.push_back(Kernel{e.correlation, e.ts, e.ts + e.dur});
    }
}

void readDistributedInfo(JsonScanner& in, Collected& out) {
    if (!enterObject(in)) return;
    std::string_view key;
    while (in.nextKey(key)) {
        if (key == "rank") {
            const double r = in.readNumberOr(kNoValue);
            if (r >= 0 && r < 1e7 && r == std::floor(r)) out.rank = int(r);
        } else {
            in.skipValue();
        }
    }
}

void readEvents(JsonScanner& in, const std::string& source, Collected& out) {
    in.beginArray();
    std::size_t i = 0;
    RawEvent e;
    while (in.nextElement()) {
        if (!enterObject(in)) {
            ++i;
            continue;
        }
        e.clear();
        std::string_view key;
        while (in.nextKey(key)) {
            if (key == "ph")
                e.ph = in.readString();
            else if (key == "ts")
                e.ts = in.readNumberOr(NAN);
            else if (key == "dur")
                e.dur = in.readNumberOr(NAN);
            else if (key == "name")
                e.name = in.readString();
            else if (key == "cat")
                e.cat = in.readString();
            else if (key == "pid")
                e.pid = in.readNumberOr(kNoValue);
            else if (key == "args")
                readArgs(in, e);
            else
                in.skipValue();
        }
        classify(e, i, source, out);
        ++i;
    }
}

/// Times each host range by the kernels it launched: launches on any thread of the range's process
/// inside the range (the autograd thread launches the backward's kernels), kernels joined by the
/// correlation id. Returns false when no range launched a kernel.
bool timeByKernels(Collected& c) {
    if (c.launches.empty() || c.kernels.empty()) return false;
    std::map<double, std::vector<std::size_t>> byPid; // host ranges of each process, by start
    for (std::size_t i = 0; i < c.host.size(); ++i) byPid[c.host[i].pid].push_back(i);
    for (auto& [pid, list] : byPid)
        std::sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
            return c.host[a].range.start < c.host[b].range.start;
        });
    // (correlation id, range) of each launch inside a range, sorted by id: 16 bytes a launch, where
    // a hash map took about 50.
    std::vector<std::pair<std::int64_t, std::size_t>> rangeOfCorrelation;
    for (const Launch& l : c.launches) {
        const auto it = byPid.find(l.pid);
        if (it == byPid.end()) continue;
        const auto& list = it->second;
        // The last range starting at or before the launch; ranges of one rank do not overlap.
        auto pos = std::upper_bound(list.begin(), list.end(), l.ts,
                                    [&](double t, std::size_t r) { return t < c.host[r].range.start; });
        if (pos == list.begin()) continue;
        const std::size_t r = *(pos - 1);
        if (l.ts <= c.host[r].range.end) rangeOfCorrelation.emplace_back(std::int64_t(l.correlation), r);
    }
    // Stable: of launches sharing an id, the last one in the file counts.
    std::stable_sort(rangeOfCorrelation.begin(), rangeOfCorrelation.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<double> lo(c.host.size(), INFINITY), hi(c.host.size(), -INFINITY);
    bool any = false;
    for (const Kernel& k : c.kernels) {
        const std::int64_t id = std::int64_t(k.correlation);
        const auto it = std::upper_bound(rangeOfCorrelation.begin(), rangeOfCorrelation.end(), id,
                                         [](std::int64_t v, const auto& e) { return v < e.first; });
        if (it == rangeOfCorrelation.begin() || (it - 1)->first != id) continue;
        const std::size_t r = (it - 1)->second;
        lo[r] = std::min(lo[r], k.start);
        hi[r] = std::max(hi[r], k.end);
        any = true;
    }
    if (!any) return false;
    for (std::size_t i = 0; i < c.host.size(); ++i)
        if (std::isfinite(lo[i])) {
            c.host[i].range.start = lo[i];
            c.host[i].range.end = hi[i];
        }
    return true;
}

/// Sets each host compute range's `wait`: the time from its start to the end of the last receive
/// whose wait returned inside it. On CPU every range and receive of a rank is on one thread, so a
/// receive ends inside at most one compute range.
void attributeReceiveWaits(Collected& c) {
    if (c.receives.empty()) return;
    std::map<double, std::vector<std::size_t>> byPid; // compute ranges of each process, by start
    for (std::size_t i = 0; i < c.host.size(); ++i)
        if (isComputeRange(c.host[i].range.kind)) byPid[c.host[i].pid].push_back(i);
    for (auto& [pid, list] : byPid)
        std::sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
            return c.host[a].range.start < c.host[b].range.start;
        });
    for (const Receive& r : c.receives) {
        const auto it = byPid.find(r.pid);
        if (it == byPid.end()) continue;
        const auto& list = it->second;
        auto pos = std::upper_bound(list.begin(), list.end(), r.end,
                                    [&](double t, std::size_t i) { return t < c.host[i].range.start; });
        if (pos == list.begin()) continue;
        ActionRange& range = c.host[*(pos - 1)].range;
        if (r.end <= range.end) range.wait = std::max(range.wait, r.end - range.start);
    }
}

/// Times the halves of every OVERLAP_F_B range of `c.host` apart (io/overlap_ranges.h): where the
/// backward began when `evidence` (host times with CPU ops), else by the stand-alone rule. Before
/// kernel timing and receive waits, which then see two ranges. Returns, per process, how many
/// were divided by the rule.
std::map<double, std::size_t> splitOverlaps(Collected& c, bool evidence) {
    std::map<double, std::vector<ActionRange*>> byPid; // in file order: halves stay adjacent
    for (Range& r : c.host)
        if (r.range.overlap != OverlapHalf::None) byPid[r.pid]; // only processes with overlaps
    std::map<double, std::size_t> byRule;
    if (byPid.empty()) return byRule;
    for (Range& r : c.host)
        if (const auto it = byPid.find(r.pid); it != byPid.end()) it->second.push_back(&r.range);
    for (auto& [pid, ranges] : byPid) {
        if (evidence)
            if (const auto a = c.activity.find(pid); a != c.activity.end()) {
                a->second.finish();
                for (std::size_t i = 0; i < ranges.size(); ++i) {
                    double forwardEnd = 0;
                    if (isWholeOverlap(ranges, i) &&
                        a->second.splitPoint(ranges[i]->start, ranges[i]->end, forwardEnd))
                        splitOverlapAt(*ranges[i], *ranges[i + 1], forwardEnd);
                }
            }
        byRule[pid] = divideWholeOverlaps(ranges);
    }
    return byRule;
}

/// The ranks of the trace `in` reads; `source` names it in messages.
std::vector<RankTrace> readRanks(JsonScanner& in, const std::string& source, TraceClock clock) {
    Collected c;
    if (in.peek() == '[') {
        readEvents(in, source, c);
    } else {
        in.beginObject();
        std::string_view key;
        bool sawEvents = false;
        while (in.nextKey(key)) {
            if (key == "traceEvents") {
                if (in.peek() != '[')
                    throw ParseError("trace.container", source, 0, 0,
                                     "traceEvents must be an array of events");
                readEvents(in, source, c);
                sawEvents = true;
            } else if (key == "distributedInfo") {
                readDistributedInfo(in, c);
            } else if (key == "host_name" && in.peek() == '"') {
                c.hostName = std::string(in.readString());
            } else {
                in.skipValue();
            }
        }
        if (!sawEvents)
            throw ParseError("trace.container", source, 0, 0,
                             source +
                                 ": a Chrome trace is an array of events or an object with a traceEvents "
                                 "array; this object has no traceEvents");
    }
    if (!in.atEnd()) in.fail("text after the end of the trace");

    std::string clockName = "cpu";
    const bool gpuCopies = !c.gpu.empty();
    if (gpuCopies) {
        c.host = std::move(c.gpu); // Kineto's GPU copies of the ranges: already in kernel time
        clockName = "gpu";
    }
    const std::map<double, std::size_t> byRule = splitOverlaps(c, !gpuCopies && !c.dumpChrometrace);
    c.activity.clear();
    if (!gpuCopies && clock == TraceClock::Auto && timeByKernels(c)) clockName = "gpu";
    // Host-timed ranges hold their receive waits; kernel-timed ones start with their first kernel.
    if (clockName == "cpu") attributeReceiveWaits(c);

    std::vector<RankTrace> out;
    std::map<double, RankTrace> byPid;
    for (const Range& r : c.host) byPid[r.pid].ranges.push_back(r.range);
    if (c.rank < 0 && byPid.size() > 1) {
        // Several processes in one file without distributedInfo: torch's _dump_chrometrace (pid =
        // rank), or traces of several ranks merged into one (ranks in ascending process id).
        for (auto& [pid, t] : byPid) {
            t.source = source;
            t.host = c.hostName;
            t.rank = c.dumpChrometrace && pid >= 0 && pid < 1e7 ? int(pid) : -1;
            t.clock = c.dumpChrometrace ? "steps" : clockName;
            if (const auto it = byRule.find(pid); it != byRule.end()) t.overlapsByRule = it->second;
            if (const auto it = c.transferRecords.find(pid); it != c.transferRecords.end())
                t.transferRecords = it->second;
            out.push_back(std::move(t));
        }
        return out;
    }
    RankTrace t;
    t.source = source;
    t.host = c.hostName;
    t.rank = c.rank;
    for (const auto& [pid, n] : byRule) t.overlapsByRule += n;
    for (const auto& [pid, n] : c.transferRecords) t.transferRecords += n;
    // _dump_chrometrace of one rank: its pid is the rank.
    if (t.rank < 0 && c.dumpChrometrace && !c.host.empty() && c.host.front().pid >= 0 &&
        c.host.front().pid < 1e7)
        t.rank = int(c.host.front().pid);
    t.clock = clockName;
    t.ranges.reserve(c.host.size());
    for (const Range& r : c.host) t.ranges.push_back(r.range);
    out.push_back(std::move(t));
    return out;
}

} // namespace

std::vector<RankTrace> parseTorchTrace(std::string_view text, const std::string& source, TraceClock clock) {
    JsonScanner in(text, source, "trace.json");
    return readRanks(in, source, clock);
}

std::vector<RankTrace> readTorchTrace(const std::filesystem::path& path, TraceClock clock) {
    JsonScanner in(path, "trace.json");
    return readRanks(in, in.source(), clock);
}

bool namesTorchActions(std::string_view text) {
    return text.find("\"schemaVersion\"") != std::string_view::npos ||
           text.find("\"distributedInfo\"") != std::string_view::npos ||
           text.find("\"PP:") != std::string_view::npos ||
           text.find("\"computation\"") != std::string_view::npos ||
           text.find("\"communication\"") != std::string_view::npos;
}

bool looksLikeTorchTrace(std::string_view text) {
    const std::string_view head = text.substr(0, kSniffBytes);
    return !namesStagecraftTrace(head) && namesTorchActions(head);
}

} // namespace stagecraft
