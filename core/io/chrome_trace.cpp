// The Stagecraft Chrome trace reader (readChromeTrace, parseChromeTrace): slices claimed as ops,
// the shape from otherData or inferred, iterations picked, every event checked (chrome_trace_rules.h,
// shared with the writer). The writer is chrome_trace_writer.cpp.
#include "io/chrome_trace.h"

#include "error.h"
#include "file_io.h"
#include "file_kind.h"
#include "io/chrome_trace_rules.h"
#include "io/json_stream.h"
#include "io/trace_preview.h"
#include "ir/action.h"
#include "ir/op_name.h"
#include "json_failure.h"
#include "validate/validator.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <queue>
#include <tuple>
#include <unordered_map>

namespace stagecraft {

using namespace chrome_trace_detail;

namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Reader.

/// One slice the reader claimed, before the shape is known. Kept compact: a trace may hold
/// millions (docs/robustness.md bounds the reader's memory by their count).
struct Claimed {
    TimelineEvent event;
    std::uint32_t index = 0;     ///< position in traceEvents
    std::int32_t pid = 0;        ///< in 0..kMaxPid
    std::int32_t iteration = -1; ///< args.iteration; -1 when absent
    bool chunkKnown = true;
    bool fromName = false; ///< identity read from a "2F0"-style name
};
/// A deque, not a vector: it grows block by block, never holding two copies while it grows.
using ClaimedSlices = std::deque<Claimed>;

std::string brief(const json& value) {
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return text;
}

/// A value of an event as nlohmann would show it (its text was checked, so it parses).
std::string brief(const FlatValue& value) {
    return brief(json::parse(value.raw, nullptr, /*allow_exceptions=*/false));
}

class SliceReader {
  public:
    explicit SliceReader(const std::string& source) : m_source(source) {}

    [[noreturn]] void fail(std::size_t i, std::string_view field, const FlatValue* value,
                           const std::string& rule) const {
        std::string message = "traceEvents[" + std::to_string(i) + "]";
        if (!field.empty()) message += "." + std::string(field);
        message += value ? " = " + brief(*value) + ": " : ": missing; ";
        throw ParseError("trace.event", m_source, 0, 0, message + rule);
    }

    const FlatValue* find(const FlatValue& object, const char* key) const {
        return m_event.find(object, key);
    }

    double time(const FlatValue& event, const char* key, std::size_t i, const std::string& rule) const {
        const FlatValue* value = find(event, key);
        if (!value) fail(i, key, nullptr, rule);
        if (!value->isNumber()) fail(i, key, value, rule);
        const double number = value->number;
        if (!std::isfinite(number) || number < 0) fail(i, key, value, rule);
        return number;
    }

    /// An integer arg in [lo, hi]; `fallback` when absent (nullopt: required).
    std::int64_t integer(const FlatValue& args, const char* key, std::int64_t lo, std::int64_t hi,
                         std::optional<std::int64_t> fallback, std::size_t i, const std::string& why) const {
        const FlatValue* value = find(args, key);
        const std::string field = std::string("args.") + key;
        if (!value) {
            if (fallback) return *fallback;
            fail(i, field, nullptr, integerRule(lo, hi, why));
        }
        if (value->type == FlatValue::Type::Unsigned) {
            const auto number = value->unsignedValue;
            if (number <= std::uint64_t(hi) && std::int64_t(number) >= lo) return std::int64_t(number);
        } else if (value->type == FlatValue::Type::Integer) {
            const auto number = value->integer;
            if (number >= lo && number <= hi) return number;
        }
        fail(i, field, value, integerRule(lo, hi, why));
    }

    std::string_view text(const FlatValue& args, const char* key, std::size_t i,
                          const std::string& rule) const {
        const FlatValue* value = find(args, key);
        if (!value) fail(i, std::string("args.") + key, nullptr, rule);
        if (!value->isString()) fail(i, std::string("args.") + key, value, rule);
        return value->text;
    }

