#include "search/search_report.h"

#include "number_text.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

namespace stagecraft {

namespace {

constexpr double kGib = 1024.0 * 1024.0 * 1024.0;

/// Fitting results of each point, fastest first.
std::vector<std::size_t> rankedFitting(const SearchResult& result) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < result.results.size(); ++i)
        if (result.results[i].fits) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const ConfigResult& x = result.results[a];
        const ConfigResult& y = result.results[b];
        if (x.config.point != y.config.point) return x.config.point < y.config.point;
        return fasterThan(x, a, y, b);
    });
    return order;
}

nlohmann::json configJson(const ConfigResult& r, std::size_t index) {
    const SearchConfig& c = r.config;
    return {{"index", index},
            {"schedule", c.schedule},
            {"pp", c.pp},
            {"dp", c.dp},
            {"tp", c.tp},
            {"microbatches", c.microbatches},
            {"chunks", c.chunks},
            {"micro_batch_size", c.microBatchSize},
            {"zero_stage", c.zeroStage},
            {"recompute", std::string(recomputeName(c.recompute))},
            {"gpus", c.gpus},
            {"global_batch", c.globalBatch},
            {"batch_per_gpu", c.batchPerGpu},
            {"iteration_ms", r.iterationUs / 1000.0},
            {"samples_per_second", r.samplesPerSecond},
            {"tokens_per_second", r.tokensPerSecond},
            {"tflops_per_gpu", r.tflopsPerGpu},
            {"mfu", r.mfu},
            {"peak_memory_gib", r.peakMemoryBytes / kGib},
            {"limit_gib", r.limitBytes / kGib},
            {"bubble_ratio", r.bubbleRatio},
            {"gather_stall_ms", r.gatherStallUs / 1000.0}};
}

} // namespace

std::string configLabel(const SearchConfig& c) {
    std::string s = c.schedule + " pp=" + std::to_string(c.pp) + " dp=" + std::to_string(c.dp) +
                    " tp=" + std::to_string(c.tp) + " m=" + std::to_string(c.microbatches);
    if (c.chunks > 1) s += " v=" + std::to_string(c.chunks);
    s += " b=" + std::to_string(c.microBatchSize) + " ZeRO-" + std::to_string(c.zeroStage);
    if (c.recompute != Recompute::None) s += " recompute=" + std::string(recomputeName(c.recompute));
    return s;
}

std::string searchToCsv(const SearchResult& result) {
    std::ostringstream out;
    out << "schedule,pp,dp,tp,microbatches,chunks,micro_batch_size,zero_stage,recompute,gpus,global_batch,"
           "batch_per_gpu,iteration_ms,samples_per_second,tokens_per_second,tflops_per_gpu,mfu,"
           "peak_memory_gib,limit_gib,bubble_ratio,gather_stall_ms,best_of_schedule,memory_front,batch_"
           "front\n";
    auto in = [](const std::vector<std::size_t>& v, std::size_t i) {
        return std::find(v.begin(), v.end(), i) != v.end() ? 1 : 0;
    };
    for (const std::size_t i : rankedFitting(result)) {
        const ConfigResult& r = result.results[i];
        const SearchConfig& c = r.config;
        const bool best = std::any_of(result.best.begin(), result.best.end(),
                                      [&](const BestConfig& b) { return b.result == i; });
        out << c.schedule << ',' << c.pp << ',' << c.dp << ',' << c.tp << ',' << c.microbatches << ','
            << c.chunks << ',' << c.microBatchSize << ',' << c.zeroStage << ',' << recomputeName(c.recompute)
            << ',' << c.gpus << ',' << c.globalBatch << ',' << fixedText(c.batchPerGpu, 4) << ','
            << fixedText(r.iterationUs / 1000.0, 3) << ',' << fixedText(r.samplesPerSecond, 3) << ','
            << fixedText(r.tokensPerSecond, 1) << ',' << fixedText(r.tflopsPerGpu, 3) << ','
            << fixedText(r.mfu, 4) << ',' << fixedText(r.peakMemoryBytes / kGib, 3) << ','
            << fixedText(r.limitBytes / kGib, 3) << ',' << fixedText(r.bubbleRatio, 4) << ','
            << fixedText(r.gatherStallUs / 1000.0, 3) << ',' << (best ? 1 : 0) << ','
            << in(result.memoryFront, i) << ',' << in(result.batchFront, i) << '\n';
    }
    return out.str();
}

