// The Stagecraft Chrome trace writer (timelineToChromeTrace, writeChromeTrace): otherData, a track
// per device and lane, events, flows, annotations and counters, under the rules the reader checks
// (chrome_trace_rules.h). The reader is chrome_trace.cpp.
#include "error.h"
#include "file_io.h"
#include "file_kind.h"
#include "io/chrome_trace.h"
#include "io/chrome_trace_rules.h"
#include "io/json_stream.h"
#include "ir/action.h"
#include "ir/op_name.h"
#include "ir/stage_flow.h"
#include "json_failure.h"
#include "validate/validator.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <deque>
#include <initializer_list>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace stagecraft {

using namespace chrome_trace_detail;

namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Writer.

void appendDouble(std::string& out, double value) {
    char buffer[32];
    // Shortest representation that parses back to the same double.
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, result.ptr);
}

void appendInt(std::string& out, long long value) {
    char buffer[24];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, result.ptr);
}

void appendString(std::string& out, std::string_view text) {
    const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
        return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x80 && c != '"' &&
               c != '\\';
    });
    if (plain) {
        out += '"';
        out += text;
        out += '"';
        return;
    }
    // Escapes and invalid UTF-8 (replaced by U+FFFD, so the file stays valid JSON).
    out += json(std::string(text)).dump(-1, ' ', false, json::error_handler_t::replace);
}

/// `,"key":`
void appendKey(std::string& out, std::string_view key) {
    out += ",\"";
    out += key;
    out += "\":";
}

std::string sliceName(const TimelineEvent& e, const TimelineShape& shape) {
    const std::string name = opName(e.op, shape.splitBackward, shape.sequenceSlices);
    if (!e.isTransfer()) return name;
    return std::string(e.comm == CommKind::Activation ? "SEND_F " : "SEND_B ") + name + " -> D" +
           std::to_string(e.peer);
}

void checkWritable(const Timeline& t) {
    const TimelineShape& shape = t.shape;
    auto fail = [](std::size_t i, const std::string& field, const std::string& value,
                   const std::string& rule) {
        const std::string where = "events[" + std::to_string(i) + "]." + field;
        throw ValidationError("trace.write", where, where + " = " + value + ": " + rule);
    };
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const TimelineEvent& e = t.events[i];
        if (!std::isfinite(e.start) || e.start < 0)
            fail(i, "start", std::to_string(e.start), "a start must be a finite number >= 0 (µs)");
        if (!std::isfinite(e.end) || e.end < e.start)
            fail(i, "end", std::to_string(e.end), "an end must be a finite number >= the start");
        if (const auto problem = checkEvent(e, shape))
            fail(i, problem->timelineField, problem->value, problem->rule);
    }
}

void checkIterations(const Timeline& t, const std::vector<std::uint32_t>& iterations) {
    if (iterations.empty()) return;
    if (iterations.size() != t.events.size())
        throw ValidationError("trace.write", "iterations",
                              "iterations has " + std::to_string(iterations.size()) + " entries for " +
                                  std::to_string(t.events.size()) +
                                  " events: give one iteration per event, or none");
    for (std::size_t i = 0; i < iterations.size(); ++i)
        if (iterations[i] > kMaxIteration) {
            const std::string where = "iterations[" + std::to_string(i) + "]";
            throw ValidationError("trace.write", where,
                                  where + " = " + std::to_string(iterations[i]) +
                                      ": an iteration must be at most " + std::to_string(kMaxIteration));
        }
}

/// The run's JSON is written as it is, so it is checked here: an object, and shallow enough that
/// the reader's depth limit does not refuse the file.
void checkRun(const std::string& runJson) {
    if (runJson.empty()) return;
    auto fail = [&](const std::string& rule) {
        std::string text = runJson.size() > 40 ? runJson.substr(0, 37) + "..." : runJson;
        throw ValidationError("trace.write", "runJson", "runJson = " + text + ": " + rule);
    };
    const auto depthLimit = [&](int depth, json::parse_event_t event, json&) {
        if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
            depth >= kMaxRunDepth)
            fail("nested deeper than " + std::to_string(kMaxRunDepth) + " levels");
        return true;
    };
    const json run = json::parse(runJson, depthLimit, /*allow_exceptions=*/false);
    if (run.is_discarded() || !run.is_object()) fail("must be the text of a JSON object");
}