    /// Looks at the element `i` of traceEvents, the object `text`; keeps it when it is a
    /// pipeline slice.
    void take(std::string_view text, std::size_t i) {
        m_event.read(text);
        const FlatValue& event = m_event.root();
        const FlatValue* ph = find(event, "ph");
        if (!ph || !ph->isString() || ph->text != "X") return;
        const FlatValue* catValue = find(event, "cat");
        const std::string_view cat = catValue && catValue->isString() ? catValue->text : std::string_view();
        const bool ours = isClaimedCategory(cat);
        const FlatValue* args = find(event, "args");
        const bool hasIdentity = args && args->isObject() && find(*args, "kind");

        Claimed c;
        if (i > std::numeric_limits<std::uint32_t>::max())
            throw ParseError("trace.limit", m_source, 0, 0,
                             "more than " + std::to_string(std::numeric_limits<std::uint32_t>::max()) +
                                 " events; this reader stops there");
        c.index = std::uint32_t(i);
        if (ours && hasIdentity) {
            fromArgs(*args, cat, i, c);
        } else {
            const FlatValue* name = find(event, "name");
            std::optional<Op> action;
            if (name && name->isString()) action = opOfName(name->text);
            // Only Stagecraft's categories: a range another tool named with an action string
            // (torch's "PP:2F0" user annotations) is that tool's reader's (io/torch_trace.h).
            if (!ours) return;
            if (!action) {
                if (args && !args->isObject()) fail(i, "args", args, "must be an object");
                fail(i, "args.kind", nullptr,
                     "a '" + std::string(cat) +
                         "' slice carries its op in args (kind, mb, stage, pipe, chunk) or is named with an "
                         "action string such as '2F0'");
            }
            c.fromName = true;
            c.chunkKnown = false;
            c.event.op = *action;
            if (action->stage > kMaxIndex || action->mb > kMaxIndex)
                fail(i, "name", name, "stage and micro-batch must be at most " + std::to_string(kMaxIndex));
        }

        const FlatValue* pid = find(event, "pid");
        const std::string pidRule = "a slice needs an integer pid in 0.." + std::to_string(kMaxPid);
        if (!pid) fail(i, "pid", nullptr, pidRule);
        if (!pid->isInteger() || pid->asInt64() < 0 || pid->asInt64() > kMaxPid) fail(i, "pid", pid, pidRule);
        c.pid = std::int32_t(pid->asInt64());
        c.event.start = time(event, "ts", i, "a timestamp must be a finite number >= 0 (µs)");
        const double dur = time(event, "dur", i, "a duration must be a finite number >= 0 (µs)");
        c.event.end = c.event.start + dur;
        if (!std::isfinite(c.event.end))
            fail(i, "dur", find(event, "dur"), "ts + dur must be a finite number (µs)");
        if (!c.fromName) {
            if (const FlatValue* end = find(*args, "end")) {
                if (!end->isNumber() || !std::isfinite(end->number) || end->number < c.event.start)
                    fail(i, "args.end", end, "an end must be a finite number >= ts (µs)");
                c.event.end = end->number;
            }
        }
        if (args && args->isObject() && find(*args, "iteration"))
            c.iteration = std::int32_t(integer(*args, "iteration", 0, kMaxIteration, std::nullopt, i,
                                               "(the iteration of the slice)"));
        if (m_slices.size() >= kMaxSlices)
            throw ParseError("trace.limit", m_source, 0, 0,
                             "more than " + std::to_string(kMaxSlices) +
                                 " pipeline slices; this reader stops there");
        m_slices.push_back(c);
        if (m_slices.size() - m_previewed >= TracePreview::kBlockSlices && TracePreview::active())
            previewBlock();
    }

    ClaimedSlices& slices() { return m_slices; }

  private:
    /// The slices kept since the last block, as events on their pid's row (TracePreview).
    void previewBlock() {
        std::vector<TimelineEvent> block;
        block.reserve(m_slices.size() - m_previewed);
        for (std::size_t k = m_previewed; k < m_slices.size(); ++k) {
            block.push_back(m_slices[k].event);
            block.back().device = m_slices[k].pid;
        }
        m_previewed = m_slices.size();
        TracePreview::publish(block);
    }