std::string searchToJson(const SearchResult& result) {
    nlohmann::json j;
    j["stagecraft_search"] = 1;
    j["gpus"] = result.gpus;
    j["cancelled"] = result.cancelled;
    j["planned"] = result.results.size();
    j["skipped"] = result.skipped;
    j["evaluated"] = result.evaluated;
    j["fitting"] = result.fitting;
    j["schedules"] = result.schedules;
    nlohmann::json points = nlohmann::json::array();
    for (const BatchPoint& p : result.points)
        points.push_back({{"global_batch", p.globalBatch}, {"batch_per_gpu", p.batchPerGpu}});
    j["points"] = points;
    nlohmann::json best = nlohmann::json::array();
    for (const BestConfig& b : result.best) best.push_back(configJson(result.results[b.result], b.result));
    j["best"] = best;
    nlohmann::json memoryFront = nlohmann::json::array(), batchFront = nlohmann::json::array();
    for (const std::size_t i : result.memoryFront) memoryFront.push_back(i);
    for (const std::size_t i : result.batchFront) batchFront.push_back(i);
    j["memory_front"] = memoryFront;
    j["batch_front"] = batchFront;
    nlohmann::json configs = nlohmann::json::array();
    for (const std::size_t i : rankedFitting(result)) configs.push_back(configJson(result.results[i], i));
    j["configurations"] = configs;
    return j.dump(2) + "\n";
}

std::string unfitSchedulesText(const SearchResult& result) {
    std::string names;
    int count = 0;
    for (const std::string& schedule : result.schedules) {
        bool fits = false;
        for (int point = 0; point < int(result.points.size()) && !fits; ++point)
            fits = result.bestOf(schedule, point) != nullptr;
        if (fits) continue;
        names += (names.empty() ? "" : ", ") + schedule;
        ++count;
    }
    if (count == 0) return {};
    return "no configuration of " + names + (count == 1 ? " fits" : " fit") + " the memory limit";
}

std::string searchSummaryText(const SearchResult& result) {
    std::ostringstream out;
    out << "searched " << result.results.size() << " configurations on " << result.gpus << " GPUs ("
        << result.evaluated << " evaluated, " << result.fitting << " fit the memory limit, " << result.skipped
        << " combinations refused by the schedules' rules)" << (result.cancelled ? ", CANCELLED" : "")
        << "\n";
    for (int point = 0; point < int(result.points.size()); ++point) {
        const BatchPoint& p = result.points[std::size_t(point)];
        out << "\nbatch per GPU " << fixedText(p.batchPerGpu, 3) << " (global batch " << p.globalBatch
            << ")\n";
        std::vector<std::size_t> rows;
        for (const BestConfig& b : result.best)
            if (b.point == point) rows.push_back(b.result);
        std::sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
            return fasterThan(result.results[a], a, result.results[b], b);
        });
        if (rows.empty()) out << "  no configuration fits\n";
        for (const std::size_t i : rows) {
            const ConfigResult& r = result.results[i];
            char line[256];
            std::snprintf(line, sizeof line, "  %-14s %6.1f%% MFU %9.0f tokens/s %6.2f GiB  ",
                          r.config.schedule.c_str(), 100.0 * r.mfu, r.tokensPerSecond,
                          r.peakMemoryBytes / kGib);
            out << line << configLabel(r.config) << "\n";
        }
    }
    out << "\nPareto front, peak memory against throughput (" << result.memoryFront.size()
        << " configurations, least memory first)\n";
    for (const std::size_t i : result.memoryFront) {
        const ConfigResult& r = result.results[i];
        char line[128];
        std::snprintf(line, sizeof line, "  %6.2f GiB %9.0f tokens/s %6.1f%% MFU  ", r.peakMemoryBytes / kGib,
                      r.tokensPerSecond, 100.0 * r.mfu);
        out << line << configLabel(r.config) << " (batch " << r.config.globalBatch << ")\n";
    }
    return out.str();
}

} // namespace stagecraft
