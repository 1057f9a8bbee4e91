#include "view/view_sources.h"

#include "error.h"
#include "eval/evaluation_input.h"
#include "io/chrome_trace.h"
#include "io/trace_counters.h"

#include <chrono>
#include <fstream>
#include <new>
#include <system_error>

namespace stagecraft::view {
namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// The first bytes of a file, to tell a trace from a project without parsing either.
std::string head(const std::string& path, std::size_t bytes) {
    std::ifstream in(path, std::ios::binary);
    std::string text(bytes, '\0');
    in.read(text.data(), std::streamsize(bytes));
    text.resize(std::size_t(in.gcount()));
    return text;
}

void stamp(ViewSource& s) {
    std::error_code ec;
    s.size = std::filesystem::file_size(s.path, ec);
    if (ec) s.size = 0;
    s.mtime = std::filesystem::last_write_time(s.path, ec);
}

} // namespace

SourceKind classifySource(const std::string& path) {
    if (isScheduleFile(path)) return SourceKind::Schedule;
    if (endsWith(path, ".stagecraft.json")) return SourceKind::Project;
    const std::string start = head(path, 1 << 16);
    const std::size_t first = start.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    if (first != std::string::npos && start[first] == '[') return SourceKind::Trace;
    if (start.find("\"traceEvents\"") != std::string::npos) return SourceKind::Trace;
    if (endsWith(path, ".json") && start.find("\"model\"") == std::string::npos) return SourceKind::Trace;
    return SourceKind::Project;
}

ViewSource loadSource(const std::string& path, const LoadOptions& options) {
    ViewSource s;
    s.path = path;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        if (!std::filesystem::exists(path)) throw Error("io.read", "cannot open " + path + ": no such file");
        stamp(s);
        s.kind = classifySource(path);
        if (s.kind == SourceKind::Trace) {
            TraceReadOptions read;
            read.iteration = options.traceIteration;
            auto timeline = std::make_shared<Timeline>(readChromeTrace(path, read, &s.traceInfo));
            s.trace = std::move(timeline);
            // Counters are on the trace's own clock; a trace of several iterations is read as one
            // iteration moved to time 0, so its counters would not line up: they are left out.
            if (s.traceInfo.iterations <= 1) {
                const auto c0 = std::chrono::steady_clock::now();
                s.counters = readTraceCounters(path);
                s.counterSeconds =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
            }
        } else {
            EvaluationInput input;
            input.path = path;
            if (s.kind == SourceKind::Schedule) input.projectPath = options.costsProject;
            input.sets = options.sets;
            s.analysis = std::make_shared<AnalysisResult>(analyze(loadAnalysisRequest(input)));
            if (s.analysis->outcomes.empty()) {
                std::string why;
                for (const ScheduleRefusal& r : s.analysis->refusals)
                    why += (why.empty() ? "" : "; ") + r.name + ": " + r.message;
                s.error =
                    path + ": no schedule can be drawn" + (why.empty() ? std::string() : " (" + why + ")");
            }
        }
    } catch (const Error& e) {
        s.error = e.what();
        if (s.error.find(path) == std::string::npos) s.error = path + ": " + s.error;
    } catch (const std::bad_alloc&) {
        s.error = path + ": out of memory while reading it";
    } catch (const std::exception& e) {
        s.error = path + ": " + e.what();
    }
    if (!s.error.empty()) {
        s.trace.reset();
        s.analysis.reset();
    }
    s.loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return s;
}

bool sourceChanged(const ViewSource& source) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(source.path, ec);
    if (ec) return false;
    const auto mtime = std::filesystem::last_write_time(source.path, ec);
    if (ec) return false;
    return size != source.size || mtime != source.mtime;
}

} // namespace stagecraft::view
