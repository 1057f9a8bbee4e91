// Configuration search: the breadth-first paper's finding on its two sample setups, every
// reported configuration valid and within memory, non-dominated Pareto fronts, identical results
// for any thread count, cancellation, the ZeRO-3 gather model and the search's options.
#include "error.h"
#include "eval/evaluation.h"
#include "layout/svg_writer.h"
#include "project/project_json.h"
#include "project/project_validate.h"
#include "search/pareto.h"
#include "search/search.h"
#include "search/search_charts.h"
#include "search/search_report.h"
#include "validate/validator.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

using namespace stagecraft;

namespace {

const std::filesystem::path kSourceDir = STAGECRAFT_SOURCE_DIR;

Project sample(const std::string& name) {
    return readProject(kSourceDir / "samples" / (name + ".stagecraft.json"));
}

SearchSpace paperSpace() {
    SearchSpace space;
    space.schedules = {"1f1b", "interleaved", "breadth-first"};
    space.batchPerGpu = parseBatchRange("0.25..16", "--batch-per-gpu");
    return space;
}

/// The best MFU of `schedule` at `point`, or 0 when nothing of it fits there.
double bestMfu(const SearchResult& r, const std::string& schedule, int point) {
    const ConfigResult* best = r.bestOf(schedule, point);
    return best ? best->mfu : 0.0;
}

const SearchResult& paperResult(const std::string& name) {
    static std::map<std::string, SearchResult> cache;
    auto it = cache.find(name);
    if (it == cache.end()) it = cache.emplace(name, runSearch(sample(name), paperSpace())).first;
    return it->second;
}

} // namespace

TEST_CASE("search reproduces the breadth-first paper: ahead at small batch per GPU, caught up at large",
          "[search]") {
    for (const std::string name : {"bfpp-6.6b", "bfpp-52b"}) {
        INFO(name);
        const SearchResult& r = paperResult(name);
        REQUIRE(r.points.size() == 7);
        REQUIRE(r.points.front().batchPerGpu == 0.25);
        REQUIRE(r.points.back().batchPerGpu == 16);
        const int first = 0, last = int(r.points.size()) - 1;
        const double bf0 = bestMfu(r, "breadth-first", first);
        const double df0 = bestMfu(r, "interleaved", first);
        const double nl0 = bestMfu(r, "1f1b", first);
        // Smallest batch per GPU: breadth-first is the best method, well ahead of non-looped 1F1B.
        CHECK(bf0 >= df0);
        CHECK(bf0 > 1.2 * nl0);
        // At 0.5 samples per GPU (m > p for depth-first's best, so the orders differ) strictly ahead.
        CHECK(bestMfu(r, "breadth-first", 1) > bestMfu(r, "interleaved", 1));
        // Largest batch per GPU: breadth-first is no longer ahead (its activations of all micro-batches
        // no longer fit), and 1F1B has closed most of its gap to the best.
        const double df1 = bestMfu(r, "interleaved", last);
        const double nl1 = bestMfu(r, "1f1b", last);
        const double bf1 = bestMfu(r, "breadth-first", last);
        CHECK(bf1 <= std::max(df1, nl1));
        const double gap0 = (bf0 - nl0) / bf0;
        const double gap1 = (std::max({bf1, df1, nl1}) - nl1) / std::max({bf1, df1, nl1});
        CHECK(gap1 < gap0 / 3);
        // Efficiency grows with the batch per GPU for every method that fits.
        for (const std::string s : {"1f1b", "interleaved"}) CHECK(bestMfu(r, s, last) > bestMfu(r, s, first));
    }
}

TEST_CASE("every configuration a search reports validates and fits the memory limit", "[search]") {
    const Project project = sample("bfpp-6.6b");
    const SearchResult& r = paperResult("bfpp-6.6b");
    REQUIRE(!r.best.empty());
    std::vector<std::size_t> reported = r.memoryFront;
    reported.insert(reported.end(), r.batchFront.begin(), r.batchFront.end());
    for (const BestConfig& b : r.best) reported.push_back(b.result);
    for (const std::size_t i : reported) {
        const ConfigResult& c = r.results[i];
        INFO(configLabel(c.config));
        REQUIRE(c.evaluated);
        CHECK(c.fits);
        CHECK(c.peakMemoryBytes <= c.limitBytes);
        CHECK(c.config.pp * c.config.dp * c.config.tp == r.gpus);
        CHECK(c.config.microbatches * c.config.microBatchSize * c.config.dp == c.config.globalBatch);
        const Project p = projectForConfig(project, c.config);
        CHECK_NOTHROW(validateProject(p));
        const Schedule s = orderFromProject(p, c.config.schedule);
        CHECK(findProblems(s).empty());
    }
    // The CSV lists exactly the fitting configurations.
    const std::string csv = searchToCsv(r);
    CHECK(std::size_t(std::count(csv.begin(), csv.end(), '\n')) == r.fitting + 1);
    const nlohmann::json j = nlohmann::json::parse(searchToJson(r));
    CHECK(j["configurations"].size() == r.fitting);
    CHECK(j["best"].size() == r.best.size());
    for (const auto& c : j["configurations"])
        CHECK(c["peak_memory_gib"].get<double>() <= c["limit_gib"].get<double>());
}

