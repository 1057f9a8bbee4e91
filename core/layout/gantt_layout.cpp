#include "layout/gantt_layout.h"

#include "error.h"
#include "ir/op_label.h"
#include "layout/palette.h"
#include "layout/text_metrics.h"
#include "size_limits.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

namespace stagecraft {

namespace {

/// Greedy line breaking at spaces so that each line fits `maxWidth` (a single word longer than
/// that gets a line of its own).
std::vector<std::string> wrapText(const std::string& text, double size, double maxWidth) {
    std::vector<std::string> lines;
    std::string line;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t end = text.find(' ', pos);
        if (end == std::string::npos) end = text.size();
        const std::string word = text.substr(pos, end - pos);
        std::string candidate = line;
        if (!candidate.empty()) candidate += ' ';
        candidate += word;
        if (!line.empty() && estimateTextWidth(candidate, size) > maxWidth) {
            lines.push_back(line);
            line = word;
        } else {
            line = candidate;
        }
        pos = end + 1;
    }
    if (!line.empty()) lines.push_back(line);
    return lines;
}

constexpr int kMaxRows = kMaxChartRows;
constexpr const char* kDot = " \u00B7 "; // " · "

bool validEvent(const TimelineEvent& e) {
    // Timelines read from files may carry anything; such events are left out, not guessed at.
    return e.device >= 0 && std::isfinite(e.start) && std::isfinite(e.end) && e.end >= e.start &&
           int(e.op.kind) < kOpKindCount && int(e.comm) <= int(CommKind::Collective);
}

ChunkShape chunkShape(const TimelineShape& shape) {
    return {shape.pipes, shape.stagesPerPipe, shape.chunksPerDevice};
}

/// What one panel needs before drawing: its rows and makespan.
struct PanelInfo {
    int rows = 0;
    double makespan = 0;
};

PanelInfo inspect(const Timeline& timeline, std::size_t index) {
    PanelInfo info;
    info.rows = std::max(0, timeline.shape.devices);
    for (const TimelineEvent& e : timeline.events) {
        if (!validEvent(e)) continue;
        if (e.device >= kMaxRows)
            throw ValidationError("chart.devices", "panels[" + std::to_string(index) + "]",
                                  "event on device " + std::to_string(e.device) +
                                      " cannot be drawn: at most " + std::to_string(kMaxRows) +
                                      " device rows");
        info.rows = std::max(info.rows, e.device + 1);
        info.makespan = std::max(info.makespan, e.end);
    }
    info.rows = std::min(info.rows, kMaxRows);
    return info;
}

/// What occurs in the chart, for the legend.
struct Seen {
    std::array<std::array<bool, kOpKindCount>, 2> kind{}; ///< [pipe][kind]
    int chunks = 1;                                       ///< most chunks per pipe of any panel
    std::array<bool, 4> comm{};                           ///< by CommKind (drawn ones only)
    bool idle = false;
    bool split = false;
    bool unsplit = false;
};

struct LegendEntry {
    std::vector<Color> swatches;
    std::string text;
};

std::vector<LegendEntry> legendEntries(const Seen& seen, const Palette& pal) {
    std::vector<LegendEntry> entries;
    const bool pipe1 = std::any_of(seen.kind[1].begin(), seen.kind[1].end(), [](bool b) { return b; });
    const std::array<const char*, kOpKindCount> names = {
        "forward (F)", seen.split && !seen.unsplit ? "input gradient (B)" : "backward (B)",
        "weight gradient (W)", "gradient sync (S)", "optimizer (O)"};
    for (int k = 0; k < kOpKindCount; ++k) {
        const OpKind kind = OpKind(k);
        if (!seen.kind[0][k] && !seen.kind[1][k]) continue;
        const int pipe = seen.kind[0][k] ? 0 : 1;
        entries.push_back({{opColor(pal, kind, pipe, 0, 1)}, names[k]});
    }
    // Chunk and pipe entries show the F/B/W colours they shade or swap.
    auto computeSwatches = [&](int pipe, int chunk) {
        std::vector<Color> swatches;
        for (OpKind kind : {OpKind::F, OpKind::B, OpKind::W})
            if (seen.kind[pipe][int(kind)]) swatches.push_back(opColor(pal, kind, pipe, chunk, seen.chunks));
        return swatches;
    };
    if (seen.chunks > 1)
        for (int c = 0; c < seen.chunks && c < 26; ++c)
            entries.push_back({computeSwatches(seen.kind[0][0] || !pipe1 ? 0 : 1, c),
                               std::string("chunk ") + char('a' + c)});
    if (pipe1) {
        entries.push_back({computeSwatches(0, 0), "pipe 0"});
        entries.push_back({computeSwatches(1, 0), "pipe 1 (')"});
    }
    const std::array<const char*, 4> commNames = {"", "activation transfer", "gradient transfer",
                                                  "collective"};
    for (int c = 1; c < 4; ++c)
        if (seen.comm[c]) entries.push_back({{commColor(pal, CommKind(c))}, commNames[c]});
    if (seen.idle) entries.push_back({{pal.idle}, "idle"});
    return entries;
}

std::string tooltipOf(const TimelineEvent& e, const TimeAxis& axis) {
    auto at = [&](double t) { return formatNumber(t / axis.displayScale); };
    const std::string unit = axis.unit.empty() ? "" : " " + axis.unit;
    std::string tip;
    if (e.lane == Lane::Comm) {
        tip = std::string(commKindName(e.comm)) + " of " + describeOp(e.op) + " D" + std::to_string(e.device);
        if (e.peer >= 0) tip += " \u2192 D" + std::to_string(e.peer);
    } else {
        tip = describeOp(e.op) + " on D" + std::to_string(e.device);
    }
    return tip + ": " + at(e.start) + "\u2013" + at(e.end) + unit + " (" + at(e.duration()) + unit + ")";
}

} // namespace

