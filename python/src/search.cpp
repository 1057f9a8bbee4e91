// search(): core's configuration search (core/search), what `stagecraft-cli search` runs: the plan
// of a project and a search space, every configuration evaluated on core's threads without the
// GIL, and the results as numpy columns, the best configuration per schedule and batch point and
// the two Pareto fronts. CSV and JSON are core's writers, the files `search -o` writes.
#include "search/search.h"

#include "bindings.h"
#include "error.h"
#include "search/search_report.h"

#include <memory>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace stagecraft::python {

namespace {

/// A search's results with the project they were searched for (to open a configuration).
struct Search {
    Project project;
    SearchResult result;

    const ConfigResult& at(py::ssize_t index) const {
        const auto n = py::ssize_t(result.results.size());
        if (index < 0 || index >= n)
            throw py::index_error("result " + std::to_string(index) + " of " + std::to_string(n));
        return result.results[std::size_t(index)];
    }
};

template <class T, class Get>
py::array_t<T> column(const std::vector<ConfigResult>& results, Get get) {
    py::array_t<T> out(py::ssize_t(results.size()));
    auto cells = out.template mutable_unchecked<1>();
    for (std::size_t i = 0; i < results.size(); ++i) cells(py::ssize_t(i)) = T(get(results[i]));
    return out;
}

py::array_t<std::int64_t> indices(const std::vector<std::size_t>& list) {
    py::array_t<std::int64_t> out(py::ssize_t(list.size()));
    auto cells = out.mutable_unchecked<1>();
    for (std::size_t i = 0; i < list.size(); ++i) cells(py::ssize_t(i)) = std::int64_t(list[i]);
    return out;
}

/// Every configuration: its parameters, whether it was evaluated (or why not) and its figures.
py::dict resultColumns(const std::vector<ConfigResult>& rs) {
    using R = const ConfigResult&;
    py::dict table;
    std::vector<std::string> schedules, recomputes, refusalIds, refusals;
    for (R r : rs) {
        schedules.push_back(r.config.schedule);
        recomputes.emplace_back(recomputeName(r.config.recompute));
        refusalIds.push_back(r.refusalId);
        refusals.push_back(r.refusal);
    }
    table["schedule"] = schedules;
    table["pp"] = column<std::int32_t>(rs, [](R r) { return r.config.pp; });
    table["dp"] = column<std::int32_t>(rs, [](R r) { return r.config.dp; });
    table["tp"] = column<std::int32_t>(rs, [](R r) { return r.config.tp; });
    table["microbatches"] = column<std::int32_t>(rs, [](R r) { return r.config.microbatches; });
    table["chunks"] = column<std::int32_t>(rs, [](R r) { return r.config.chunks; });
    table["micro_batch_size"] = column<std::int32_t>(rs, [](R r) { return r.config.microBatchSize; });
    table["zero_stage"] = column<std::int32_t>(rs, [](R r) { return r.config.zeroStage; });
    table["recompute"] = recomputes;
    table["gpus"] = column<std::int32_t>(rs, [](R r) { return r.config.gpus; });
    table["global_batch"] = column<std::int32_t>(rs, [](R r) { return r.config.globalBatch; });
    table["batch_per_gpu"] = column<double>(rs, [](R r) { return r.config.batchPerGpu; });
    table["point"] = column<std::int32_t>(rs, [](R r) { return r.config.point; });
    table["evaluated"] = column<bool>(rs, [](R r) { return r.evaluated; });
    table["refusal_id"] = refusalIds;
    table["refusal"] = refusals;
    table["iteration_us"] = column<double>(rs, [](R r) { return r.iterationUs; });
    table["samples_per_s"] = column<double>(rs, [](R r) { return r.samplesPerSecond; });
    table["tokens_per_s"] = column<double>(rs, [](R r) { return r.tokensPerSecond; });
    table["tflops_per_gpu"] = column<double>(rs, [](R r) { return r.tflopsPerGpu; });
    table["mfu"] = column<double>(rs, [](R r) { return r.mfu; });
    table["peak_memory_bytes"] = column<double>(rs, [](R r) { return r.peakMemoryBytes; });
    table["limit_bytes"] = column<double>(rs, [](R r) { return r.limitBytes; });
    table["fits"] = column<bool>(rs, [](R r) { return r.fits; });
    table["bubble_ratio"] = column<double>(rs, [](R r) { return r.bubbleRatio; });
    table["gather_stall_us"] = column<double>(rs, [](R r) { return r.gatherStallUs; });
    table["grad_sync_us"] = column<double>(rs, [](R r) { return r.gradSyncUs; });
    table["predicted_iteration_us"] = column<double>(rs, [](R r) { return r.predictedIterationUs; });
    table["predicted_mfu"] = column<double>(rs, [](R r) { return r.predictedMfu; });
    return table;
}

/// `batch_per_gpu` as the CLI's --batch-per-gpu reads it: "A" or "A..B" (core's parseBatchRange),
/// or a number or a sequence of numbers.
std::vector<double> batchPoints(const py::object& value) {
    if (value.is_none()) return {};
    if (py::isinstance<py::str>(value)) return parseBatchRange(value.cast<std::string>(), "batch_per_gpu");
    if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) return {value.cast<double>()};
    return value.cast<std::vector<double>>();
}