    static std::string integerRule(std::int64_t lo, std::int64_t hi, const std::string& why) {
        return "must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
               (why.empty() ? "" : " " + why);
    }

    void fromArgs(const FlatValue& args, std::string_view cat, std::size_t i, Claimed& c) const {
        const std::string kinds = "F, B, W, R, GradSync, Optimizer or send";
        const std::string_view kind = text(args, "kind", i, "must be one of " + kinds);
        if (kind != cat)
            fail(i, "args.kind", find(args, "kind"),
                 "must match the slice's cat \"" + std::string(cat) + "\"");
        TimelineEvent& e = c.event;
        const FlatValue* comm = find(args, "comm");
        if (comm) {
            const auto parsed = comm->isString() ? commFromName(comm->text) : std::nullopt;
            if (!parsed) fail(i, "args.comm", comm, "must be \"activation\", \"gradient\" or \"collective\"");
            e.comm = *parsed;
        }
        if (kind == "send") {
            const std::string_view op =
                text(args, "op", i, "a send names the kind of the op it carries (F, B, W)");
            const auto opKind = kindFromName(op);
            if (!opKind)
                fail(i, "args.op", find(args, "op"), "must be one of F, B, W, R, GradSync, Optimizer");
            e.op.kind = *opKind;
            if (!e.isTransfer())
                fail(i, "args.comm", comm, "a send moves an \"activation\" or a \"gradient\"");
            e.peer =
                std::int32_t(integer(args, "peer", 0, kMaxPid, std::nullopt, i, "(the receiving device)"));
        } else {
            e.op.kind = *kindFromName(kind);
            if (e.isTransfer())
                fail(i, "args.comm", comm,
                     "an " + std::string(commKindName(e.comm)) + " transfer has kind \"send\"");
            e.peer = std::int32_t(integer(args, "peer", -1, kMaxPid, -1, i, "(-1: none)"));
        }
        const bool perMicrobatch = isComputeKind(e.op.kind);
        e.op.mb = std::int32_t(perMicrobatch ? integer(args, "mb", 0, kMaxIndex, std::nullopt, i, "")
                                             : integer(args, "mb", -1, -1, -1, i, "(not per micro-batch)"));
        e.op.stage = std::int32_t(integer(args, "stage", 0, kMaxIndex, std::nullopt, i, ""));
        e.op.pipe = std::uint8_t(integer(args, "pipe", 0, kMaxPipes - 1, 0, i, ""));
        const FlatValue* chunk = find(args, "chunk");
        c.chunkKnown = chunk != nullptr;
        if (chunk) e.op.chunk = std::uint16_t(integer(args, "chunk", 0, kMaxChunks - 1, std::nullopt, i, ""));
        e.lane = defaultLane(e.comm);
        if (const FlatValue* lane = find(args, "lane")) {
            if (lane->isString() && lane->text == "compute")
                e.lane = Lane::Compute;
            else if (lane->isString() && lane->text == "comm")
                e.lane = Lane::Comm;
            else
                fail(i, "args.lane", lane, "must be \"compute\" or \"comm\"");
        }
    }

