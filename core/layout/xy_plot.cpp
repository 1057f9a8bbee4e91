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

namespace {

constexpr double kSwatch = 14, kSwatchGap = 4, kEntryGap = 10;

/// Where each series' legend entry goes (x offset, row; -1 for none), in rows under the x axis
/// title, and how many rows they take.
std::vector<std::pair<double, double>> legendPlacement(const std::vector<PlotSeries>& series,
                                                       const PlotOptions& options, double font,
                                                       double innerWidth, int& rows) {
    std::vector<std::pair<double, double>> at;
    double x = 0;
    int row = 0;
    bool any = false;
    for (const PlotSeries& s : series) {
        if (!options.legend || s.name.empty()) {
            at.push_back({-1, -1});
            continue;
        }
        const double w = kSwatch + kSwatchGap + estimateTextWidth(s.name, font) + kEntryGap;
        if (any && x + w > innerWidth) {
            x = 0;
            ++row;
        }
        at.push_back({x, row});
        x += w;
        any = true;
    }
    rows = any ? row + 1 : 0;
    return at;
}

/// The plot's area and ranges: data to points.
struct PlotArea {
    const PlotOptions& options;
    Range xr, yr;
    double left = 0, right = 0, top = 0, bottom = 0;
    double mapX(double v) const {
        const double t = options.x.log2
                             ? (std::log2(v) - std::log2(xr.min)) / (std::log2(xr.max) - std::log2(xr.min))
                             : (v - xr.min) / (xr.max - xr.min);
        return left + t * (right - left);
    }
    double mapY(double v) const {
        const double t = options.y.log2
                             ? (std::log2(v) - std::log2(yr.min)) / (std::log2(yr.max) - std::log2(yr.min))
                             : (v - yr.min) / (yr.max - yr.min);
        return bottom - t * (bottom - top);
    }
    bool inside(const PlotPoint& p) const {
        return std::isfinite(p.x) && std::isfinite(p.y) && (!options.x.log2 || p.x > 0) &&
               (!options.y.log2 || p.y > 0) && p.x >= xr.min - 1e-12 && p.x <= xr.max * (1 + 1e-12) &&
               p.y >= yr.min - 1e-12 && p.y <= yr.max * (1 + 1e-12) + 1e-12;
    }
};

/// Grid lines, ticks and their labels, the axes and the x axis title.
void drawAxes(Scene& scene, const PlotArea& area, const std::vector<double>& xTicks,
              const std::vector<double>& yTicks, const Palette& palette, double lineHeight) {
    const double font = palette.fontSize;
    const PlotOptions& options = area.options;
    Color grid = palette.idle;
    grid.a = 255;
    for (const double t : yTicks) {
        const double y = area.mapY(t);
        scene.lines.push_back({area.left, y, area.right, y, grid, 0.5, false});
        scene.texts.push_back({area.left - 4, y + font * 0.35, tickLabel(t * options.y.labelScale), font,
                               palette.text, TextAnchor::End, false});
    }
    for (const double t : xTicks) {
        const double x = area.mapX(t);
        scene.lines.push_back({x, area.top, x, area.bottom, grid, 0.5, false});
        scene.lines.push_back({x, area.bottom, x, area.bottom + 3, palette.grid, 0.5, false});
        scene.texts.push_back({x, area.bottom + 3 + font, tickLabel(t * options.x.labelScale), font,
                               palette.text, TextAnchor::Middle, false});
    }
    scene.lines.push_back({area.left, area.bottom, area.right, area.bottom, palette.grid, 0.75, false});
    scene.lines.push_back({area.left, area.top, area.left, area.bottom, palette.grid, 0.75, false});
    scene.texts.push_back({(area.left + area.right) / 2, area.bottom + 3 + font + lineHeight, options.x.title,
                           font, palette.text, TextAnchor::Middle, false});
}

/// A series' lines between points inside the ranges, and its markers.
void drawSeries(Scene& scene, const PlotArea& area, const PlotSeries& s, Color color, const Palette& palette,
                int panel) {
    if (s.line)
        for (std::size_t i = 1; i < s.points.size(); ++i) {
            const PlotPoint &a = s.points[i - 1], &b = s.points[i];
            if (!area.inside(a) || !area.inside(b)) continue;
            scene.lines.push_back({area.mapX(a.x), area.mapY(a.y), area.mapX(b.x), area.mapY(b.y), color,
                                   s.lineWidth, s.dashed});
        }
    if (!s.markers) return;
    for (const PlotPoint& p : s.points) {
        if (!area.inside(p)) continue;
        SceneRect r;
        r.x = area.mapX(p.x) - s.markerSize / 2;
        r.y = area.mapY(p.y) - s.markerSize / 2;
        r.w = r.h = s.markerSize;
        r.fill = s.hollowMarkers ? palette.background : color;
        r.stroke = color;
        r.strokeWidth = 0.6;
        if (!s.hollowMarkers) {
            // Rects draw before lines: a solid marker is drawn as a short thick line, over the
            // lines drawn before it, and its rect stays (invisible) for hit-testing and the tooltip.
            const double y = r.y + r.h / 2;
            scene.lines.push_back({r.x, y, r.x + r.w, y, color, r.h, false});
            r.fill.a = 0;
            r.stroke.a = 0;
        }
        r.role = RectRole::Op;
        r.event = p.id;
        r.panel = panel;
        r.kind = area.options.markerKind;
        r.tooltip = p.tooltip;
        scene.rects.push_back(r);
    }
}

/// A series' legend entry at (x, y): its line and marker as a swatch, then its name.
void drawLegendEntry(Scene& scene, const PlotSeries& s, Color color, const Palette& palette, double x,
                     double y, int panel) {
    const double font = palette.fontSize;
    if (s.line)
        scene.lines.push_back(
            {x, y - font * 0.35, x + kSwatch, y - font * 0.35, color, s.lineWidth, s.dashed});
    if (s.markers || !s.line) {
        SceneRect r;
        r.x = x + kSwatch / 2 - s.markerSize / 2;
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
        {x + kSwatch + kSwatchGap, y, s.name, font, palette.text, TextAnchor::Start, false});
}

} // namespace