void checkCounters(const std::vector<CounterTrack>& counters, int devices) {
    for (std::size_t c = 0; c < counters.size(); ++c) {
        const CounterTrack& track = counters[c];
        const std::string where = "counters[" + std::to_string(c) + "]";
        if (track.device < 0 || track.device >= devices)
            throw ValidationError("trace.write", where + ".device",
                                  where + ".device = " + std::to_string(track.device) +
                                      ": a device must be in [0, " + std::to_string(devices) + ")");
        for (std::size_t k = 0; k < track.points.size(); ++k)
            if (!std::isfinite(track.points[k].first) || !std::isfinite(track.points[k].second))
                throw ValidationError("trace.write", where + ".points",
                                      where + ".points[" + std::to_string(k) +
                                          "]: times and values must be finite");
    }
}

/// Annotations must stay invisible to the reader: neither a claimed category nor a name that is
/// an action string, or they would read back as ops.
void checkAnnotations(const std::vector<TraceSlice>& annotations, int devices) {
    auto fail = [](std::size_t i, const std::string& field, const std::string& value,
                   const std::string& rule) {
        const std::string where = "annotations[" + std::to_string(i) + "]." + field;
        throw ValidationError("trace.write", where, where + " = " + value + ": " + rule);
    };
    for (std::size_t i = 0; i < annotations.size(); ++i) {
        const TraceSlice& a = annotations[i];
        if (a.device < 0 || a.device >= devices)
            fail(i, "device", std::to_string(a.device),
                 "a device must be in [0, " + std::to_string(devices) + ")");
        if (!std::isfinite(a.start) || a.start < 0)
            fail(i, "start", std::to_string(a.start), "a start must be a finite number >= 0 (µs)");
        if (!std::isfinite(a.end) || a.end < a.start)
            fail(i, "end", std::to_string(a.end), "an end must be a finite number >= the start");
        if (a.iteration > kMaxIteration)
            fail(i, "iteration", std::to_string(a.iteration),
                 "an iteration must be at most " + std::to_string(kMaxIteration));
        if (isClaimedCategory(a.category))
            fail(
                i, "category", "\"" + a.category + "\"",
                "F, B, W, R, GradSync, Optimizer and send are op slices to the reader; use another category");
        if (opOfName(a.name))
            fail(i, "name", json(a.name).dump(-1, ' ', false, json::error_handler_t::replace),
                 "an action string names an op to the reader; use another name");
    }
}

/// Packs the intervals `list` names (`interval(i)` is {start, end}) into tracks so that slices on
/// one track never overlap (Perfetto nests slices per track): in start order, each goes to the
/// track that became free first if it is free by then, else to a new track. Returns the count.
template <typename Interval>
int packTracks(std::vector<std::size_t>& list, const Interval& interval, std::vector<int>& trackOf) {
    auto byStart = [&](std::size_t a, std::size_t b) { return interval(a).first < interval(b).first; };
    if (!std::is_sorted(list.begin(), list.end(), byStart))
        std::stable_sort(list.begin(), list.end(), byStart);
    using Free = std::pair<double, int>; // (end of the track's last slice, track)
    std::priority_queue<Free, std::vector<Free>, std::greater<>> free;
    int tracks = 0;
    for (const std::size_t i : list) {
        const auto [start, end] = interval(i);
        int track = 0;
        if (!free.empty() && free.top().first <= start) {
            track = free.top().second;
            free.pop();
        } else {
            track = tracks++;
        }
        free.emplace(end, track);
        trackOf[i] = track;
    }
    return tracks;
}

/// Tracks (tids) of each event and annotation. Track 0 of the compute lane is tid 0, track 0 of
/// the communication lane tid 1; overflow tracks follow, then the annotations' own threads, one
/// family per (lane, category): "comm wait", "comm wait 2" ...
struct TrackLayout {
    std::vector<int> tidOf;           ///< [event]
    std::vector<int> annotationTidOf; ///< [annotation]
    struct Thread {
        int tid;
        std::string name;
        int sortIndex;
    };
    std::vector<std::vector<Thread>> threads; ///< [device]
};

constexpr const char* laneName(int lane) {
    return lane == 0 ? "compute" : "comm";
}