    const std::string& m_source;
    FlatObject m_event;
    ClaimedSlices m_slices;
    std::size_t m_previewed = 0; ///< slices handed to a TracePreview already
};

TimelineShape shapeFromOtherData(const json& other, const std::string& source, std::string& origin) {
    auto fail = [&](const std::string& id, const std::string& field, const json* value,
                    const std::string& rule) {
        throw ParseError(id, source, 0, 0,
                         "otherData." + field + (value ? " = " + brief(*value) + ": " : ": missing; ") +
                             rule);
    };
    const json& version = other.at("stagecraft_trace");
    if (!version.is_number_integer() || version.get<std::int64_t>() != kFormatVersion)
        fail("trace.version", "stagecraft_trace", &version,
             "this build reads Stagecraft trace version " + std::to_string(kFormatVersion));
    auto integer = [&](const char* key, int hi) {
        const auto it = other.find(key);
        const std::string rule = "must be an integer in 0.." + std::to_string(hi);
        if (it == other.end()) fail("trace.shape", key, nullptr, rule);
        if (!it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > hi)
            fail("trace.shape", key, &*it, rule);
        return int(it->get<std::int64_t>());
    };
    auto string = [&](const char* key, std::string& out) {
        const auto it = other.find(key);
        if (it == other.end()) return;
        if (!it->is_string()) fail("trace.shape", key, &*it, "must be a string");
        out = it->get<std::string>();
    };
    TimelineShape shape;
    string("schedule", shape.schedule);
    string("origin", origin);
    shape.devices = integer("devices", kMaxDevices);
    shape.pipes = integer("pipes", kMaxPipes);
    shape.stagesPerPipe = integer("stages_per_pipe", int(kMaxIndex) + 1);
    shape.microbatches = integer("microbatches", int(kMaxIndex) + 1);
    shape.chunksPerDevice = integer("chunks_per_device", kMaxChunks);
    const auto split = other.find("split_backward");
    if (split == other.end() || !split->is_boolean())
        fail("trace.shape", "split_backward", split == other.end() ? nullptr : &*split,
             "must be true or false");
    shape.splitBackward = split->get<bool>();
    // Written only for a schedule whose micro-batches are cut into sequence slices (ops' micro-batch
    // numbers are then slice units).
    if (other.contains("sequence_slices")) {
        shape.sequenceSlices = integer("sequence_slices", kMaxSequenceSlices);
        if (shape.sequenceSlices < 1 || shape.microbatches % shape.sequenceSlices != 0)
            fail("trace.shape", "sequence_slices", &*other.find("sequence_slices"),
                 "must be at least 1 and divide microbatches (the slice units)");
    }
    if (const auto overlapped = other.find("overlapped"); overlapped != other.end()) {
        const std::string rule = "must be an array of [pipe, stage, micro-batch, chunk] inside the shape";
        if (!overlapped->is_array() || overlapped->size() > kMaxOps)
            fail("trace.shape", "overlapped", &*overlapped, rule);
        const std::array<std::int64_t, 4> limits{shape.pipes, shape.stagesPerPipe, shape.microbatches,
                                                 shape.chunksPerDevice};
        for (const json& head : *overlapped) {
            if (!head.is_array() || head.size() != 4) fail("trace.shape", "overlapped", &head, rule);
            std::array<std::int64_t, 4> v{};
            for (std::size_t k = 0; k < 4; ++k) {
                if (!head[k].is_number_integer() || head[k].get<std::int64_t>() < 0 ||
                    head[k].get<std::int64_t>() >= limits[k])
                    fail("trace.shape", "overlapped", &head, rule);
                v[k] = head[k].get<std::int64_t>();
            }
            shape.overlapped.push_back(Op{OpKind::F, std::uint8_t(v[0]), std::uint16_t(v[3]),
                                          std::int32_t(v[1]), std::int32_t(v[2])});
        }
    }
    return shape;
}

/// Devices of a trace without a Stagecraft shape: its distinct pids in ascending order.
int mapPidsToDevices(ClaimedSlices& slices) {
    std::vector<std::int64_t> pids;
    pids.reserve(slices.size());
    for (const Claimed& c : slices) pids.push_back(c.pid);
    std::sort(pids.begin(), pids.end());
    pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
    for (Claimed& c : slices)
        c.event.device = std::int32_t(std::lower_bound(pids.begin(), pids.end(), c.pid) - pids.begin());
    return int(pids.size());
}

/// Chunk of slices that do not name one: the rank of their (pipe, stage) among the stages their
/// device runs, which is the chunk under looped and V placements.
void inferChunks(ClaimedSlices& slices, int devices) {
    if (std::all_of(slices.begin(), slices.end(), [](const Claimed& c) { return c.chunkKnown; })) return;
    auto stages = std::vector<std::vector<std::uint64_t>>(std::size_t(devices));
    auto key = [](const Op& op) { return std::uint64_t(op.pipe) << 32 | std::uint32_t(op.stage); };
    for (const Claimed& c : slices) stages[std::size_t(c.event.device)].push_back(key(c.event.op));
    for (auto& list : stages) {
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
    }
    for (Claimed& c : slices) {
        if (c.chunkKnown) continue;
        const auto& list = stages[std::size_t(c.event.device)];
        const auto rank = std::lower_bound(list.begin(), list.end(), key(c.event.op)) - list.begin();
        c.event.op.chunk = std::uint16_t(std::min<std::ptrdiff_t>(rank, kMaxChunks - 1));
    }
}

TimelineShape inferShape(const ClaimedSlices& slices, int devices) {
    TimelineShape shape;
    shape.devices = devices;
    shape.stagesPerPipe = 0;
    for (const Claimed& c : slices) {
        const Op& op = c.event.op;
        shape.devices = std::max(shape.devices, c.event.peer + 1);
        shape.pipes = std::max(shape.pipes, int(op.pipe) + 1);
        shape.stagesPerPipe = std::max(shape.stagesPerPipe, op.stage + 1);
        shape.microbatches = std::max(shape.microbatches, op.mb + 1);
        shape.chunksPerDevice = std::max(shape.chunksPerDevice, int(op.chunk) + 1);
        shape.splitBackward = shape.splitBackward || op.kind == OpKind::W;
    }
    return shape;
}

/// "0..3, 7, 9..12": iteration ids, runs of consecutive ids collapsed (a runtime measures
/// hundreds).
std::string idList(const std::vector<int>& ids) {
    std::string text;
    for (std::size_t k = 0; k < ids.size();) {
        std::size_t last = k;
        while (last + 1 < ids.size() && ids[last + 1] == ids[last] + 1) ++last;
        if (!text.empty()) text += ", ";
        text += std::to_string(ids[k]);
        if (last > k) text += (last == k + 1 ? ", " : "..") + std::to_string(ids[last]);
        k = last + 1;
    }
    return text;
}

/// Keeps the slices of the wanted iteration, shifted so that the earliest starts at 0. Slices
/// either all carry args.iteration or none does; without it the trace is one iteration.
void selectIteration(ClaimedSlices& slices, const TraceReadOptions& options, const std::string& source,
                     TraceInfo& info) {
    const auto with =
        std::find_if(slices.begin(), slices.end(), [](const Claimed& c) { return c.iteration >= 0; });
    if (options.iteration < -1)
        throw ParseError("trace.iteration", source, 0, 0,
                         "iteration " + std::to_string(options.iteration) +
                             ": must be -1 (the last) or an iteration id of the trace");
    if (with == slices.end()) {
        if (options.iteration >= 0)
            throw ParseError(
                "trace.iteration", source, 0, 0,
                "iteration " + std::to_string(options.iteration) +
                    " asked for, but no slice carries args.iteration: the trace is one iteration");
        return;
    }
    const auto without =
        std::find_if(slices.begin(), slices.end(), [](const Claimed& c) { return c.iteration < 0; });
    if (without != slices.end())
        throw ParseError("trace.event", source, 0, 0,
                         "traceEvents[" + std::to_string(without->index) +
                             "].args.iteration: missing; when one slice carries an iteration every pipeline "
                             "slice does (traceEvents[" +
                             std::to_string(with->index) + "] does)");
    std::vector<int> ids;
    for (const Claimed& c : slices) ids.push_back(int(c.iteration));
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    const int wanted = options.iteration == -1 ? ids.back() : options.iteration;
    if (!std::binary_search(ids.begin(), ids.end(), wanted))
        throw ParseError("trace.iteration", source, 0, 0,
                         "iteration " + std::to_string(wanted) + " is not in the trace; it holds iteration" +
                             (ids.size() == 1 ? " " : "s ") + idList(ids));
    slices.erase(
        std::remove_if(slices.begin(), slices.end(), [&](const Claimed& c) { return c.iteration != wanted; }),
        slices.end());
    double first = INFINITY;
    for (const Claimed& c : slices) first = std::min(first, c.event.start);
    for (Claimed& c : slices) {
        c.event.start -= first;
        c.event.end -= first;
    }
    info.iterations = int(ids.size());
    info.iterationIds = std::move(ids);
    info.iteration = wanted;
}

/// otherData.run of a Stagecraft trace, as JSON text.
std::string runOf(const json& other, const std::string& source) {
    const auto run = other.find("run");
    if (run == other.end()) return {};
    if (!run->is_object())
        throw ParseError("trace.shape", source, 0, 0,
                         "otherData.run = " + brief(*run) + ": must be a JSON object");
    return run->dump(-1, ' ', false, json::error_handler_t::replace);
}

/// Timeline order: each device's ops (compute lane by start time; an op on the communication
/// lane, such as a gradient sync, stays after the compute op it follows in the file), devices in
/// order, then the transfers in file order.
std::vector<TimelineEvent> orderEvents(const ClaimedSlices& slices, int devices) {
    // 32-bit positions: slices are at most kMaxTraceSlices.
    auto perDevice = std::vector<std::vector<std::uint32_t>>(std::size_t(devices));
    std::vector<std::uint32_t> transfers;
    for (std::uint32_t k = 0; k < slices.size(); ++k) {
        if (slices[k].event.isTransfer())
            transfers.push_back(k);
        else
            perDevice[std::size_t(slices[k].event.device)].push_back(k);
    }
    std::vector<TimelineEvent> events;
    events.reserve(slices.size());
    struct Segment {
        std::uint32_t begin, end; ///< into the device's file-order list; begin is a compute-lane op
    };
    for (auto& list : perDevice) {
        std::uint32_t front = 0;
        while (front < list.size() && slices[list[front]].event.lane != Lane::Compute) ++front;
        for (std::uint32_t k = 0; k < front; ++k) events.push_back(slices[list[k]].event);
        std::vector<Segment> segments;
        for (std::uint32_t k = front; k < list.size(); ++k) {
            if (slices[list[k]].event.lane == Lane::Compute)
                segments.push_back({k, k + 1});
            else
                segments.back().end = k + 1;
        }
        auto byStart = [&](const Segment& a, const Segment& b) {
            return slices[list[a.begin]].event.start < slices[list[b.begin]].event.start;
        };
        if (!std::is_sorted(segments.begin(), segments.end(), byStart))
            std::stable_sort(segments.begin(), segments.end(), byStart);
        for (const Segment& s : segments)
            for (std::uint32_t k = s.begin; k < s.end; ++k) events.push_back(slices[list[k]].event);
        std::vector<std::uint32_t>().swap(list); // done with it
    }
    for (const std::uint32_t k : transfers) events.push_back(slices[k].event);
    return events;
}

/// The largest event, or otherData, the reader holds at once.
constexpr std::size_t kMaxKeptValueBytes = std::size_t(64) << 20;

/// What the walk over a trace's text found besides the slices.
struct TraceScan {
    bool topIsObject = false;
    bool sawEvents = false;
    std::optional<std::string> otherData;   ///< the text of the last otherData
    std::optional<std::string> eventsValue; ///< the text of the last traceEvents that is not an array
};

/// Walks the text once, checking that it is JSON as it goes, and hands each element of
/// traceEvents to `reader` as soon as it is read; only that element (and otherData) is held.
void scanTrace(ByteSource& in, SliceReader& reader, const std::string& source, TraceScan& scan) {
    JsonStreamScanner scanner(in, kMaxDepth);
    scanner.skipByteOrderMark();
    std::size_t element = 0;
    // `depth`: the containers open around an element (the depth nlohmann's callbacks see).
    const auto readEvents = [&](int depth) {
        scanner.expect('[');
        if (scanner.next() == ']') {
            in.advance();
            return;
        }
        do {
            if (scanner.next() == '{') {
                in.mark(kMaxKeptValueBytes);
                scanner.skipValue(depth);
                reader.take(in.marked(), element);
                in.release();
            } else {
                scanner.skipValue(depth);
            }
            ++element;
        } while (scanner.commaOr(']'));
    };
    const auto keep = [&](std::optional<std::string>& out) {
        in.mark(kMaxKeptValueBytes);
        scanner.skipValue(1);
        out = std::string(in.marked());
        in.release();
    };
    const int first = scanner.next();
    if (first == '[') {
        scan.sawEvents = true;
        readEvents(1);
    } else if (first == '{') {
        scan.topIsObject = true;
        scanner.expect('{');
        if (scanner.next() == '}') {
            in.advance();
        } else {
            do {
                const std::string key = scanner.readString();
                scanner.expect(':');
                const bool isArray = scanner.next() == '[';
                if (key == "traceEvents" && isArray) {
                    if (scan.sawEvents)
                        throw ParseError("trace.container", source, 0, 0, "traceEvents appears twice");
                    scan.sawEvents = true;
                    readEvents(2);
                } else if (key == "traceEvents") {
                    keep(scan.eventsValue);
                } else if (key == "otherData") {
                    keep(scan.otherData);
                } else {
                    scanner.skipValue(1);
                }
            } while (scanner.commaOr('}'));
        }
    } else {
        scanner.skipValue(0);
    }
    scanner.expectEnd();
}

/// The first slice that breaks a rule of the shape or repeats an op, in slice order, thrown.
/// Repeats are found on sorted keys rather than in a hash table: 16 bytes a slice.
void checkSlices(const ClaimedSlices& slices, const TimelineShape& shape, const std::string& source) {
    std::size_t bad = slices.size();
    std::optional<EventProblem> problem;
    for (std::size_t k = 0; k < slices.size() && !problem; ++k)
        if ((problem = checkEvent(slices[k].event, shape))) bad = k;
    std::size_t repeat = slices.size(), firstOfRepeat = 0;
    {
        std::vector<std::pair<std::uint64_t, std::uint32_t>> keys;
        keys.reserve(bad);
        for (std::uint32_t k = 0; k < bad; ++k)
            if (!slices[k].event.isTransfer()) keys.emplace_back(opIdentity(slices[k].event.op), k);
        std::sort(keys.begin(), keys.end());
        // In each run of one key, its second slice is the first repeat.
        for (std::size_t k = 1; k < keys.size(); ++k)
            if (keys[k].first == keys[k - 1].first && (k < 2 || keys[k - 2].first != keys[k].first) &&
                keys[k].second < repeat) {
                repeat = keys[k].second;
                firstOfRepeat = keys[k - 1].second;
            }
    }
    if (repeat < bad) {
        const Claimed& c = slices[repeat];
        throw ParseError("trace.event", source, 0, 0,
                         "traceEvents[" + std::to_string(c.index) + "]: op " +
                             opName(c.event.op, shape.splitBackward, shape.sequenceSlices) +
                             " appears twice (first at traceEvents[" +
                             std::to_string(slices[firstOfRepeat].index) + "])");
    }
    if (problem)
        throw ParseError("trace.event", source, 0, 0,
                         "traceEvents[" + std::to_string(slices[bad].index) + "]." + problem->traceField +
                             " = " + problem->value + ": " + problem->rule);
}

/// Reads a trace from `in`; `failure` finds the library's message when the text is not JSON.
template <typename FindFailure>
Timeline readTrace(ByteSource& in, const std::string& source, const TraceReadOptions& options,
                   TraceInfo* info, const FindFailure& failure) {
    const std::string_view head = in.available();
    if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
        static_cast<unsigned char>(head[1]) == 0x8b)
        throw ParseError("trace.json", source, 0, 0,
                         "the file is gzip-compressed; decompress it first (gunzip)");

