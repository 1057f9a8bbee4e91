#include "io/perfetto_trace.h"

#include "error.h"
#include "file_io.h"
#include "io/protobuf_writer.h"
#include "ir/op_name.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

namespace stagecraft {

namespace {

// Field numbers of Perfetto's protos/perfetto/trace (the subset written):
//   Trace { repeated TracePacket packet = 1; }
//   TracePacket { uint64 timestamp = 8; uint32 trusted_packet_sequence_id = 10;
//                 TrackEvent track_event = 11; TrackDescriptor track_descriptor = 60; }
//   TrackDescriptor { uint64 uuid = 1; string name = 2; ProcessDescriptor process = 3;
//                     ThreadDescriptor thread = 4; uint64 parent_uuid = 5; }
//   ProcessDescriptor { int32 pid = 1; string process_name = 6; }
//   ThreadDescriptor { int32 pid = 1; int32 tid = 2; string thread_name = 5; }
//   TrackEvent { Type type = 9 (SLICE_BEGIN = 1, SLICE_END = 2); uint64 track_uuid = 11; string name = 23; }
enum : std::uint32_t {
    kTracePacket = 1,
    kTimestamp = 8,
    kSequenceId = 10,
    kTrackEvent = 11,
    kTrackDescriptor = 60,
    kUuid = 1,
    kName = 2,
    kProcess = 3,
    kThread = 4,
    kParentUuid = 5,
    kPid = 1,
    kProcessName = 6,
    kTid = 2,
    kThreadName = 5,
    kEventType = 9,
    kTrackUuid = 11,
    kEventName = 23,
};
enum : std::uint64_t { kSliceBegin = 1, kSliceEnd = 2 };
constexpr std::uint32_t kSequence = 1;
constexpr std::int32_t kPidOfSchedule = 1;
constexpr std::uint64_t kProcessUuid = 1;

using Message = ProtobufMessage;

/// A TrackDescriptor packet: the process's track (`parent` 0) or a thread's under it.
void describeTrack(Message& trace, std::uint64_t uuid, std::uint64_t parent, std::uint32_t kind,
                   const Message& descriptor, std::string_view name = {}) {
    Message track;
    track.varint(kUuid, uuid);
    if (!name.empty()) track.bytes(kName, name);
    if (parent != 0) track.varint(kParentUuid, parent);
    track.message(kind, descriptor);
    Message packet;
    packet.message(kTrackDescriptor, track);
    trace.message(kTracePacket, packet);
}

void describeThread(Message& trace, std::uint64_t uuid, const std::string& name) {
    Message thread;
    thread.varint(kPid, kPidOfSchedule);
    thread.varint(kTid, uuid);
    thread.bytes(kThreadName, name);
    describeTrack(trace, uuid, kProcessUuid, kThread, thread);
}

void slice(Message& trace, std::uint64_t track, double startUs, double endUs, const std::string& name) {
    // Nanoseconds, rounded so that an end never comes before its start.
    const auto ns = [](double us) { return std::uint64_t(std::llround(us * 1000.0)); };
    for (const bool begin : {true, false}) {
        Message event;
        event.varint(kEventType, begin ? kSliceBegin : kSliceEnd);
        event.varint(kTrackUuid, track);
        if (begin) event.bytes(kEventName, name);
        Message packet;
        packet.varint(kTimestamp, ns(begin ? startUs : endUs));
        packet.varint(kSequenceId, kSequence);
        packet.message(kTrackEvent, event);
        trace.message(kTracePacket, packet);
    }
}

std::string eventName(const TimelineEvent& e, bool split) {
    const std::string op = opName(e.op, split);
    if (!e.isTransfer()) return op;
    return std::string(commKindName(e.comm)) + " " + op + " D" + std::to_string(e.device) + "\u2192D" +
           std::to_string(e.peer);
}

} // namespace

std::string timelineToPerfettoTrace(const Timeline& timeline, const std::string& title) {
    const int devices = timeline.shape.devices;
    for (std::size_t i = 0; i < timeline.events.size(); ++i) {
        const TimelineEvent& e = timeline.events[i];
        const std::string at = "events[" + std::to_string(i) + "]";
        if (!std::isfinite(e.start) || !std::isfinite(e.end) || e.start < 0 || e.end < e.start)
            throw ValidationError("trace.write", at,
                                  at + ": times must be finite, >= 0 and end >= start (start " +
                                      std::to_string(e.start) + ", end " + std::to_string(e.end) + ")");
        if (e.device < 0 || e.device >= devices)
            throw ValidationError("trace.write", at,
                                  at + ": device " + std::to_string(e.device) +
                                      " is outside the timeline's " + std::to_string(devices) + " devices");
    }
    Message trace;
    Message process;
    process.varint(kPid, kPidOfSchedule);
    process.bytes(kProcessName, title);
    describeTrack(trace, kProcessUuid, 0, kProcess, process, title);
    // Slices of one track nest; transfers of one device overlap (several in flight), so each
    // device's communication gets as many tracks as it has transfers at once: an event goes to its
    // device's first track free at its start (by start time), the compute lane to one of its own.
    std::vector<std::size_t> byStart(timeline.events.size());
    for (std::size_t i = 0; i < byStart.size(); ++i) byStart[i] = i;
    std::stable_sort(byStart.begin(), byStart.end(), [&](std::size_t a, std::size_t b) {
        return timeline.events[a].start < timeline.events[b].start;
    });
    struct Track {
        std::uint64_t uuid;
        double free;
    };
    std::vector<std::vector<Track>> commTracks(static_cast<std::size_t>(devices));
    std::vector<std::uint64_t> trackOfEvent(timeline.events.size());
    std::uint64_t next = kProcessUuid + 1;
    std::vector<std::uint64_t> computeTrack(static_cast<std::size_t>(devices));
    for (int d = 0; d < devices; ++d) {
        computeTrack[std::size_t(d)] = next++;
        describeThread(trace, computeTrack[std::size_t(d)], "D" + std::to_string(d));
    }
    for (const std::size_t i : byStart) {
        const TimelineEvent& e = timeline.events[i];
        if (e.lane == Lane::Compute) {
            trackOfEvent[i] = computeTrack[std::size_t(e.device)];
            continue;
        }
        std::vector<Track>& tracks = commTracks[std::size_t(e.device)];
        auto free =
            std::find_if(tracks.begin(), tracks.end(), [&](const Track& t) { return t.free <= e.start; });
        if (free == tracks.end()) {
            tracks.push_back({next++, 0});
            free = tracks.end() - 1;
            describeThread(trace, free->uuid,
                           "D" + std::to_string(e.device) + " comm" +
                               (tracks.size() > 1 ? " " + std::to_string(tracks.size()) : std::string()));
        }
        free->free = e.end;
        trackOfEvent[i] = free->uuid;
    }
    for (const std::size_t i : byStart) {
        const TimelineEvent& e = timeline.events[i];
        slice(trace, trackOfEvent[i], e.start, e.end, eventName(e, timeline.shape.splitBackward));
    }
    return trace.data();
}

void writePerfettoTrace(const Timeline& timeline, const std::filesystem::path& path,
                        const std::string& title) {
    writeFileAtomically(path, timelineToPerfettoTrace(timeline, title));
}

} // namespace stagecraft
