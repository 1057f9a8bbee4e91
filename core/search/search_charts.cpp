#include "search/search_charts.h"

#include "error.h"
#include "layout/palette.h"
#include "layout/xy_plot.h"
#include "search/search_report.h"

#include <cstdio>

namespace stagecraft {

namespace {

constexpr double kGib = 1024.0 * 1024.0 * 1024.0;

std::vector<PlotSeries> efficiencySeries(const SearchResult& result) {
    std::vector<PlotSeries> out;
    for (std::size_t k = 0; k < result.schedules.size(); ++k) {
        PlotSeries s;
        s.name = result.schedules[k];
        s.colorIndex = int(k);
        for (int point = 0; point < int(result.points.size()); ++point)
            for (const BestConfig& b : result.best)
                if (b.point == point && b.schedule == s.name) {
                    const ConfigResult& r = result.results[b.result];
                    s.points.push_back({r.config.batchPerGpu, r.mfu, int(b.result), searchTooltip(r)});
                }
        if (!s.points.empty()) out.push_back(std::move(s));
    }
    return out;
}

std::vector<PlotSeries> memorySeries(const SearchResult& result) {
    std::vector<PlotSeries> out;
    for (std::size_t k = 0; k < result.schedules.size(); ++k) {
        PlotSeries s;
        s.name = result.schedules[k];
        s.colorIndex = int(k);
        s.line = false;
        s.hollowMarkers = true;
        s.markerSize = 3;
        for (std::size_t i = 0; i < result.results.size(); ++i) {
            const ConfigResult& r = result.results[i];
            if (r.fits && r.config.schedule == s.name)
                s.points.push_back(
                    {r.peakMemoryBytes / kGib, r.tokensPerSecond / 1000.0, int(i), searchTooltip(r)});
        }
        if (!s.points.empty()) out.push_back(std::move(s));
    }
    // The front as a staircase (what is reachable within each memory budget), its points marked.
    PlotSeries steps, front;
    steps.colorIndex = front.colorIndex = 8;
    steps.dashed = true;
    steps.markers = false;
    front.name = "Pareto front";
    front.line = false;
    front.markerSize = 4;
    for (const std::size_t i : result.memoryFront) {
        const ConfigResult& r = result.results[i];
        const PlotPoint p{r.peakMemoryBytes / kGib, r.tokensPerSecond / 1000.0, int(i), searchTooltip(r)};
        if (!steps.points.empty()) steps.points.push_back({p.x, steps.points.back().y, -1, {}});
        steps.points.push_back({p.x, p.y, -1, {}});
        front.points.push_back(p);
    }
    if (!front.points.empty()) {
        out.push_back(std::move(steps));
        out.push_back(std::move(front));
    }
    return out;
}

} // namespace

SearchChart searchChartFromName(const std::string& name) {
    if (name == "efficiency") return SearchChart::Efficiency;
    if (name == "memory") return SearchChart::Memory;
    if (name == "both") return SearchChart::Both;
    throw ValidationError("search.space", "chart",
                          "chart '" + name + "': expected efficiency, memory or both");
}

std::string searchTooltip(const ConfigResult& r) {
    char numbers[160];
    std::snprintf(numbers, sizeof numbers, ": %.1f%% MFU, %.0f tokens/s, %.2f GiB, batch %d (%.3g per GPU)",
                  100.0 * r.mfu, r.tokensPerSecond, r.peakMemoryBytes / kGib, r.config.globalBatch,
                  r.config.batchPerGpu);
    return configLabel(r.config) + numbers;
}

Scene buildSearchChart(const SearchResult& result, SearchChart which, const std::string& paletteName,
                       double plotWidthPt) {
    const Palette& palette = findPalette(paletteName);
    Scene scene = plotScene(palette);
    const double height = plotWidthPt * 0.8;
    double left = 0;
    if (which != SearchChart::Memory) {
        PlotOptions o;
        o.title = "Best configuration per schedule (" + std::to_string(result.gpus) + " GPUs)";
        o.x.title = "batch size per GPU";
        o.x.log2 = true;
        o.y.title = "MFU (%)";
        o.y.labelScale = 100;
        o.widthPt = plotWidthPt;
        o.heightPt = height;
        o.markerKind = kSearchMarkerKind;
        appendXyPlot(scene, efficiencySeries(result), o, palette, left, 0, 0);
        left += plotWidthPt;
    }
    if (which != SearchChart::Efficiency) {
        PlotOptions o;
        o.title = "Throughput against memory (" + std::to_string(result.fitting) + " fitting configurations)";
        o.x.title = "peak memory per GPU (GiB)";
        o.y.title = "throughput (thousand tokens/s)";
        o.widthPt = plotWidthPt;
        o.heightPt = height;
        o.markerKind = kSearchMarkerKind;
        appendXyPlot(scene, memorySeries(result), o, palette, left, 0, 1);
    }
    scene.rects.front().w = scene.width;
    scene.rects.front().h = scene.height;
    return scene;
}

} // namespace stagecraft