int chunksPerPipe(const TimelineShape& shape) {
    return chunksPerPipe(chunkShape(shape));
}

int chunkInPipe(const TimelineShape& shape, const Op& op) {
    return chunkInPipe(chunkShape(shape), op);
}

std::string chartOpLabel(const TimelineShape& shape, const Op& op) {
    return opLabel(chunkShape(shape), op);
}

std::string formatNumber(double value, int decimals) {
    if (!std::isfinite(value)) return "?";
    decimals = std::clamp(decimals, 0, 9);
    std::array<char, 64> buffer{};
    auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::fixed,
                                decimals);
    if (result.ec != std::errc()) return "?";
    std::string text(buffer.data(), result.ptr);
    if (text.find('.') != std::string::npos) {
        while (text.back() == '0') text.pop_back();
        if (text.back() == '.') text.pop_back();
    }
    if (text == "-0") text = "0";
    return text;
}

TimeAxis niceTimeAxis(double end, int maxTicks, TimeUnit unit) {
    if (!(end > 0) || !std::isfinite(end)) end = 1;
    maxTicks = std::clamp(maxTicks, 1, 50);
    TimeAxis axis;
    if (unit == TimeUnit::Microseconds) {
        axis.unit = "\u00B5s";
        if (end >= 2e6)
            axis.displayScale = 1e6, axis.unit = "s";
        else if (end >= 2e3)
            axis.displayScale = 1e3, axis.unit = "ms";
    }
    const double span = end / axis.displayScale;
    const double raw = span / maxTicks;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10 * magnitude;
    for (double m : {1.0, 2.0, 5.0})
        if (m * magnitude >= raw * (1 - 1e-9)) {
            step = m * magnitude;
            break;
        }
    const int decimals = std::max(0, -int(std::floor(std::log10(step) + 1e-9)));
    axis.step = step * axis.displayScale;
    for (int i = 0;; ++i) {
        const double v = i * step;
        if (v > span * (1 + 1e-9)) break;
        axis.ticks.push_back(v * axis.displayScale);
        axis.labels.push_back(formatNumber(v, decimals));
    }
    return axis;
}

std::string timelineSummary(const Timeline& timeline, TimeUnit unit) {
    const TimelineShape& shape = timeline.shape;
    double makespan = 0, busy = 0;
    int rows = std::max(0, shape.devices);
    for (const TimelineEvent& e : timeline.events) {
        if (!validEvent(e) || e.device >= kMaxRows) continue;
        makespan = std::max(makespan, e.end);
        rows = std::max(rows, e.device + 1);
        if (e.lane == Lane::Compute) busy += e.duration();
    }
    std::string text = "p=" + std::to_string(rows);
    if (shape.microbatches > 0) text += kDot + std::string("m=") + std::to_string(shape.microbatches);
    if (chunksPerPipe(shape) > 1) text += kDot + std::string("v=") + std::to_string(chunksPerPipe(shape));
    const TimeAxis axis = niceTimeAxis(makespan, 1, unit);
    text += kDot + std::string("makespan ") + formatNumber(makespan / axis.displayScale, 3);
    if (!axis.unit.empty()) text += " " + axis.unit;
    if (makespan > 0 && rows > 0)
        text +=
            kDot + std::string("bubble ") + formatNumber(100.0 * (1.0 - busy / (rows * makespan)), 1) + "%";
    return text;
}

