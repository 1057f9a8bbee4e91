// The Perfetto protobuf export read back by a decoder of protobuf's wire format written from the
// format's specification (protobuf_wire.h), independent of the writer:
// every event of the timeline is one slice on its device's track, named and timed as the JSON
// trace has it. scripts/perfetto/check_pftrace.py reads the same files with Perfetto's own schema.
#include "error.h"
#include "generators/registry.h"
#include "io/perfetto_trace.h"
#include "ir/op_name.h"
#include "protobuf_wire.h"
#include "sim/list_scheduler.h"
#include "sim/simulator.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

using namespace stagecraft;

namespace {

using test::decode;
using test::Field;
using test::find;

struct Slice {
    std::string track, name;
    std::uint64_t start = 0, end = 0;
};

/// The slices of a trace, by Perfetto's field numbers (trace_packet.proto, track_event.proto).
std::vector<Slice> slicesOf(const std::string& trace) {
    std::map<std::uint64_t, std::string> trackName;
    std::map<std::uint64_t, std::vector<Slice>> open;
    std::vector<Slice> slices;
    for (const Field& packetField : decode(trace)) {
        REQUIRE(packetField.number == 1); // Trace.packet
        const std::vector<Field> packet = decode(packetField.bytes);
        if (const Field* d = find(packet, 60)) { // TracePacket.track_descriptor
            const std::vector<Field> track = decode(d->bytes);
            const std::uint64_t uuid = find(track, 1)->varint;
            if (const Field* thread = find(track, 4))
                trackName[uuid] = find(decode(thread->bytes), 5)->bytes;
            else
                trackName[uuid] = find(track, 2)->bytes;
            continue;
        }
        const Field* e = find(packet, 11); // TracePacket.track_event
        REQUIRE(e);
        const std::vector<Field> event = decode(e->bytes);
        const std::uint64_t track = find(event, 11)->varint;
        REQUIRE(trackName.count(track)); // described before its first event
        const std::uint64_t time = find(packet, 8)->varint;
        if (find(event, 9)->varint == 1) { // TYPE_SLICE_BEGIN
            open[track].push_back({trackName[track], find(event, 23)->bytes, time, 0});
        } else {
            REQUIRE(find(event, 9)->varint == 2); // TYPE_SLICE_END
            REQUIRE(!open[track].empty());
            Slice s = open[track].back();
            open[track].pop_back();
            s.end = time;
            slices.push_back(s);
        }
    }
    for (const auto& [track, stack] : open) CHECK(stack.empty());
    return slices;
}

} // namespace

TEST_CASE("the Perfetto protobuf trace reads back slice by slice", "[perfetto]") {
    const Schedule s = generateSchedule("zb-h1", {4, 8, 1});
    const Timeline timeline = simulate(s, fullStageCosts(s, 1000, 1000, 1000, 250));
    const std::vector<Slice> slices = slicesOf(timelineToPerfettoTrace(timeline, "zb-h1"));
    REQUIRE(slices.size() == timeline.events.size());
    std::map<std::string, std::size_t> perTrack;
    std::size_t transfers = 0;
    for (const Slice& slice : slices) ++perTrack[slice.track];
    for (const TimelineEvent& e : timeline.events) transfers += e.isTransfer();
    // 4 x 8 x 3 compute ops, 8 on each of D0..D3 per kind; transfers on the comm tracks.
    for (int d = 0; d < 4; ++d) CHECK(perTrack["D" + std::to_string(d)] == 3 * 8);
    CHECK(transfers > 0);
    std::size_t onComm = 0;
    for (const auto& [track, count] : perTrack)
        if (track.find(" comm") != std::string::npos) onComm += count;
    CHECK(onComm == transfers);
    // Names and ns times as the timeline has them.
    std::map<std::string, Slice> byName;
    for (const Slice& slice : slices)
        if (slice.track.find(" comm") == std::string::npos) byName[slice.name] = slice;
    for (const TimelineEvent& e : timeline.events) {
        if (e.lane != Lane::Compute) continue;
        const Slice& slice = byName.at(opName(e.op, true));
        CHECK(slice.track == "D" + std::to_string(e.device));
        CHECK(slice.start == std::uint64_t(std::llround(e.start * 1000)));
        CHECK(slice.end == std::uint64_t(std::llround(e.end * 1000)));
    }
}

TEST_CASE("the Perfetto protobuf trace refuses what it cannot write", "[perfetto]") {
    const Schedule s = generateSchedule("1f1b", {2, 2, 1});
    Timeline timeline = simulate(s, fullStageCosts(s, 1, 1, 1));
    timeline.events[1].end = NAN;
    try {
        timelineToPerfettoTrace(timeline, "t");
        FAIL("a non-finite time was written");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "trace.write");
        CHECK(std::string(e.what()).find("events[1]") != std::string::npos);
    }
    timeline.events[1].end = timeline.events[1].start;
    timeline.events[1].device = 7;
    CHECK_THROWS_AS(timelineToPerfettoTrace(timeline, "t"), ValidationError);
}