void layoutEventTracks(const Timeline& t, TrackLayout& layout, std::vector<int>& nextTid) {
    const int devices = t.shape.devices;
    layout.tidOf.assign(t.events.size(), 0);
    auto byLane = std::vector<std::array<std::vector<std::size_t>, 2>>(std::size_t(devices));
    for (std::size_t i = 0; i < t.events.size(); ++i)
        byLane[std::size_t(t.events[i].device)][t.events[i].lane == Lane::Compute ? 0 : 1].push_back(i);
    const auto interval = [&](std::size_t i) { return std::pair(t.events[i].start, t.events[i].end); };
    std::vector<int> trackOf(t.events.size(), 0);
    for (int d = 0; d < devices; ++d) {
        for (int lane = 0; lane < 2; ++lane) {
            auto& list = byLane[std::size_t(d)][std::size_t(lane)];
            // A lane's first track exists even when the lane is empty.
            const int tracks = std::max(1, packTracks(list, interval, trackOf));
            std::vector<int> trackTid{lane};
            for (int k = 1; k < tracks; ++k) trackTid.push_back(nextTid[std::size_t(d)]++);
            for (const std::size_t i : list) layout.tidOf[i] = trackTid[std::size_t(trackOf[i])];
            for (std::size_t k = 0; k < trackTid.size(); ++k)
                layout.threads[std::size_t(d)].push_back(
                    {trackTid[k], k == 0 ? laneName(lane) : laneName(lane) + (" " + std::to_string(k + 1)),
                     lane * (1 << 20) + int(k)});
        }
    }
}

void layoutAnnotationTracks(const std::vector<TraceSlice>& annotations, TrackLayout& layout,
                            std::vector<int>& nextTid) {
    layout.annotationTidOf.assign(annotations.size(), 0);
    // Ordered by device, lane and category, so the tids do not depend on the annotations' order.
    std::map<std::tuple<int, int, std::string>, std::vector<std::size_t>> families;
    for (std::size_t i = 0; i < annotations.size(); ++i)
        families[{annotations[i].device, annotations[i].lane == Lane::Compute ? 0 : 1,
                  annotations[i].category}]
            .push_back(i);
    const auto interval = [&](std::size_t i) { return std::pair(annotations[i].start, annotations[i].end); };
    std::vector<int> trackOf(annotations.size(), 0);
    std::map<std::pair<int, int>, int> placed; // (device, lane) -> annotation threads so far
    for (auto& [key, list] : families) {
        const auto& [device, lane, category] = key;
        const int tracks = packTracks(list, interval, trackOf);
        const std::string base =
            std::string(laneName(lane)) + " " + (category.empty() ? std::string("annotations") : category);
        std::vector<int> trackTid;
        for (int k = 0; k < tracks; ++k) {
            trackTid.push_back(nextTid[std::size_t(device)]++);
            // After the lane's own tracks, before the next lane's.
            const int sortIndex = lane * (1 << 20) + (1 << 19) + placed[{device, lane}]++;
            layout.threads[std::size_t(device)].push_back(
                {trackTid.back(), k == 0 ? base : base + " " + std::to_string(k + 1), sortIndex});
        }
        for (const std::size_t i : list) layout.annotationTidOf[i] = trackTid[std::size_t(trackOf[i])];
    }
}

TrackLayout layoutTracks(const Timeline& t, const std::vector<TraceSlice>& annotations) {
    TrackLayout layout;
    layout.threads.resize(std::size_t(t.shape.devices));
    std::vector<int> nextTid(std::size_t(t.shape.devices), 2);
    layoutEventTracks(t, layout, nextTid);
    layoutAnnotationTracks(annotations, layout, nextTid);
    return layout;
}

void appendMetadata(std::string& out, const char* name, int pid, const int* tid, std::string_view key,
                    const std::string* text, int number) {
    out += "{\"ph\":\"M\",\"name\":\"";
    out += name;
    out += "\",\"pid\":";
    appendInt(out, pid);
    if (tid) {
        out += ",\"tid\":";
        appendInt(out, *tid);
    }
    out += ",\"args\":{\"";
    out += key;
    out += "\":";
    if (text)
        appendString(out, *text);
    else
        appendInt(out, number);
    out += "}},\n";
}

/// A duration whose sum with the start gives back the end exactly, when a double does (then
/// the reader needs no args.end).
double exactDuration(double start, double end) {
    double dur = end - start;
    if (start + dur != end) {
        const double up = std::nextafter(dur, INFINITY), down = std::nextafter(dur, 0.0);
        if (start + up == end)
            dur = up;
        else if (down >= 0 && start + down == end)
            dur = down;
    }
    return dur;
}