std::shared_ptr<Search> search(const Project& project, const std::vector<std::string>& schedules,
                               int globalBatch, const py::object& batchPerGpu, int maxGpus,
                               const std::vector<int>& microBatchSizes, const std::vector<int>& zero,
                               const std::vector<int>& tp, const std::vector<std::string>& recompute,
                               int maxChunks, int threads) {
    SearchSpace space;
    space.schedules = schedules;
    space.globalBatch = globalBatch;
    space.batchPerGpu = batchPoints(batchPerGpu);
    // Core reads batchPerGpu only without a global batch; both given would drop one silently.
    if (globalBatch != 0 && !space.batchPerGpu.empty())
        throw ValidationError("search.space", "batch_per_gpu",
                              "batch_per_gpu with global_batch " + std::to_string(globalBatch) +
                                  ": give one of them");
    if (threads < 0)
        throw ValidationError("search.space", "threads",
                              "threads " + std::to_string(threads) +
                                  ": must be 0 (every hardware thread) or more");
    space.gpus = maxGpus;
    space.microBatchSizes = microBatchSizes;
    space.zeroStages = zero;
    space.tpDegrees = tp;
    space.maxChunks = maxChunks;
    for (const std::string& r : recompute) space.recomputes.push_back(parseRecompute(r, "recompute"));
    auto found = std::make_shared<Search>();
    found->project = project;
    {
        py::gil_scoped_release release; // the search runs on core's own threads
        const SearchPlan plan = planSearch(project, space);
        SearchOptions options;
        options.threads = threads;
        found->result = runSearch(project, plan, options);
    }
    return found;
}

} // namespace