void appendXyPlot(Scene& scene, const std::vector<PlotSeries>& series, const PlotOptions& options,
                  const Palette& palette, double left, double top, int panel) {
    const double font = palette.fontSize;
    const double margin = palette.margin;
    PlotArea area{options, axisRange(series, options.x, true), axisRange(series, options.y, false)};
    const std::vector<double> xTicks = plotTicks(area.xr.min, area.xr.max, options.x.log2, 6);
    const std::vector<double> yTicks = plotTicks(area.yr.min, area.yr.max, options.y.log2, 5);

    double yLabelWidth = 0;
    for (const double t : yTicks)
        yLabelWidth = std::max(yLabelWidth, estimateTextWidth(tickLabel(t * options.y.labelScale), font));
    int rows = 0;
    const auto legendAt = legendPlacement(series, options, font, options.widthPt - 2 * margin, rows);
    const double lineHeight = font + 4;
    const double titleHeight = options.title.empty() ? 0 : palette.titleSize + 4;
    area.left = left + margin + yLabelWidth + 4;
    area.right = left + options.widthPt - margin - font; // room for the last x label
    area.top = top + margin + titleHeight + lineHeight;  // y axis title above the axis
    area.bottom = top + options.heightPt - margin - rows * lineHeight - 2 * lineHeight;
    if (area.right - area.left < 40 || area.bottom - area.top < 40)
        throw ValidationError("chart.width", "width",
                              "plot of " + std::to_string(int(options.widthPt)) + " × " +
                                  std::to_string(int(options.heightPt)) +
                                  " pt: too small for its axes and legend (at least about 160 × 160)");

    if (!options.title.empty())
        scene.texts.push_back({left + margin, top + margin + palette.titleSize, options.title,
                               palette.titleSize, palette.text, TextAnchor::Start, true});
    scene.texts.push_back({area.left - yLabelWidth - 4, area.top - 5, options.y.title, font, palette.text,
                           TextAnchor::Start, false});
    drawAxes(scene, area, xTicks, yTicks, palette, lineHeight);
    for (std::size_t k = 0; k < series.size(); ++k) {
        const PlotSeries& s = series[k];
        const Color color = plotSeriesColor(palette, s.colorIndex);
        drawSeries(scene, area, s, color, palette, panel);
        if (legendAt[k].first >= 0)
            drawLegendEntry(scene, s, color, palette, left + margin + legendAt[k].first,
                            area.bottom + 3 + font + lineHeight + lineHeight * (1 + legendAt[k].second),
                            panel);
    }
    scene.width = std::max(scene.width, left + options.widthPt);
    scene.height = std::max(scene.height, top + options.heightPt);
}

Scene layoutXyPlot(const std::vector<PlotSeries>& series, const PlotOptions& options,
                   const Palette& palette) {
    Scene scene = plotScene(palette);
    appendXyPlot(scene, series, options, palette, 0, 0, 0);
    scene.rects.front().w = scene.width;
    scene.rects.front().h = scene.height;
    return scene;
}

Scene plotScene(const Palette& palette) {
    Scene scene;
    scene.fontFamily = std::string(palette.fontFamily);
    SceneRect background;
    background.fill = palette.background;
    background.role = RectRole::Background;
    scene.rects.push_back(background);
    return scene;
}

} // namespace stagecraft
