#include "view/view_sources.h"

#include "error.h"
#include "eval/evaluation_input.h"
#include "eval/runtime_fit.h"
#include "eval/trace_read_options.h"
#include "io/chrome_trace.h"
#include "io/measured_trace.h"
#include "io/trace_counters.h"
#include "sqlite_rank_reader.h"

#include <chrono>
#include <fstream>
#include <new>
#include <set>
#include <system_error>

namespace stagecraft::view {
namespace {

FileStamp stampOf(const std::string& path) {
    FileStamp f;
    std::error_code ec;
    f.size = std::filesystem::file_size(path, ec);
    if (ec) f.size = 0;
    f.mtime = std::filesystem::last_write_time(path, ec);
    return f;
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Runs `read` on `s`, turning every exception into `s.error` prefixed with `name`.
template <typename Read>
void guarded(ViewSource& s, const std::string& name, Read&& read) {
    try {
        read();
    } catch (const Error& e) {
        s.error = e.what();
        if (s.error.find(name) == std::string::npos) s.error = name + ": " + s.error;
    } catch (const std::bad_alloc&) {
        s.error = name + ": out of memory while reading it";
    } catch (const std::exception& e) {
        s.error = name + ": " + e.what();
    }
    if (!s.error.empty()) {
        s.trace.reset();
        s.analysis.reset();
    }
}

MeasuredTraceOptions runOptions(const LoadOptions& options) {
    EvaluationInput input = options.input;
    input.sqliteReader = sqliteRankReader(); // Nsight Systems SQLite exports, as the app and the CLI
    return measuredTraceOptions(input);
}

/// A measured trace (core's MeasuredTrace) as the source of `files`.
void takeTrace(ViewSource& s, const MeasuredTrace& trace) {
    s.trace = trace.timeline;
    s.traceInfo = trace.info;
}

std::vector<std::filesystem::path> pathsOf(const std::vector<std::string>& files) {
    return {files.begin(), files.end()};
}

/// The source of one run from its files' ranks, read already.
ViewSource assembleRun(const std::vector<std::string>& files, std::vector<RankTrace> ranks,
                       const LoadOptions& options, double readSeconds) {
    ViewSource s;
    s.path = files.front();
    s.runFiles = files;
    s.kind = SourceKind::Trace;
    for (const std::string& f : files) s.stamps.push_back(stampOf(f));
    const auto t0 = std::chrono::steady_clock::now();
    std::string name;
    for (const std::string& f : files) name += (name.empty() ? "" : ", ") + f;
    guarded(s, name,
            [&] { takeTrace(s, loadMeasuredTrace(pathsOf(files), std::move(ranks), runOptions(options))); });
    s.loadSeconds = readSeconds + secondsSince(t0);
    return s;
}

} // namespace

bool isForeignTrace(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) || inputKind(path) != InputKind::Trace) return false;
    return detectTraceFormat(path) != TraceFormat::Stagecraft;
}

ViewSource loadSource(const std::string& path, const LoadOptions& options) {
    ViewSource s;
    s.path = path;
    const auto t0 = std::chrono::steady_clock::now();
    guarded(s, path, [&] {
        if (!std::filesystem::exists(path)) throw Error("io.read", "cannot open " + path + ": no such file");
        s.stamps = {stampOf(path)};
        s.kind = inputKind(path);
        if (s.kind == SourceKind::Trace && isForeignTrace(path)) {
            // One file of another tool: a run of one file (or of every rank one file holds).
            s = assembleRun({path}, readTraceRanks(path, runOptions(options)), options, 0);
            return;
        }
        if (s.kind == SourceKind::Trace) {
            takeTrace(s, loadMeasuredTrace({path}, runOptions(options)));
            // Counters are on the trace's own clock; a trace of several iterations is read as one
            // iteration moved to time 0, so its counters would not line up: they are left out.
            if (s.traceInfo.iterations <= 1) {
                const auto c0 = std::chrono::steady_clock::now();
                s.counters = readTraceCounters(path);
                s.counterSeconds = secondsSince(c0);
            }
            return;
        }
        EvaluationInput input;
        input.path = path;
        if (s.kind == SourceKind::Schedule) input.projectPath = options.input.projectPath;
        input.sets = options.input.sets;
        AnalysisRequest request = loadAnalysisRequest(input);
        request.timingFromTrace = !options.input.projectTiming;
        if (const MeasuredTrace* trace = traceTimingTheRequest(request, options.traces))
            request.trace = *trace;
        request.cancel = options.cancel;
        request.progress = options.evaluation;
        s.analysis = std::make_shared<AnalysisResult>(analyze(request));
        if (s.analysis->cancelled) throw Error("work.cancelled", "the evaluation was cancelled");
        if (s.analysis->outcomes.empty()) {
            std::string why;
            for (const ScheduleRefusal& r : s.analysis->refusals)
                why += (why.empty() ? "" : "; ") + r.name + ": " + r.message;
            s.error = path + ": no schedule can be drawn" + (why.empty() ? std::string() : " (" + why + ")");
        }
    });
    if (!s.error.empty()) {
        s.trace.reset();
        s.analysis.reset();
    }
    s.loadSeconds = secondsSince(t0);
    return s;
}