void bindSearch(py::module_& m) {
    py::class_<Search, std::shared_ptr<Search>>(
        m, "SearchResult",
        "The configurations a search evaluated, in the plan's order (the same for any thread count): "
        "results() as numpy columns, the best per schedule and batch point, the Pareto fronts.")
        .def_property_readonly("gpus", [](const Search& s) { return s.result.gpus; })
        .def_property_readonly(
            "schedules", [](const Search& s) { return s.result.schedules; },
            "the schedules searched, in registry order")
        .def_property_readonly(
            "points",
            [](const Search& s) {
                py::list out;
                for (const BatchPoint& p : s.result.points)
                    out.append(py::dict(py::arg("global_batch") = p.globalBatch,
                                        py::arg("batch_per_gpu") = p.batchPerGpu));
                return out;
            },
            "the batch points: global batch and batch size per GPU")
        .def_property_readonly(
            "skipped", [](const Search& s) { return s.result.skipped; },
            "combinations the rules refused before evaluation")
        .def_property_readonly("evaluated", [](const Search& s) { return s.result.evaluated; })
        .def_property_readonly(
            "fitting", [](const Search& s) { return s.result.fitting; },
            "evaluated configurations within the memory limit")
        .def_property_readonly(
            "best",
            [](const Search& s) {
                py::list out;
                for (const BestConfig& b : s.result.best)
                    out.append(py::dict(py::arg("schedule") = b.schedule, py::arg("point") = b.point,
                                        py::arg("result") = b.result));
                return out;
            },
            "the fastest fitting configuration of each schedule at each batch point: its schedule, point "
            "and index into results()")
        .def_property_readonly(
            "memory_front", [](const Search& s) { return indices(s.result.memoryFront); },
            "indices of the Pareto front of tokens/s against peak memory")
        .def_property_readonly(
            "batch_front", [](const Search& s) { return indices(s.result.batchFront); },
            "indices of the Pareto front of MFU against batch size per GPU")
        .def("__len__", [](const Search& s) { return s.result.results.size(); })
        .def(
            "results", [](const Search& s) { return resultColumns(s.result.results); },
            "Every planned configuration as columns: its parameters (schedule, pp, dp, tp, microbatches, "
            "chunks, micro_batch_size, zero_stage, recompute, gpus, global_batch, batch_per_gpu, point), "
            "evaluated with refusal_id and refusal when not, and its figures (iteration_us, samples_per_s, "
            "tokens_per_s, tflops_per_gpu, mfu, peak_memory_bytes, limit_bytes, fits, bubble_ratio, "
            "gather_stall_us, grad_sync_us, predicted_iteration_us, predicted_mfu).")
        .def(
            "label", [](const Search& s, py::ssize_t i) { return configLabel(s.at(i).config); },
            py::arg("index"),
            "'breadth-first pp=8 dp=8 tp=1 m=8 v=4 b=1 ZeRO-3': the configuration in one line")
        .def(
            "project",
            [](const Search& s, py::ssize_t i) { return projectForConfig(s.project, s.at(i).config); },
            py::arg("index"),
            "The searched project set to run configuration `index` (to simulate or save it).")
        .def(
            "to_csv", [](const Search& s) { return searchToCsv(s.result); },
            "The CSV `stagecraft-cli search -o results.csv` writes.")
        .def(
            "to_json", [](const Search& s) { return searchToJson(s.result); },
            "The JSON `stagecraft-cli search -o results.json` writes.")
        .def(
            "summary", [](const Search& s) { return searchSummaryText(s.result); },
            "The table `stagecraft-cli search` prints: the best per schedule and point, the fronts.")
        .def("__repr__", [](const Search& s) {
            return "<stagecraft.SearchResult " + std::to_string(s.result.results.size()) +
                   " configurations, " + std::to_string(s.result.fitting) + " fitting>";
        });

    m.def(
        "search", &search, py::arg("project"), py::kw_only(),
        py::arg("schedules") = std::vector<std::string>{}, py::arg("global_batch") = 0,
        py::arg("batch_per_gpu") = py::none(), py::arg("max_gpus") = 0,
        py::arg("micro_batch_sizes") = std::vector<int>{}, py::arg("zero") = std::vector<int>{},
        py::arg("tp") = std::vector<int>{}, py::arg("recompute") = std::vector<std::string>{},
        py::arg("max_chunks") = 16, py::arg("threads") = 0,
        "Searches pp, dp, tp, micro-batches, chunks, schedule and ZeRO stage for the fastest configurations "
        "that fit the memory, as `stagecraft-cli search` (empty lists: the CLI's defaults). batch_per_gpu "
        "takes 'A..B' (powers of two from A to B), a number or a list; global_batch one global batch; "
        "neither: the project's. Runs on `threads` threads (0: every hardware thread) without the GIL. "
        "Raises ValidationError 'search.space' naming the option for a space that cannot be searched.");
}

} // namespace stagecraft::python