TEST_CASE("Pareto fronts are non-dominated and dominate everything else", "[search][pareto]") {
    std::mt19937 rng(12345);
    for (int trial = 0; trial < 200; ++trial) {
        std::uniform_int_distribution<int> size(0, 60), value(0, 12); // small values: many ties
        std::vector<ParetoPoint> points(std::size_t(size(rng)));
        for (ParetoPoint& p : points) p = {double(value(rng)), double(value(rng))};
        const std::vector<std::size_t> front = paretoFront(points);
        for (const std::size_t a : front)
            for (const std::size_t b : front) CHECK_FALSE(dominates(points[b], points[a]));
        for (std::size_t i = 0; i < points.size(); ++i) {
            if (std::find(front.begin(), front.end(), i) != front.end()) continue;
            // Off the front: dominated by, or equal to, a front point.
            CHECK(std::any_of(front.begin(), front.end(), [&](std::size_t f) {
                return dominates(points[f], points[i]) ||
                       (points[f].x == points[i].x && points[f].y == points[i].y);
            }));
        }
        CHECK(std::is_sorted(front.begin(), front.end(),
                             [&](std::size_t a, std::size_t b) { return points[a].x < points[b].x; }));
    }
    // The search's fronts over its fitting results.
    const SearchResult& r = paperResult("bfpp-52b");
    REQUIRE(!r.memoryFront.empty());
    for (const std::size_t f : r.memoryFront)
        for (std::size_t i = 0; i < r.results.size(); ++i) {
            if (!r.results[i].fits) continue;
            const ParetoPoint a{r.results[i].peakMemoryBytes, r.results[i].tokensPerSecond};
            const ParetoPoint b{r.results[f].peakMemoryBytes, r.results[f].tokensPerSecond};
            CHECK_FALSE(dominates(a, b));
        }
    for (const std::size_t f : r.batchFront)
        for (std::size_t i = 0; i < r.results.size(); ++i)
            if (r.results[i].fits)
                CHECK_FALSE(dominates({r.results[i].config.batchPerGpu, r.results[i].mfu},
                                      {r.results[f].config.batchPerGpu, r.results[f].mfu}));
}

TEST_CASE("a search gives identical results for any thread count", "[search]") {
    const Project project = sample("bfpp-6.6b");
    SearchSpace space;
    space.schedules = {"1f1b", "interleaved", "breadth-first", "zb-h1", "gpipe"};
    space.batchPerGpu = parseBatchRange("0.5..2", "--batch-per-gpu");
    const SearchPlan plan = planSearch(project, space);
    REQUIRE(plan.configs.size() > 100);
    SearchOptions one;
    one.threads = 1;
    const SearchResult a = runSearch(project, plan, one);
    for (const int threads : {2, 3, 8}) {
        SearchOptions many;
        many.threads = threads;
        const SearchResult b = runSearch(project, plan, many);
        REQUIRE(a.results.size() == b.results.size());
        for (std::size_t i = 0; i < a.results.size(); ++i) {
            const ConfigResult &x = a.results[i], &y = b.results[i];
            CHECK(x.config == y.config);
            CHECK(x.iterationUs == y.iterationUs);
            CHECK(x.peakMemoryBytes == y.peakMemoryBytes);
            CHECK(x.mfu == y.mfu);
            CHECK(x.fits == y.fits);
            CHECK(x.refusal == y.refusal);
        }
        CHECK(searchToCsv(a) == searchToCsv(b));
        CHECK(searchToJson(a) == searchToJson(b));
    }
}

TEST_CASE("a search reports progress and can be cancelled", "[search]") {
    const Project project = sample("bfpp-6.6b");
    SearchSpace space = paperSpace();
    std::size_t calls = 0, lastDone = 0, total = 0;
    SearchOptions options;
    options.threads = 2;
    options.progressIntervalMs = 1;
    options.progress = [&](const SearchProgress& p) {
        ++calls;
        CHECK(p.done >= lastDone);
        lastDone = p.done;
        total = p.total;
        return true;
    };
    const SearchResult done = runSearch(project, space, options);
    CHECK(calls >= 1);
    CHECK(lastDone == total);
    CHECK_FALSE(done.cancelled);

    options.progress = [](const SearchProgress&) { return false; };
    const SearchResult cancelled = runSearch(project, space, options);
    CHECK(cancelled.cancelled);
    CHECK(cancelled.evaluated < cancelled.results.size());
    for (const BestConfig& b : cancelled.best) CHECK(cancelled.results[b.result].fits);
}