/// `iteration`: args.iteration, written only for a timeline of several iterations, so that the
/// file of one iteration stays as it was.
void appendSlice(std::string& out, const TimelineEvent& e, int tid, const TimelineShape& shape,
                 const std::uint32_t* iteration) {
    out += "{\"ph\":\"X\",\"name\":";
    appendString(out, sliceName(e, shape));
    const char* kind = e.isTransfer() ? "send" : opKindName(e.op.kind);
    out += ",\"cat\":\"";
    out += kind;
    out += "\",\"pid\":";
    appendInt(out, e.device);
    appendKey(out, "tid");
    appendInt(out, tid);
    appendKey(out, "ts");
    appendDouble(out, e.start);
    // When no duration gives the end back exactly, args.end carries it.
    const double dur = exactDuration(e.start, e.end);
    const bool exact = e.start + dur == e.end;
    appendKey(out, "dur");
    appendDouble(out, dur);
    out += ",\"args\":{\"kind\":\"";
    out += kind;
    out += '"';
    if (e.comm != CommKind::None) {
        appendKey(out, "comm");
        out += '"';
        out += commKindName(e.comm);
        out += '"';
    }
    if (e.peer >= 0) {
        appendKey(out, "peer");
        appendInt(out, e.peer);
    }
    if (e.isTransfer()) {
        appendKey(out, "op");
        out += '"';
        out += opKindName(e.op.kind);
        out += '"';
    }
    appendKey(out, "mb");
    appendInt(out, e.op.mb);
    appendKey(out, "stage");
    appendInt(out, e.op.stage);
    appendKey(out, "pipe");
    appendInt(out, e.op.pipe);
    appendKey(out, "chunk");
    appendInt(out, e.op.chunk);
    if (iteration) {
        appendKey(out, "iteration");
        appendInt(out, *iteration);
    }
    if (e.lane != defaultLane(e.comm)) {
        appendKey(out, "lane");
        out += e.lane == Lane::Compute ? "\"compute\"" : "\"comm\"";
    }
    if (!exact) {
        appendKey(out, "end");
        appendDouble(out, e.end);
    }
    out += "}},\n";
}

void appendAnnotation(std::string& out, const TraceSlice& a, int tid) {
    out += "{\"ph\":\"X\",\"name\":";
    appendString(out, a.name);
    appendKey(out, "cat");
    appendString(out, a.category);
    appendKey(out, "pid");
    appendInt(out, a.device);
    appendKey(out, "tid");
    appendInt(out, tid);
    appendKey(out, "ts");
    appendDouble(out, a.start);
    appendKey(out, "dur");
    appendDouble(out, exactDuration(a.start, a.end));
    out += ",\"args\":{\"iteration\":";
    appendInt(out, a.iteration);
    out += "}},\n";
}

void appendFlow(std::string& out, char phase, std::size_t id, const char* name, int pid, int tid, double ts) {
    out += "{\"ph\":\"";
    out += phase;
    out += "\",\"id\":";
    appendInt(out, static_cast<long long>(id));
    out += ",\"name\":\"";
    out += name;
    out += "\",\"cat\":\"transfer\",\"pid\":";
    appendInt(out, pid);
    appendKey(out, "tid");
    appendInt(out, tid);
    appendKey(out, "ts");
    appendDouble(out, ts);
    if (phase == 'f') out += ",\"bp\":\"e\"";
    out += "},\n";
}

/// The op a transfer feeds: the next stage's F for an activation, the previous stage's B for a
/// gradient (stage_flow.h's direction of the data).
Op consumerOf(const TimelineEvent& e) {
    Op op = e.op;
    op.stage += flowStep(e.comm == CommKind::Activation ? OpKind::F : OpKind::B);
    return op;
}

void appendOtherData(std::string& out, const Timeline& t, const ChromeTraceOptions& options) {
    const TimelineShape& shape = t.shape;
    out += "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"stagecraft_trace\":";
    appendInt(out, kFormatVersion);
    for (const auto& [key, text] : {std::pair<const char*, const std::string&>{"schedule", shape.schedule},
                                    {"origin", t.origin},
                                    {"title", options.title}}) {
        appendKey(out, key);
        appendString(out, text);
    }
    for (const auto& [key, value] : {std::pair<const char*, int>{"devices", shape.devices},
                                     {"pipes", shape.pipes},
                                     {"stages_per_pipe", shape.stagesPerPipe},
                                     {"microbatches", shape.microbatches},
                                     {"chunks_per_device", shape.chunksPerDevice}}) {
        appendKey(out, key);
        appendInt(out, value);
    }
    appendKey(out, "split_backward");
    out += shape.splitBackward ? "true" : "false";
    if (shape.sequenceSlices > 1) {
        appendKey(out, "sequence_slices");
        appendInt(out, shape.sequenceSlices);
    }
    if (!shape.overlapped.empty()) {
        // Heads of overlapped forward-backward slots as [pipe, stage, micro-batch, chunk].
        appendKey(out, "overlapped");
        out += '[';
        for (std::size_t i = 0; i < shape.overlapped.size(); ++i) {
            const Op& op = shape.overlapped[i];
            out += i == 0 ? "[" : ",[";
            appendInt(out, op.pipe);
            out += ',';
            appendInt(out, op.stage);
            out += ',';
            appendInt(out, op.mb);
            out += ',';
            appendInt(out, op.chunk);
            out += ']';
        }
        out += ']';
    }
    if (!options.runJson.empty()) {
        appendKey(out, "run");
        out += options.runJson; // checked to be a JSON object
    }
    out += "},\n";
}

