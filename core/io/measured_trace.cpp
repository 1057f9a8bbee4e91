#include "io/measured_trace.h"

#include "error.h"
#include "file_io.h"
#include "io/nsys_trace.h"
#include "io/torch_trace.h"

#include <fstream>

namespace stagecraft {

TraceFormat detectTraceFormat(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(64 * 1024, '\0');
    in.read(head.data(), std::streamsize(head.size()));
    head.resize(std::size_t(std::max<std::streamsize>(0, in.gcount())));
    if (head.rfind("SQLite format 3", 0) == 0) return TraceFormat::NsysSqlite;
    if (looksLikeNsysJson(head)) return TraceFormat::NsysJson;
    if (looksLikeTorchTrace(head)) return TraceFormat::Torch;
    return TraceFormat::Stagecraft;
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
        if (options.run.pick == IterationPick::Median)
            throw ParseError(
                "trace.iteration", paths.front().string(), 0, 0,
                paths.front().string() +
                    ": a Stagecraft trace is read one iteration at a time; pick one with --iteration");
        return readChromeTrace(paths.front(), TraceReadOptions{options.run.iteration}, traceInfo);
    }
    std::vector<RankTrace> ranks;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        const std::string name = paths[i].string();
        std::vector<RankTrace> read;
        switch (formats[i]) {
        case TraceFormat::Stagecraft:
            throw ParseError("trace.container", name, 0, 0,
                             name +
                                 ": a Stagecraft trace holds every device of a run; open it alone, not with "
                                 "other trace files");
        case TraceFormat::Torch:
            read = readTorchTrace(paths[i]);
            break;
        case TraceFormat::NsysJson:
            read = readNsysJson(paths[i]);
            break;
        case TraceFormat::NsysSqlite:
            if (!options.sqlite)
                throw ParseError(
                    "trace.container", name, 0, 0,
                    name + ": an Nsight Systems SQLite export; this program was built without SQLite "
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
