#include "layout/xy_plot.h"

#include "error.h"
#include "layout/text_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace stagecraft {

namespace {

struct Range {
    double min = 0, max = 1;
};

double niceStep(double span, int target) {
    const double raw = span / std::max(1, target);
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double f : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (raw <= f * power * (1 + 1e-9)) return f * power;
    return 10 * power;
}

Range axisRange(const std::vector<PlotSeries>& series, const PlotAxis& axis, bool isX) {
    if (axis.min < axis.max) return {axis.min, axis.max};
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const PlotSeries& s : series)
        for (const PlotPoint& p : s.points) {
            const double v = isX ? p.x : p.y;
            if (!std::isfinite(v) || (axis.log2 && v <= 0)) continue;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    if (!(lo <= hi)) return axis.log2 ? Range{1, 2} : Range{0, 1};
    if (axis.log2) {
        lo = std::exp2(std::floor(std::log2(lo) + 1e-9));
        hi = std::exp2(std::ceil(std::log2(hi) - 1e-9));
        if (hi <= lo) hi = lo * 2;
        return {lo, hi};
    }
    if (axis.fromZero && lo > 0) lo = 0;
    if (hi <= lo) hi = lo + 1;
    const double step = niceStep(hi - lo, 5);
    return {std::floor(lo / step) * step, std::ceil(hi * 1.02 / step) * step};
}

std::string tickLabel(double v) {
    char buffer[32];
    if (std::abs(v) >= 1e6 || (std::abs(v) < 1e-3 && v != 0))
        std::snprintf(buffer, sizeof buffer, "%.2g", v);
    else
        std::snprintf(buffer, sizeof buffer, "%.4g", v);
    return buffer;
}

} // namespace

std::vector<double> plotTicks(double min, double max, bool log2, int target) {
    std::vector<double> ticks;
    if (!(min < max) || !std::isfinite(min) || !std::isfinite(max)) return ticks;
    if (log2) {
        if (min <= 0) return ticks;
        const int a = int(std::ceil(std::log2(min) - 1e-9)), b = int(std::floor(std::log2(max) + 1e-9));
        const int stride = std::max(1, (b - a + target) / std::max(1, target + 1));
        for (int k = a; k <= b; k += stride) ticks.push_back(std::exp2(k));
        return ticks;
    }
    const double step = niceStep(max - min, target);
    for (long long k = (long long)std::ceil(min / step - 1e-9); double(k) * step <= max + step * 1e-9; ++k) {
        // k · step rounded to 12 significant digits, so 3 × 0.2 is the 0.6 a label shows.
        char text[32];
        std::snprintf(text, sizeof text, "%.12g", double(k) * step);
        ticks.push_back(std::strtod(text, nullptr));
        if (ticks.size() >= 100) break;
    }
    return ticks;
}

Color plotSeriesColor(const Palette& palette, int index) {
    const Color colors[] = {palette.compute[0][0], palette.compute[0][1], palette.compute[0][2],
                            palette.compute[1][0], palette.compute[1][1], palette.compute[1][2],
                            palette.gradSync,      palette.optimizer,     palette.mutedText};
    constexpr int n = int(sizeof colors / sizeof colors[0]);
    Color c = colors[((index % n) + n) % n];
    c.a = 255;
    return c;
}