std::vector<ViewSource> loadSources(const std::vector<std::string>& paths, const LoadOptions& options) {
    std::vector<ViewSource> out;
    std::vector<std::string> run;
    std::vector<RankTrace> ranks;
    std::set<int> rankIds;
    double readSeconds = 0;
    auto endRun = [&] {
        if (!run.empty()) out.push_back(assembleRun(run, std::move(ranks), options, readSeconds));
        run.clear();
        ranks.clear();
        rankIds.clear();
        readSeconds = 0;
    };
    std::vector<std::size_t> evaluated; // schedule files and projects: read once the traces are
    for (const std::string& path : paths) {
        if (!isForeignTrace(path) && inputKind(path) != InputKind::Trace) {
            endRun();
            evaluated.push_back(out.size());
            out.emplace_back().path = path;
            continue;
        }
        if (options.fileStarted) options.fileStarted(path);
        if (!isForeignTrace(path)) {
            endRun();
            out.push_back(loadSource(path, options));
            continue;
        }
        const auto t0 = std::chrono::steady_clock::now();
        ViewSource failed;
        failed.path = path;
        std::vector<RankTrace> read;
        guarded(failed, path, [&] { read = readTraceRanks(path, runOptions(options)); });
        if (!failed.error.empty()) { // reported on its own; the run goes on without it
            failed.stamps = {stampOf(path)};
            failed.loadSeconds = secondsSince(t0);
            out.push_back(std::move(failed));
            continue;
        }
        // A rank the run holds already: this file begins the next run, unless it is another
        // repeat of the run's recording (RUN_rep<k>_rank<R>.json), which core joins into it.
        const std::string repeated = repeatedRunOf(path);
        const bool sameRecording =
            !repeated.empty() && !run.empty() && repeatedRunOf(run.front()) == repeated;
        for (const RankTrace& t : read)
            if (t.rank >= 0 && rankIds.count(t.rank) && !sameRecording) {
                endRun();
                break;
            }
        for (RankTrace& t : read) {
            if (t.rank >= 0) rankIds.insert(t.rank);
            ranks.push_back(std::move(t));
        }
        run.push_back(path);
        readSeconds += secondsSince(t0);
    }
    endRun();
    if (!evaluated.empty()) {
        LoadOptions withTraces = options;
        withTraces.traces = openTraces(out);
        for (const std::size_t at : evaluated) {
            if (options.fileStarted) options.fileStarted(out[at].path);
            out[at] = loadSource(out[at].path, withTraces);
        }
    }
    return out;
}

std::vector<MeasuredTrace> openTraces(const std::vector<ViewSource>& sources) {
    std::vector<MeasuredTrace> traces;
    for (const ViewSource& s : sources)
        if (s.trace) traces.push_back(MeasuredTrace{s.path, s.trace, s.traceInfo});
    return traces;
}

std::string sourceName(const ViewSource& source) {
    if (source.runFiles.size() <= 1) return std::filesystem::path(source.path).filename().string();
    std::string name;
    for (const std::string& f : source.runFiles)
        name += (name.empty() ? "" : " + ") + std::filesystem::path(f).filename().string();
    return name;
}

ViewSource reloadSource(const ViewSource& source, const LoadOptions& options) {
    if (source.runFiles.size() <= 1) return loadSource(source.path, options);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<RankTrace> ranks;
    ViewSource failed;
    failed.path = source.path;
    failed.runFiles = source.runFiles;
    for (const std::string& f : source.runFiles) failed.stamps.push_back(stampOf(f));
    guarded(failed, source.path, [&] {
        for (const std::string& f : source.runFiles)
            for (RankTrace& t : readTraceRanks(f, runOptions(options))) ranks.push_back(std::move(t));
    });
    if (!failed.error.empty()) return failed;
    return assembleRun(source.runFiles, std::move(ranks), options, secondsSince(t0));
}

bool sourceChanged(const ViewSource& source) {
    const std::vector<std::string> single{source.path};
    const auto& files = source.runFiles.empty() ? single : source.runFiles;
    for (std::size_t i = 0; i < files.size(); ++i) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(files[i], ec);
        if (ec) continue; // gone for a moment (being replaced): look again later
        const auto mtime = std::filesystem::last_write_time(files[i], ec);
        if (ec) continue;
        if (i >= source.stamps.size() || !(FileStamp{size, mtime} == source.stamps[i])) return true;
    }
    return false;
}

} // namespace stagecraft::view