void appendProcesses(std::string& out, int devices, const std::vector<std::string>& deviceNames,
                     const TrackLayout& tracks) {
    for (int d = 0; d < devices; ++d) {
        const std::string name =
            std::size_t(d) < deviceNames.size() ? deviceNames[std::size_t(d)] : "Device " + std::to_string(d);
        appendMetadata(out, "process_name", d, nullptr, "name", &name, 0);
        appendMetadata(out, "process_sort_index", d, nullptr, "sort_index", nullptr, d);
        for (const auto& thread : tracks.threads[std::size_t(d)]) {
            appendMetadata(out, "thread_name", d, &thread.tid, "name", &thread.name, 0);
            appendMetadata(out, "thread_sort_index", d, &thread.tid, "sort_index", nullptr, thread.sortIndex);
        }
    }
}

/// The slices of the events, each transfer followed by its arrow to the op that consumes it: the
/// consumer of the same iteration when the timeline holds several.
void appendEvents(std::string& out, const Timeline& t, const std::vector<std::uint32_t>& iterations,
                  const TrackLayout& tracks) {
    const auto iterationOf = [&](std::size_t i) { return iterations.empty() ? 0u : iterations[i]; };
    std::unordered_map<IterationOp, std::size_t, IterationOpHash> opEvent;
    if (std::any_of(t.events.begin(), t.events.end(),
                    [](const TimelineEvent& e) { return e.isTransfer(); })) {
        opEvent.reserve(t.events.size());
        for (std::size_t i = 0; i < t.events.size(); ++i)
            if (!t.events[i].isTransfer())
                opEvent.emplace(IterationOp{iterationOf(i), opIdentity(t.events[i].op)}, i);
    }
    std::size_t flowId = 0;
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const TimelineEvent& e = t.events[i];
        appendSlice(out, e, tracks.tidOf[i], t.shape, iterations.empty() ? nullptr : &iterations[i]);
        if (!e.isTransfer()) continue;
        const auto consumer = opEvent.find(IterationOp{iterationOf(i), opIdentity(consumerOf(e))});
        if (consumer == opEvent.end() || t.events[consumer->second].device != e.peer) continue;
        const TimelineEvent& to = t.events[consumer->second];
        const char* name = commKindName(e.comm);
        ++flowId;
        appendFlow(out, 's', flowId, name, e.device, tracks.tidOf[i], e.start);
        appendFlow(out, 'f', flowId, name, to.device, tracks.tidOf[consumer->second], to.start);
    }
}

void appendCounters(std::string& out, const std::vector<CounterTrack>& counters) {
    for (const CounterTrack& track : counters)
        for (const auto& [time, value] : track.points) {
            out += "{\"ph\":\"C\",\"name\":";
            appendString(out, track.name);
            appendKey(out, "pid");
            appendInt(out, track.device);
            appendKey(out, "ts");
            appendDouble(out, time);
            out += ",\"args\":{\"value\":";
            appendDouble(out, value);
            out += "}},\n";
        }
}

} // namespace

std::string timelineToChromeTrace(const Timeline& t, const ChromeTraceOptions& options) {
    checkWritable(t);
    checkIterations(t, options.iterations);
    checkCounters(options.counters, t.shape.devices);
    checkAnnotations(options.annotations, t.shape.devices);
    checkRun(options.runJson);

    std::string out;
    out.reserve(256 + options.runJson.size() + (t.events.size() + options.annotations.size()) * 200);
    appendOtherData(out, t, options);
    out += "\"traceEvents\":[\n";
    const TrackLayout tracks = layoutTracks(t, options.annotations);
    appendProcesses(out, t.shape.devices, options.deviceNames, tracks);
    appendEvents(out, t, options.iterations, tracks);
    for (std::size_t a = 0; a < options.annotations.size(); ++a)
        appendAnnotation(out, options.annotations[a], tracks.annotationTidOf[a]);
    appendCounters(out, options.counters);
    // Drop the last separator; an empty list stays "[\n]".
    if (out.size() >= 2 && out[out.size() - 2] == ',') out.erase(out.size() - 2, 1);
    out += "]}\n";
    return out;
}

void writeChromeTrace(const Timeline& timeline, const std::filesystem::path& path,
                      const ChromeTraceOptions& options) {
    writeFileAtomically(path, timelineToChromeTrace(timeline, options));
}

} // namespace stagecraft