void appendXyPlot(Scene& scene, const std::vector<PlotSeries>& series, const PlotOptions& options,
                  const Palette& palette, double left, double top, int panel) {
    const double font = palette.fontSize;
    const double margin = palette.margin;
    const Range xr = axisRange(series, options.x, true);
    const Range yr = axisRange(series, options.y, false);
    const std::vector<double> xTicks = plotTicks(xr.min, xr.max, options.x.log2, 6);
    const std::vector<double> yTicks = plotTicks(yr.min, yr.max, options.y.log2, 5);

    double yLabelWidth = 0;
    for (const double t : yTicks)
        yLabelWidth = std::max(yLabelWidth, estimateTextWidth(tickLabel(t * options.y.labelScale), font));

    // Legend entries flow in rows under the x axis title.
    const double swatch = 14, gap = 4, entryGap = 10;
    const double innerWidth = options.widthPt - 2 * margin;
    std::vector<std::pair<double, double>> legendAt; // per series: x offset, row
    int rows = 0;
    {
        double x = 0;
        int row = 0;
        bool any = false;
        for (const PlotSeries& s : series) {
            if (!options.legend || s.name.empty()) {
                legendAt.push_back({-1, -1});
                continue;
            }
            const double w = swatch + gap + estimateTextWidth(s.name, font) + entryGap;
            if (any && x + w > innerWidth) {
                x = 0;
                ++row;
            }
            legendAt.push_back({x, row});
            x += w;
            any = true;
        }
        rows = any ? row + 1 : 0;
    }
    const double lineHeight = font + 4;
    const double titleHeight = options.title.empty() ? 0 : palette.titleSize + 4;
    const double plotLeft = left + margin + yLabelWidth + 4;
    const double plotRight = left + options.widthPt - margin - font; // room for the last x label
    const double plotTop = top + margin + titleHeight + lineHeight;  // y axis title above the axis
    const double plotBottom = top + options.heightPt - margin - rows * lineHeight - 2 * lineHeight;
    if (plotRight - plotLeft < 40 || plotBottom - plotTop < 40)
        throw ValidationError("chart.width", "width",
                              "plot of " + std::to_string(int(options.widthPt)) + " × " +
                                  std::to_string(int(options.heightPt)) +
                                  " pt: too small for its axes and legend (at least about 160 × 160)");

    auto mapX = [&](double v) {
        const double t = options.x.log2
                             ? (std::log2(v) - std::log2(xr.min)) / (std::log2(xr.max) - std::log2(xr.min))
                             : (v - xr.min) / (xr.max - xr.min);
        return plotLeft + t * (plotRight - plotLeft);
    };
    auto mapY = [&](double v) {
        const double t = options.y.log2
                             ? (std::log2(v) - std::log2(yr.min)) / (std::log2(yr.max) - std::log2(yr.min))
                             : (v - yr.min) / (yr.max - yr.min);
        return plotBottom - t * (plotBottom - plotTop);
    };

    if (!options.title.empty())
        scene.texts.push_back({left + margin, top + margin + palette.titleSize, options.title,
                               palette.titleSize, palette.text, TextAnchor::Start, true});
    scene.texts.push_back({plotLeft - yLabelWidth - 4, plotTop - 5, options.y.title, font, palette.text,
                           TextAnchor::Start, false});
    Color grid = palette.idle;
    grid.a = 255;
    for (const double t : yTicks) {
        const double y = mapY(t);
        scene.lines.push_back({plotLeft, y, plotRight, y, grid, 0.5, false});
        scene.texts.push_back({plotLeft - 4, y + font * 0.35, tickLabel(t * options.y.labelScale), font,
                               palette.text, TextAnchor::End, false});
    }
    for (const double t : xTicks) {
        const double x = mapX(t);
        scene.lines.push_back({x, plotTop, x, plotBottom, grid, 0.5, false});
        scene.lines.push_back({x, plotBottom, x, plotBottom + 3, palette.grid, 0.5, false});
        scene.texts.push_back({x, plotBottom + 3 + font, tickLabel(t * options.x.labelScale), font,
                               palette.text, TextAnchor::Middle, false});
    }
    scene.lines.push_back({plotLeft, plotBottom, plotRight, plotBottom, palette.grid, 0.75, false});
    scene.lines.push_back({plotLeft, plotTop, plotLeft, plotBottom, palette.grid, 0.75, false});
    scene.texts.push_back({(plotLeft + plotRight) / 2, plotBottom + 3 + font + lineHeight, options.x.title,
                           font, palette.text, TextAnchor::Middle, false});

    auto inside = [&](const PlotPoint& p) {
        return std::isfinite(p.x) && std::isfinite(p.y) && (!options.x.log2 || p.x > 0) &&
               (!options.y.log2 || p.y > 0) && p.x >= xr.min - 1e-12 && p.x <= xr.max * (1 + 1e-12) &&
               p.y >= yr.min - 1e-12 && p.y <= yr.max * (1 + 1e-12) + 1e-12;
    };
    for (std::size_t k = 0; k < series.size(); ++k) {
        const PlotSeries& s = series[k];
        const Color color = plotSeriesColor(palette, s.colorIndex);
        if (s.line)
            for (std::size_t i = 1; i < s.points.size(); ++i) {
                const PlotPoint &a = s.points[i - 1], &b = s.points[i];
                if (!inside(a) || !inside(b)) continue;
                scene.lines.push_back(
                    {mapX(a.x), mapY(a.y), mapX(b.x), mapY(b.y), color, s.lineWidth, s.dashed});
            }
        if (s.markers)
            for (const PlotPoint& p : s.points) {
                if (!inside(p)) continue;
                SceneRect r;
                r.x = mapX(p.x) - s.markerSize / 2;
                r.y = mapY(p.y) - s.markerSize / 2;
                r.w = r.h = s.markerSize;
                r.fill = s.hollowMarkers ? palette.background : color;
                r.stroke = color;
                r.strokeWidth = 0.6;
                if (!s.hollowMarkers) {
                    // Rects draw before lines: a solid marker is drawn as a short thick line, over
                    // the lines drawn before it, and its rect stays (invisible) for hit-testing
                    // and the tooltip.
                    const double y = r.y + r.h / 2;
                    scene.lines.push_back({r.x, y, r.x + r.w, y, color, r.h, false});
                    r.fill.a = 0;
                    r.stroke.a = 0;
                }
                r.role = RectRole::Op;
                r.event = p.id;
                r.panel = panel;
                r.kind = options.markerKind;
                r.tooltip = p.tooltip;
                scene.rects.push_back(r);
            }
        if (legendAt[k].first >= 0) {
            const double x = left + margin + legendAt[k].first;
            const double y = plotBottom + 3 + font + lineHeight + lineHeight * (1 + legendAt[k].second);
            if (s.line)
                scene.lines.push_back(
                    {x, y - font * 0.35, x + swatch, y - font * 0.35, color, s.lineWidth, s.dashed});
            if (s.markers || !s.line) {
                SceneRect r;
                r.x = x + swatch / 2 - s.markerSize / 2;
                r.y = y - font * 0.35 - s.markerSize / 2;
                r.w = r.h = s.markerSize;
                r.fill = s.hollowMarkers ? palette.background : color;
                r.stroke = color;
                r.strokeWidth = 0.6;
                r.role = RectRole::Legend;
                r.panel = panel;
                scene.rects.push_back(r);
            }
            scene.texts.push_back(
                {x + swatch + gap, y, s.name, font, palette.text, TextAnchor::Start, false});
        }
    }
    scene.width = std::max(scene.width, left + options.widthPt);
    scene.height = std::max(scene.height, top + options.heightPt);
}

Scene layoutXyPlot(const std::vector<PlotSeries>& series, const PlotOptions& options,
                   const Palette& palette) {
    Scene scene;
    scene.fontFamily = std::string(palette.fontFamily);
    SceneRect background;
    background.fill = palette.background;
    background.role = RectRole::Background;
    scene.rects.push_back(background);
    appendXyPlot(scene, series, options, palette, 0, 0, 0);
    scene.rects.front().w = scene.width;
    scene.rects.front().h = scene.height;
    return scene;
}

} // namespace stagecraft
