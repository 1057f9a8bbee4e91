#include "io/measured_trace.h"

#include "error.h"
#include "file_io.h"
#include "file_kind.h"
#include "io/nsys_trace.h"
#include "io/torch_trace.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <tuple>

namespace stagecraft {

namespace {

/// Whether the file past its first `from` bytes holds one of torch's marks (namesTorchActions),
/// read block by block: memory stays one block whatever the file's size. Each block starts with
/// the previous one's last bytes, so a mark cut by a block's end is still found.
bool restNamesTorchActions(const std::filesystem::path& path, std::size_t from) {
    constexpr std::size_t kBlock = std::size_t(1) << 20, kCarry = 32; // longer than any mark
    std::ifstream in(path, std::ios::binary);
    if (!in.seekg(std::streamoff(from > kCarry ? from - kCarry : 0))) return false;
    std::string block(kBlock + kCarry, '\0');
    std::size_t kept = 0;
    while (in) {
        in.read(block.data() + kept, std::streamsize(kBlock));
        const std::size_t size = kept + std::size_t(std::max<std::streamsize>(0, in.gcount()));
        if (namesTorchActions(std::string_view(block.data(), size))) return true;
        kept = std::min(kCarry, size);
        std::memmove(block.data(), block.data() + size - kept, kept); // the ranges may overlap
    }
    return false;
}

} // namespace

TraceFormat detectTraceFormat(const std::filesystem::path& path) {
    const std::string head = fileHead(path);
    const FileKind kind = sniffTextKind(head);
    if (kind == FileKind::Sqlite) return TraceFormat::NsysSqlite;
    if (kind == FileKind::NsysJson) return TraceFormat::NsysJson;
    if (looksLikeTorchTrace(head)) return TraceFormat::Torch;
    // Stagecraft's writer opens with otherData.stagecraft_trace; a file whose head says nothing
    // either way is torch's when its rest carries torch's marks (the Stagecraft reader claims no
    // torch-named range: one reader per format).
    if (!namesStagecraftTrace(head) && head.size() == kSniffBytes && restNamesTorchActions(path, head.size()))
        return TraceFormat::Torch;
    return TraceFormat::Stagecraft;
}

Timeline medianTimeline(const std::vector<Timeline>& iterations) {
    if (iterations.empty()) return {};
    Timeline out = iterations.front();
    // Events of one identity (op, device, lane, kind of transfer) across the iterations.
    auto key = [](const TimelineEvent& e) {
        return std::tuple{int(e.op.kind), int(e.op.pipe), e.op.stage,  e.op.mb,
                          e.device,       e.peer,         int(e.lane), int(e.comm)};
    };
    std::map<decltype(key(out.events.front())), std::pair<std::vector<double>, std::vector<double>>> times;
    for (const Timeline& t : iterations)
        for (const TimelineEvent& e : t.events) {
            auto& [starts, ends] = times[key(e)];
            starts.push_back(e.start);
            ends.push_back(e.end);
        }
    auto median = [](std::vector<double>& v) {
        std::sort(v.begin(), v.end());
        const std::size_t n = v.size();
        return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    };
    for (TimelineEvent& e : out.events) {
        auto& [starts, ends] = times[key(e)];
        e.start = median(starts);
        e.end = std::max(e.start, median(ends));
    }
    return out;
}

namespace {

/// Refuses an SQLite export cut short before SQLite reads it (it would report a missing table).
void requireWholeSqlite(const std::filesystem::path& path) {
    const std::string head = fileHead(path, 100);
    std::error_code ec;
    const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
    if (ec) return; // the reader reports why the file cannot be read
    if (const std::string why = sqliteCutShort(head, bytes); !why.empty())
        throw ParseError("trace.sqlite", path.string(), 0, 0, why);
}

} // namespace

std::vector<RankTrace> readTraceRanks(const std::filesystem::path& path,
                                      const MeasuredTraceOptions& options) {
    if (!std::filesystem::exists(path)) (void)readTextFile(path); // the file_io error names the path
    const std::string name = path.string();
    switch (detectTraceFormat(path)) {
    case TraceFormat::Stagecraft:
        break;
    case TraceFormat::Torch:
        return readTorchTrace(path);
    case TraceFormat::NsysJson:
        return readNsysJson(path);
    case TraceFormat::NsysSqlite:
        if (!options.sqlite)
            throw ParseError("trace.container", name, 0, 0,
                             "an Nsight Systems SQLite export; this program was built without SQLite "
                             "(export with nsys export --type json instead)");
        requireWholeSqlite(path);
        return options.sqlite(path);
    }
    throw ParseError("trace.container", name, 0, 0,
                     "a Stagecraft trace holds every device of a run; open it alone, not with "
                     "other trace files");
}

Timeline readMeasuredTrace(const std::vector<std::filesystem::path>& paths,
                           const MeasuredTraceOptions& options, TraceInfo* traceInfo,
                           MeasuredRunInfo* runInfo) {
    if (paths.empty()) throw ParseError("trace.empty", "", 0, 0, "no trace file was given");
    // Every file is checked before any is parsed: a typo in the last of eight files is reported
    // before minutes of reading.
    for (const auto& p : paths)
        if (!std::filesystem::exists(p)) (void)readTextFile(p); // the file_io error names the path
    if (paths.size() == 1 && detectTraceFormat(paths.front()) == TraceFormat::Stagecraft) {
        if (options.run.pick != IterationPick::Median)
            return readChromeTrace(paths.front(), TraceReadOptions{options.run.iteration}, traceInfo);
        TraceInfo info;
        Timeline last = readChromeTrace(paths.front(), TraceReadOptions{-1}, &info);
        std::vector<Timeline> all;
        for (const int id : info.iterationIds)
            all.push_back(readChromeTrace(paths.front(), TraceReadOptions{id}));
        if (all.size() > 1) last = medianTimeline(all);
        info.iteration = -1;
        if (traceInfo) *traceInfo = info;
        return last;
    }
    std::vector<RankTrace> ranks;
    for (const auto& path : paths)
        for (RankTrace& t : readTraceRanks(path, options)) ranks.push_back(std::move(t));
    return assembleMeasuredTrace(std::move(ranks), options, traceInfo, runInfo);
}

Timeline assembleMeasuredTrace(std::vector<RankTrace> ranks, const MeasuredTraceOptions& options,
                               TraceInfo* traceInfo, MeasuredRunInfo* runInfo) {
    MeasuredRunInfo info;
    Timeline timeline = assembleMeasuredRun(std::move(ranks), options.run, &info);
    if (traceInfo) {
        *traceInfo = TraceInfo{};
        traceInfo->iterations = info.iterations;
        for (int k = 0; k < info.iterations; ++k) traceInfo->iterationIds.push_back(k);
        traceInfo->iteration = info.iteration;
    }
    if (runInfo) *runInfo = std::move(info);
    return timeline;
}

} // namespace stagecraft