    SliceReader reader(source);
    TraceScan scan;
    try {
        scanTrace(in, reader, source, scan);
    } catch (const JsonSyntaxError& e) {
        const JsonFailure found = failure();
        if (found.failed)
            throw ParseError("trace.json", source, found.at.line, found.at.column, found.reason);
        throw ParseError("trace.json", source, 0, 0,
                         "malformed JSON at byte " + std::to_string(e.offset) + ": " + e.reason);
    } catch (const JsonDepthError&) {
        throw ParseError("trace.json", source, 0, 0,
                         "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
    } catch (const JsonMarkLimit&) {
        throw ParseError("trace.limit", source, 0, 0,
                         "an event or otherData of more than " + std::to_string(kMaxKeptValueBytes >> 20) +
                             " MiB; this reader stops there");
    }
    if (!scan.sawEvents) {
        if (scan.topIsObject && scan.eventsValue)
            throw ParseError("trace.container", source, 0, 0,
                             "traceEvents = " + brief(json::parse(*scan.eventsValue, nullptr, false)) +
                                 ": must be an array of events");
        throw ParseError("trace.container", source, 0, 0,
                         "a Chrome trace is an array of events or an object with a traceEvents array");
    }

    TraceInfo found;
    ClaimedSlices& slices = reader.slices();
    selectIteration(slices, options, source, found);

    Timeline timeline;
    timeline.origin = "measured";
    const json other = scan.otherData ? json::parse(*scan.otherData, nullptr, false) : json();
    if (other.is_object() && other.contains("stagecraft_trace")) {
        timeline.shape = shapeFromOtherData(other, source, timeline.origin);
        found.runJson = runOf(other, source);
        for (Claimed& c : slices) {
            if (c.pid >= timeline.shape.devices)
                throw ParseError("trace.event", source, 0, 0,
                                 "traceEvents[" + std::to_string(c.index) +
                                     "].pid = " + std::to_string(c.pid) + ": a device must be in [0, " +
                                     std::to_string(timeline.shape.devices) +
                                     ") (devices = " + std::to_string(timeline.shape.devices) + ")");
            c.event.device = std::int32_t(c.pid);
        }
        inferChunks(slices, timeline.shape.devices);
    } else {
        if (slices.empty())
            throw ParseError(
                "trace.empty", source, 0, 0,
                "no slice is a pipeline op: expected Stagecraft slices (cat F, B, W, ... with the op in "
                "args or named with an action string such as '2F0'); ranges torch named ('PP:2F0') "
                "are read as a torch trace (readMeasuredTrace)");
        const int devices = mapPidsToDevices(slices);
        inferChunks(slices, devices);
        timeline.shape = inferShape(slices, devices);
    }
    checkSlices(slices, timeline.shape, source);
    timeline.events = orderEvents(slices, timeline.shape.devices);
    if (info) *info = std::move(found);
    return timeline;
}

} // namespace