Scene layoutGantt(std::span<const ChartPanel> panels, const ChartOptions& options) {
    const Palette& pal = findPalette(options.palette);
    if (panels.empty())
        throw ValidationError("chart.panels", "panels", "a chart needs at least one timeline");
    if (!(options.widthPt >= 100 && options.widthPt <= 100000))
        throw ValidationError("chart.width", "widthPt",
                              "chart width " + formatNumber(options.widthPt) + " pt is not in [100, 100000]");
    if (!(options.timeEnd >= 0) || !std::isfinite(options.timeEnd))
        throw ValidationError("chart.time", "timeEnd",
                              "time end " + formatNumber(options.timeEnd) + " must be finite and >= 0");

    std::vector<PanelInfo> infos;
    int maxRows = 1;
    double longest = 0;
    for (std::size_t i = 0; i < panels.size(); ++i) {
        if (!panels[i].timeline)
            throw ValidationError("chart.panels", "panels[" + std::to_string(i) + "]",
                                  "panel has no timeline");
        infos.push_back(inspect(*panels[i].timeline, i));
        maxRows = std::max(maxRows, infos.back().rows);
        longest = std::max(longest, infos.back().makespan);
    }
    const double timeEnd = options.timeEnd > 0 ? options.timeEnd : (longest > 0 ? longest : 1.0);

    Scene scene;
    scene.width = options.widthPt;
    scene.fontFamily = std::string(pal.fontFamily);
    scene.rects.push_back(
        {0, 0, scene.width, 0, pal.background, {}, 0, RectRole::Background, -1, -1, {}, {}});

    // Horizontal geometry: row labels, then the plot; room on the right for half a tick label.
    const double fs = pal.fontSize;
    const double labelW = estimateTextWidth("D" + std::to_string(maxRows - 1), fs);
    const double x0 = pal.margin + labelW + 4;
    const double provisionalW = options.widthPt - x0 - pal.margin;
    TimeAxis axis = niceTimeAxis(timeEnd, std::max(1, int(provisionalW / (fs * 7))), options.timeUnit);
    const double tailRoom = options.axis ? estimateTextWidth(axis.labels.back(), fs) / 2 : 0;
    const double plotW = options.widthPt - x0 - pal.margin - tailRoom;
    if (plotW < 40)
        throw ValidationError("chart.width", "widthPt",
                              "chart width " + formatNumber(options.widthPt) +
                                  " pt leaves no room for the plot");
    const double scale = plotW / timeEnd;
    auto xOf = [&](double t) { return x0 + std::clamp(t, 0.0, timeEnd) * scale; };

    Seen seen;
    const double rowH = pal.rowHeight;
    const double laneH = rowH + (options.showComm ? pal.commHeight + 1 : 0);
    double y = pal.margin;
    for (std::size_t p = 0; p < panels.size(); ++p) {
        const Timeline& timeline = *panels[p].timeline;
        const TimelineShape& shape = timeline.shape;
        const int panel = int(p);
        if (shape.splitBackward)
            seen.split = true;
        else
            seen.unsplit = true;
        seen.chunks = std::max(seen.chunks, chunksPerPipe(shape));

        if (options.title) {
            const std::string title = panels[p].title.empty() ? shape.schedule : panels[p].title;
            const std::string subtitle =
                panels[p].subtitle.empty() ? timelineSummary(timeline, options.timeUnit) : panels[p].subtitle;
            y += pal.titleSize;
            scene.texts.push_back({pal.margin, y, title, pal.titleSize, pal.text, TextAnchor::Start, true});
            const double subX = pal.margin + estimateTextWidth(title, pal.titleSize, true) + fs;
            if (subX + estimateTextWidth(subtitle, fs) <= options.widthPt - pal.margin) {
                scene.texts.push_back({subX, y, subtitle, fs, pal.mutedText, TextAnchor::Start, false});
            } else {
                // Too long for the title line: on lines of its own below it, broken at spaces.
                for (const std::string& line : wrapText(subtitle, fs, options.widthPt - 2 * pal.margin)) {
                    y += fs * 1.3;
                    scene.texts.push_back({pal.margin, y, line, fs, pal.mutedText, TextAnchor::Start, false});
                }
            }
            y += fs * 0.6;
        }

        const int rows = infos[p].rows;
        const double top = y;
        auto rowTop = [&](int d) { return top + d * (laneH + pal.rowGap); };
        // Device rows: label and an idle background up to the panel's makespan.
        std::vector<double> busy(std::size_t(rows), 0.0);
        for (int d = 0; d < rows; ++d) {
            const double ry = rowTop(d);
            scene.texts.push_back({x0 - 4, ry + rowH / 2 + 0.35 * fs, "D" + std::to_string(d), fs, pal.text,
                                   TextAnchor::End, false});
            scene.rects.push_back({x0,
                                   ry,
                                   xOf(infos[p].makespan) - x0,
                                   rowH,
                                   pal.idle,
                                   {},
                                   0,
                                   RectRole::Idle,
                                   -1,
                                   panel,
                                   {},
                                   {}});
        }
        const std::vector<TimelineEvent>& events = timeline.events;
        for (std::size_t k = 0; k < events.size(); ++k) {
            const TimelineEvent& e = events[k];
            // Zero-length events draw nothing and stay out of the legend.
            if (!validEvent(e) || e.device >= rows || e.start >= timeEnd || !(e.end > e.start)) continue;
            const double ry = rowTop(e.device);
            const double x = xOf(e.start), w = xOf(e.end) - x;
            if (e.lane == Lane::Compute) {
                busy[std::size_t(e.device)] += e.duration();
                const int pipe = e.op.pipe > 0 ? 1 : 0;
                seen.kind[pipe][int(e.op.kind)] = true;
                const Color fill =
                    opColor(pal, e.op.kind, pipe, chunkInPipe(shape, e.op), chunksPerPipe(shape));
                scene.rects.push_back({x, ry, w, rowH, fill, pal.opStroke, pal.opStrokeWidth, RectRole::Op,
                                       int(k), panel, opKindName(e.op.kind),
                                       options.tooltips ? tooltipOf(e, axis) : std::string()});
                if (!options.labels || pal.labelSize > rowH - 2) continue;
                const double room = w - 2 * std::max(1.0, pal.opStrokeWidth) - 1;
                if (room <= 0) continue; // no label fits: skip building one
                std::string label = chartOpLabel(shape, e.op);
                if (estimateTextWidth(label, pal.labelSize) > room)
                    label = shortOpLabel(chunkShape(shape), e.op);
                if (estimateTextWidth(label, pal.labelSize) > room) continue;
                scene.texts.push_back({x + w / 2, ry + rowH / 2 + 0.35 * pal.labelSize, std::move(label),
                                       pal.labelSize, labelColorOn(pal, fill), TextAnchor::Middle, false});
            } else if (options.showComm) {
                seen.comm[std::size_t(e.comm)] = true;
                scene.rects.push_back({x,
                                       ry + rowH + 1,
                                       w,
                                       pal.commHeight,
                                       commColor(pal, e.comm),
                                       {},
                                       0,
                                       RectRole::Comm,
                                       int(k),
                                       panel,
                                       commKindName(e.comm),
                                       options.tooltips ? tooltipOf(e, axis) : std::string()});
            }
        }
        for (double b : busy)
            if (b < infos[p].makespan * (1 - 1e-9)) seen.idle = true;
        y = rows > 0 ? rowTop(rows - 1) + laneH : top;
        if (p + 1 < panels.size()) y += pal.panelGap;
    }

    if (options.axis) {
        const double ay = y + 3;
        const double tick = 3;
        scene.lines.push_back({x0, ay, x0 + plotW, ay, pal.grid, 0.5, false});
        for (std::size_t i = 0; i < axis.ticks.size(); ++i) {
            const double x = xOf(axis.ticks[i]);
            scene.lines.push_back({x, ay, x, ay + tick, pal.grid, 0.5, false});
            scene.texts.push_back(
                {x, ay + tick + fs + 1, axis.labels[i], fs, pal.text, TextAnchor::Middle, false});
        }
        const std::string title = axis.unit.empty() ? "time (unit costs)" : "time (" + axis.unit + ")";
        y = ay + tick + fs + 1 + fs * 1.4;
        scene.texts.push_back({x0 + plotW / 2, y, title, fs, pal.text, TextAnchor::Middle, false});
    }

    if (options.legend) {
        const std::vector<LegendEntry> entries = legendEntries(seen, pal);
        const double lineH = fs * 1.6;
        const double swW = fs * 1.3, swH = fs * 0.95;
        double x = x0;
        double lineTop = y + fs * 0.8;
        for (const LegendEntry& entry : entries) {
            const double w = swW * double(entry.swatches.size()) + 3 + estimateTextWidth(entry.text, fs);
            if (x > x0 && x + w > options.widthPt - pal.margin) x = x0, lineTop += lineH;
            double sx = x;
            for (const Color& c : entry.swatches) {
                scene.rects.push_back({sx,
                                       lineTop + (lineH - swH) / 2,
                                       swW,
                                       swH,
                                       c,
                                       pal.grid,
                                       0.3,
                                       RectRole::Legend,
                                       -1,
                                       -1,
                                       {},
                                       {}});
                sx += swW;
            }
            scene.texts.push_back({sx + 3, lineTop + lineH / 2 + 0.35 * fs, entry.text, fs, pal.text,
                                   TextAnchor::Start, false});
            x += w + fs * 1.5;
        }
        if (!entries.empty()) y = lineTop + lineH;
    }

    scene.height = std::ceil(y + pal.margin);
    scene.rects.front().h = scene.height;
    return scene;
}

} // namespace stagecraft