TEST_CASE("ZeRO-3 gathers stall a depth-first order more than a breadth-first one", "[search]") {
    const Project project = sample("bfpp-6.6b");
    SearchConfig c;
    c.pp = 4;
    c.dp = 16;
    c.tp = 1;
    c.microbatches = 16;
    c.chunks = 4;
    c.microBatchSize = 1;
    c.gpus = 64;
    c.globalBatch = 256;
    c.batchPerGpu = 4;
    c.zeroStage = 3;
    c.schedule = "breadth-first";
    const ConfigResult bf = evaluateConfig(project, c);
    c.schedule = "interleaved";
    const ConfigResult df = evaluateConfig(project, c);
    c.schedule = "1f1b";
    c.chunks = 1;
    const ConfigResult nl = evaluateConfig(project, c);
    REQUIRE(bf.evaluated);
    REQUIRE(df.evaluated);
    REQUIRE(nl.evaluated);
    // Breadth-first gathers each stage twice per iteration, prefetched behind the previous stage;
    // depth-first switches stage every p micro-batches and gathers at every switch.
    CHECK(df.gatherStallUs > 2 * bf.gatherStallUs);
    CHECK(bf.iterationUs < df.iterationUs);
    // Non-looped 1F1B cannot hide its one gather: nothing runs before its first forward.
    CHECK(nl.gatherStallUs >= bf.gatherStallUs);
    CHECK(nl.gatherStallUs > 0);
    // ZeRO-3 holds less than ZeRO-1 even with the two gathered stages it keeps.
    c.schedule = "breadth-first";
    c.chunks = 4;
    c.zeroStage = 1;
    const ConfigResult z1 = evaluateConfig(project, c);
    REQUIRE(z1.evaluated);
    CHECK(bf.peakMemoryBytes < z1.peakMemoryBytes);
}

TEST_CASE("search options are checked with messages that name them", "[search]") {
    const Project project = sample("bfpp-6.6b");
    auto idOf = [&](const SearchSpace& space) {
        try {
            planSearch(project, space);
        } catch (const Error& e) {
            return e.id();
        }
        return std::string("accepted");
    };
    SearchSpace s;
    s.gpus = 65;
    CHECK(idOf(s) == "search.space");
    s = {};
    s.batchPerGpu = {0.001};
    CHECK(idOf(s) == "search.space");
    s = {};
    s.schedules = {"nope"};
    CHECK(idOf(s) == "schedule.unknown");
    s = {};
    s.zeroStages = {4};
    CHECK(idOf(s) == "search.space");
    s = {};
    s.globalBatch = 64;
    CHECK(idOf(s) == "accepted");
    CHECK(parseBatchRange("0.5..4", "--batch-per-gpu") == std::vector<double>{0.5, 1, 2, 4});
    CHECK(parseBatchRange("3", "--batch-per-gpu") == std::vector<double>{3});
    CHECK_THROWS_AS(parseBatchRange("4..1", "--batch-per-gpu"), ValidationError);
    CHECK_THROWS_AS(parseBatchRange("x", "--batch-per-gpu"), ValidationError);
    CHECK_THROWS_AS(parseBatchRange("-1..2", "--batch-per-gpu"), ValidationError);
    for (const CostMode mode : {CostMode::Unit, CostMode::Manual}) {
        Project other = project;
        other.costs.mode = mode;
        SearchSpace one;
        one.globalBatch = 64;
        try {
            runSearch(other, one);
            FAIL("accepted");
        } catch (const ValidationError& e) {
            CHECK(e.id() == "search.costs");
            CHECK(e.field() == "costs.mode");
        }
        SearchConfig c;
        c.schedule = "1f1b";
        c.pp = 4;
        c.dp = 16;
        c.microbatches = 4;
        CHECK(evaluateConfig(other, c).refusalId == "search.costs");
    }
}

TEST_CASE("search charts mark every point with its result", "[search][chart]") {
    const SearchResult& r = paperResult("bfpp-6.6b");
    const Scene scene = buildSearchChart(r, SearchChart::Both, "paper");
    std::size_t markers = 0;
    for (const SceneRect& rect : scene.rects) {
        if (rect.kind != kSearchMarkerKind) continue;
        ++markers;
        REQUIRE(rect.event >= 0);
        REQUIRE(std::size_t(rect.event) < r.results.size());
        CHECK(r.results[std::size_t(rect.event)].fits);
        CHECK(rect.x >= 0);
        CHECK(rect.x + rect.w <= scene.width + 1e-9);
        CHECK(rect.y + rect.h <= scene.height + 1e-9);
    }
    // Efficiency: one marker per best configuration; memory: every fitting one and the front.
    CHECK(markers == r.best.size() + r.fitting + r.memoryFront.size());
    const std::string svg = sceneToSvg(scene);
    CHECK(svg.find("breadth-first") != std::string::npos);
    CHECK(svg.find("Pareto front") != std::string::npos);
    CHECK_THROWS_AS(buildSearchChart(r, SearchChart::Both, "paper", 50), ValidationError);
}