bool namesStagecraftTrace(std::string_view head) {
    return head.find("\"stagecraft_trace\"") != std::string_view::npos;
}

Timeline parseChromeTrace(std::string_view text, const std::string& source) {
    return parseChromeTrace(text, source, TraceReadOptions{});
}

Timeline parseChromeTrace(std::string_view text, const std::string& source, const TraceReadOptions& options,
                          TraceInfo* info) {
    if (text.size() > kMaxReadBytes)
        throw ParseError("trace.limit", source, 0, 0,
                         "the trace is " + std::to_string(text.size()) + " bytes; the limit is " +
                             std::to_string(kMaxReadBytes));
    ByteSource in(text);
    return readTrace(in, source, options, info, [&] { return findJsonFailure(text); });
}

Timeline readChromeTrace(const std::filesystem::path& path) {
    return readChromeTrace(path, TraceReadOptions{});
}

Timeline readChromeTrace(const std::filesystem::path& path, const TraceReadOptions& options,
                         TraceInfo* info) {
    // A project or a schedule given as a trace is refused from its first bytes (a gzip file gets
    // the reader's own advice).
    if (sniffFileKind(path) != FileKind::Gzip) requireFileKind(path, FileKind::ChromeTrace, "a Chrome trace");
    // Read block by block: memory follows the slices kept, not the size of the file.
    ByteSource in(path);
    return readTrace(in, path.string(), options, info, [&] { return findJsonFailure(path); });
}

} // namespace stagecraft
