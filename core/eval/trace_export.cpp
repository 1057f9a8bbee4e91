#include "eval/trace_export.h"

#include "io/chakra_trace.h"
#include "io/chrome_trace.h"
#include "io/perfetto_trace.h"
#include "passes/lower.h"

namespace stagecraft {

namespace {

/// The memory curves as counter tracks of the JSON trace: GiB, or activations at unit costs.
std::vector<CounterTrack> memoryCounters(const MemoryReport& memory, bool unitless) {
    std::vector<CounterTrack> tracks;
    for (std::size_t d = 0; d < memory.devices.size(); ++d) {
        CounterTrack track;
        track.device = int(d);
        track.name = unitless ? "activations (M_a)" : "memory (GiB)";
        for (const auto& [time, bytes] : memory.devices[d].curve)
            track.points.emplace_back(time, unitless ? bytes : bytes / double(1ull << 30));
        tracks.push_back(std::move(track));
    }
    return tracks;
}

} // namespace

std::optional<TraceExport> traceExportOf(std::string_view path) {
    if (path.ends_with(".pftrace") || path.ends_with(".perfetto-trace")) return TraceExport::PerfettoProtobuf;
    if (path.ends_with(".et")) return TraceExport::Chakra;
    if (path.ends_with(".json") && !path.ends_with(".metrics.json")) return TraceExport::ChromeJson;
    return std::nullopt;
}

std::string traceExtensions() {
    return ".json (Chrome/Perfetto JSON trace), .pftrace (Perfetto protobuf trace), .et (Chakra execution "
           "traces, one per rank)";
}

std::vector<std::filesystem::path> writeTraceExport(const Prediction& prediction, const std::string& path,
                                                    TraceExport format, const std::string& title) {
    switch (format) {
    case TraceExport::PerfettoProtobuf:
        writePerfettoTrace(prediction.timeline, path, title);
        return {path};
    case TraceExport::Chakra:
        return writeChakraTraces(
            lower(prediction.schedule,
                  boundaryBytesOf(prediction.schedule, prediction.setup.p2pBytesPerTransfer,
                                  prediction.setup.gradientBytes, prediction.setup.p2pSliceShares)),
            prediction.timeline, path.substr(0, path.size() - std::string_view(".et").size()));
    case TraceExport::ChromeJson:
        break;
    }
    ChromeTraceOptions trace;
    trace.title = title;
    trace.counters = memoryCounters(prediction.report.memory, prediction.setup.unitless);
    writeChromeTrace(prediction.timeline, path, trace);
    return {path};
}

} // namespace stagecraft
