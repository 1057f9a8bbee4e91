#include "io/measured_trace.h"

#include "error.h"
#include "file_io.h"
#include "file_kind.h"
#include "io/nsys_trace.h"
#include "io/torch_trace.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <tuple>

namespace stagecraft {

TraceFormat detectTraceFormat(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(64 * 1024, '\0');
    in.read(head.data(), std::streamsize(head.size()));
    head.resize(std::size_t(std::max<std::streamsize>(0, in.gcount())));
    const FileKind kind = sniffTextKind(head);
    if (kind == FileKind::Sqlite) return TraceFormat::NsysSqlite;
    if (kind == FileKind::NsysJson) return TraceFormat::NsysJson;
    if (looksLikeTorchTrace(head)) return TraceFormat::Torch;
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

Timeline readMeasuredTrace(const std::vector<std::filesystem::path>& paths,
                           const MeasuredTraceOptions& options, TraceInfo* traceInfo,
                           MeasuredRunInfo* runInfo) {
    if (paths.empty()) throw ParseError("trace.empty", "", 0, 0, "no trace file was given");
    std::vector<TraceFormat> formats;
    for (const auto& p : paths) {
        if (!std::filesystem::exists(p)) (void)readTextFile(p); // the file_io error names the path
        formats.push_back(detectTraceFormat(p));
    }
    const bool stagecraft = formats.front() == TraceFormat::Stagecraft;
    if (stagecraft && paths.size() == 1) {
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
    for (std::size_t i = 0; i < paths.size(); ++i) {
        const std::string name = paths[i].string();
        std::vector<RankTrace> read;
        switch (formats[i]) {
        case TraceFormat::Stagecraft:
            throw ParseError("trace.container", name, 0, 0,
                             "a Stagecraft trace holds every device of a run; open it alone, not with "
                             "other trace files");
        case TraceFormat::Torch:
            read = readTorchTrace(paths[i]);
            break;
        case TraceFormat::NsysJson:
            read = readNsysJson(paths[i]);
            break;
        case TraceFormat::NsysSqlite:
            if (!options.sqlite)
                throw ParseError("trace.container", name, 0, 0,
                                 "an Nsight Systems SQLite export; this program was built without SQLite "
                                 "(export with nsys export --type json instead)");
            read = options.sqlite(paths[i]);
            break;
        }
        for (RankTrace& t : read) ranks.push_back(std::move(t));
    }
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
