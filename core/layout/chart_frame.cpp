#include "layout/chart_frame.h"

#include "error.h"
#include "ir/op_label.h"
#include "ir/op_name.h"
#include "layout/compared_rows.h"
#include "layout/error_colors.h"
#include "layout/text_metrics.h"
#include "size_limits.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace stagecraft {

namespace {

constexpr int kMaxRows = kMaxChartRows;

/// Up to this many chunks the legend has an entry per chunk.
constexpr int kMaxChunkEntries = 4;

struct LegendEntry {
    std::vector<Color> swatches;
    std::string text;
    bool framed = false; ///< a frame around the swatches, as F&B slots are drawn
};

/// Stroke of an F&B slot's frame, in points: heavier than a bar's outline so it reads as one box.
double overlapFrameWidth(const Palette& pal) {
    return std::max(0.9, 2 * pal.opStrokeWidth);
}

std::vector<LegendEntry> legendEntries(const ChartLegendContent& seen, const Palette& pal) {
    std::vector<LegendEntry> entries;
    const bool pipe1 = std::any_of(seen.kind[1].begin(), seen.kind[1].end(), [](bool b) { return b; });
    std::array<const char*, kOpKindCount> names{};
    names[int(OpKind::F)] = "forward (F)";
    names[int(OpKind::B)] = seen.split && !seen.unsplit ? "input gradient (B)" : "backward (B)";
    names[int(OpKind::W)] = "weight gradient (W)";
    names[int(OpKind::R)] = "recompute (R)";
    names[int(OpKind::GradSync)] = "gradient sync (S)";
    names[int(OpKind::Optimizer)] = "optimizer (O)";
    // Per-micro-batch kinds first (R after W, though it is numbered last), then the tail's.
    for (const OpKind kind :
         {OpKind::F, OpKind::B, OpKind::W, OpKind::R, OpKind::GradSync, OpKind::Optimizer}) {
        const int k = int(kind);
        if (!seen.kind[0][k] && !seen.kind[1][k]) continue;
        const int pipe = seen.kind[0][k] ? 0 : 1;
        entries.push_back({{opColor(pal, kind, pipe, 0, 1)}, names[k]});
    }
    // Chunk and pipe entries show the F/B/W/R colours they shade or swap.
    auto computeSwatches = [&](int pipe, int chunk) {
        std::vector<Color> swatches;
        for (OpKind kind : {OpKind::F, OpKind::B, OpKind::W, OpKind::R})
            if (seen.kind[pipe][int(kind)]) swatches.push_back(opColor(pal, kind, pipe, chunk, seen.chunks));
        return swatches;
    };
    const int chunkPipe = seen.kind[0][0] || !pipe1 ? 0 : 1;
    if (seen.chunks > kMaxChunkEntries) {
        // Many chunks: one entry for their shades (first, middle, last), not a line of "chunk a" to
        // "chunk p" that wraps.
        std::vector<Color> shades;
        for (int c : {0, (seen.chunks - 1) / 2, seen.chunks - 1})
            shades.push_back(opColor(pal, OpKind::F, chunkPipe, c, seen.chunks));
        const char last = char('a' + std::min(seen.chunks, 26) - 1);
        entries.push_back({shades, std::string("chunks a\u2013") + last + " (shade by chunk)"});
    } else if (seen.chunks > 1) {
        for (int c = 0; c < seen.chunks; ++c)
            entries.push_back({computeSwatches(chunkPipe, c), std::string("chunk ") + char('a' + c)});
    }
    if (pipe1) {
        entries.push_back({computeSwatches(0, 0), "pipe 0"});
        entries.push_back({computeSwatches(1, 0), "pipe 1 (')"});
    }
    const std::array<const char*, 4> commNames = {"", "activation transfer", "gradient transfer",
                                                  "collective"};
    for (int c = 1; c < 4; ++c)
        if (seen.comm[c]) entries.push_back({{commColor(pal, CommKind(c))}, commNames[c]});
    if (seen.overlapSlots)
        entries.push_back({{opColor(pal, OpKind::F, 0, 0, 1), opColor(pal, OpKind::B, 0, 0, 1)},
                           "F&B slot (overlapped)",
                           true});
    if (seen.idle) entries.push_back({{pal.idle}, "idle"});
    return entries;
}

std::string tooltipOf(const TimelineEvent& e, const TimelineShape& shape, const TimeAxis& axis) {
    const std::string name = opName(e.op, shape.splitBackward, shape.sequenceSlices);
    auto at = [&](double t) { return formatNumber(t / axis.displayScale); };
    const std::string unit = axis.unit.empty() ? "" : " " + axis.unit;
    std::string tip;
    if (e.lane == Lane::Comm) {
        tip = std::string(commKindName(e.comm)) + " of " + name + " D" + std::to_string(e.device);
        if (e.peer >= 0) tip += " \u2192 D" + std::to_string(e.peer);
    } else {
        tip = name + " on D" + std::to_string(e.device);
    }
    return tip + ": " + at(e.start) + "\u2013" + at(e.end) + unit + " (" + at(e.duration()) + unit + ")";
}

void checkOptions(std::span<const ChartPanel> panels, const ChartOptions& options) {
    findPalette(options.palette);
    if (panels.empty())
        throw ValidationError("chart.panels", "panels", "a chart needs at least one timeline");
    if (!(options.widthPt >= 100 && options.widthPt <= 100000))
        throw ValidationError("chart.width", "widthPt",
                              "chart width " + formatNumber(options.widthPt) + " pt is not in [100, 100000]");
    if (!(options.timeEnd >= 0) || !std::isfinite(options.timeEnd))
        throw ValidationError("chart.time", "timeEnd",
                              "time end " + formatNumber(options.timeEnd) + " must be finite and >= 0");
    if (!(options.timeStart >= 0) || !std::isfinite(options.timeStart))
        throw ValidationError("chart.time", "timeStart",
                              "time start " + formatNumber(options.timeStart) + " must be finite and >= 0");
}

} // namespace

ChartContent scanChart(std::span<const ChartPanel> panels, const ChartOptions& options) {
    checkOptions(panels, options);
    ChartContent content;
    content.showComm = options.showComm;
    double longest = 0;
    for (std::size_t i = 0; i < panels.size(); ++i) {
        if (!panels[i].timeline)
            throw ValidationError("chart.panels", "panels[" + std::to_string(i) + "]",
                                  "panel has no timeline");
        const Timeline& timeline = *panels[i].timeline;
        ChartPanelContent panel;
        panel.timeline = &timeline;
        panel.rows = std::max(0, timeline.shape.devices);
        for (const TimelineEvent& e : timeline.events) {
            if (!isValidChartEvent(e)) continue;
            if (e.device >= kMaxRows)
                throw ValidationError("chart.devices", "panels[" + std::to_string(i) + "]",
                                      "event on device " + std::to_string(e.device) +
                                          " cannot be drawn: at most " + std::to_string(kMaxRows) +
                                          " device rows");
            panel.rows = std::max(panel.rows, e.device + 1);
            panel.makespan = std::max(panel.makespan, e.end);
        }
        panel.rows = std::min(panel.rows, kMaxRows);
        panel.rowLabels = panels[i].rowLabels;
        if (panels[i].compared) {
            if (panel.rowLabels.empty()) panel.rowLabels = panels[i].compared->rowLabels;
            panel.rowGroup = 2; // each device's predicted and measured rows read as a pair
        }
        content.maxRows = std::max(content.maxRows, panel.rows);
        longest = std::max(longest, panel.makespan);
        content.panels.push_back(std::move(panel));
    }
    content.timeEnd = options.timeEnd > 0 ? options.timeEnd : (longest > 0 ? longest : 1.0);
    content.timeStart = options.timeStart;
    if (content.timeStart >= content.timeEnd)
        throw ValidationError("chart.time", "timeStart",
                              "time range " + formatNumber(content.timeStart) + " to " +
                                  formatNumber(content.timeEnd) + ": the start must be before the end");

    // What the legend lists: what is drawn, and whether a device idles before its makespan.
    ChartLegendContent& seen = content.legend;
    std::vector<double> busy;
    for (std::size_t p = 0; p < panels.size(); ++p) {
        ChartPanelContent& panel = content.panels[p];
        const Timeline& timeline = *panel.timeline;
        const TimelineShape& shape = timeline.shape;
        if (!shape.overlapped.empty()) seen.overlapSlots = true;
        if (shape.splitBackward)
            seen.split = true;
        else
            seen.unsplit = true;
        seen.chunks = std::max(seen.chunks, chunksPerPipe(shape));
        busy.assign(std::size_t(panel.rows), 0.0);
        for (const TimelineEvent& e : timeline.events) {
            if (!isDrawnChartEvent(e, panel.rows, content.timeEnd, options.showComm, content.timeStart))
                continue;
            if (e.lane == Lane::Compute) {
                busy[std::size_t(e.device)] += e.duration();
                seen.kind[e.op.pipe > 0 ? 1 : 0][int(e.op.kind)] = true;
            } else {
                seen.comm[std::size_t(e.comm)] = true;
            }
        }
        for (double b : busy)
            if (b < panel.makespan * (1 - 1e-9)) seen.idle = true;
        if (options.title) {
            panel.title = panels[p].title.empty() ? shape.schedule : panels[p].title;
            panel.subtitle =
                panels[p].subtitle.empty() ? timelineSummary(timeline, options.timeUnit) : panels[p].subtitle;
        }
    }
    return content;
}

TimeMapping ChartFrame::fitMapping() const {
    return TimeMapping::fit(timeStart, timeEnd, plotLeft, plotWidth);
}

int ChartFrame::rowAt(double y, int& lane) const {
    // The last row starting at or above y: rows are in increasing y.
    const auto it = std::upper_bound(rows.begin(), rows.end(), y,
                                     [](double v, const ChartFrameRow& r) { return v < r.y; });
    if (it == rows.begin()) return -1;
    const int row = int(it - rows.begin()) - 1;
    const ChartFrameRow& r = rows[std::size_t(row)];
    if (y <= r.y + rowHeight) {
        lane = 0;
        return row;
    }
    if (showComm && y >= r.commY && y <= r.commY + commHeight) {
        lane = 1;
        return row;
    }
    return -1;
}

double ChartFrame::laneTop(int row, int lane) const {
    const ChartFrameRow& r = rows[std::size_t(row)];
    return lane == 0 ? r.y : r.commY;
}

namespace {

/// A panel's title and subtitle above its rows (the subtitle on lines of its own when too long);
/// returns the y below them.
double panelHeader(ChartFramePanel& fp, const ChartPanelContent& panel, const ChartOptions& options,
                   const Palette& pal, double y) {
    const double fs = pal.fontSize;
    y += pal.titleSize;
    fp.header.push_back({pal.margin, y, panel.title, pal.titleSize, pal.text, TextAnchor::Start, true});
    const double subX = pal.margin + estimateTextWidth(panel.title, pal.titleSize, true) + fs;
    if (!options.subtitle) {
        // Title only.
    } else if (subX + estimateTextWidth(panel.subtitle, fs) <= options.widthPt - pal.margin) {
        fp.header.push_back({subX, y, panel.subtitle, fs, pal.mutedText, TextAnchor::Start, false});
    } else {
        // Too long for the title line: on lines of its own below it, broken at spaces.
        for (const std::string& line : wrapText(panel.subtitle, fs, options.widthPt - 2 * pal.margin)) {
            y += fs * 1.3;
            fp.header.push_back({pal.margin, y, line, fs, pal.mutedText, TextAnchor::Start, false});
        }
    }
    y += fs * 0.6;
    return y;
}

/// Horizontal geometry: row labels, then the plot; room on the right for half a tick label.
void frameColumns(ChartFrame& frame, const ChartContent& content, const ChartOptions& options,
                  const Palette& pal) {
    const double fs = pal.fontSize;
    double labelW = estimateTextWidth("D" + std::to_string(content.maxRows - 1), fs);
    for (const ChartPanelContent& panel : content.panels)
        for (const std::string& label : panel.rowLabels)
            labelW = std::max(labelW, estimateTextWidth(label, fs));
    const double x0 = pal.margin + labelW + 4;
    const double provisionalW = options.widthPt - x0 - pal.margin;
    frame.maxTicks = std::max(1, int(provisionalW / (fs * 7)));
    frame.axisAtFit = niceTimeAxis(content.timeEnd, frame.maxTicks, options.timeUnit);
    const double tailRoom = options.axis ? estimateTextWidth(frame.axisAtFit.labels.back(), fs) / 2 : 0;
    const double plotW = options.widthPt - x0 - pal.margin - tailRoom;
    if (plotW < 40)
        throw ValidationError("chart.width", "widthPt",
                              "chart width " + formatNumber(options.widthPt) +
                                  " pt leaves no room for the plot");
    frame.plotLeft = x0;
    frame.plotWidth = plotW;
}

/// Vertical geometry: per panel a header, then its device rows (each with its comm lane);
/// returns the y below the last panel.
double framePanels(ChartFrame& frame, const ChartContent& content, const ChartOptions& options,
                   const Palette& pal) {
    const double rowH = pal.rowHeight;
    const double laneH = rowH + (options.showComm ? pal.commHeight + 1 : 0);
    frame.rowHeight = rowH;
    frame.commHeight = pal.commHeight;
    double y = pal.margin;
    for (std::size_t p = 0; p < content.panels.size(); ++p) {
        const ChartPanelContent& panel = content.panels[p];
        ChartFramePanel fp;
        if (options.title) y = panelHeader(fp, panel, options, pal, y);
        const double top = y;
        fp.top = top;
        fp.rows = panel.rows;
        fp.rowLabels = panel.rowLabels;
        fp.firstRow = int(frame.rows.size());
        fp.makespan = panel.makespan;
        // Groups of rows (a device's predicted and measured rows) get a wider gap between them.
        const double groupGap = panel.rowGroup > 1 ? pal.rowGap + 0.4 * rowH : 0.0;
        auto rowTop = [&](int d) {
            return top + d * (laneH + pal.rowGap) + double(d / std::max(1, panel.rowGroup)) * groupGap;
        };
        for (int d = 0; d < panel.rows; ++d)
            frame.rows.push_back({int(p), d, rowTop(d), rowTop(d) + rowH + 1});
        y = panel.rows > 0 ? rowTop(panel.rows - 1) + laneH : top;
        fp.bottom = y;
        frame.panels.push_back(std::move(fp));
        if (p + 1 < content.panels.size()) y += pal.panelGap;
    }
    return y;
}

/// The time axis's title below the panels; returns the y below it.
double frameAxis(ChartFrame& frame, const ChartOptions& options, const Palette& pal, double y) {
    const double fs = pal.fontSize;
    const double x0 = frame.plotLeft, plotW = frame.plotWidth;
    if (options.axis) {
        const double ay = y + 3;
        const double tick = 3;
        frame.axisY = ay;
        const std::string title =
            frame.axisAtFit.unit.empty() ? "time (unit costs)" : "time (" + frame.axisAtFit.unit + ")";
        y = ay + tick + fs + 1 + fs * 1.4;
        frame.axisTexts.push_back({x0 + plotW / 2, y, title, fs, pal.text, TextAnchor::Middle, false});
    }
    return y;
}

/// The legend's swatches and texts in lines below; returns the y below them.
double frameLegend(ChartFrame& frame, const ChartContent& content, const ChartOptions& options,
                   const Palette& pal, double y) {
    const double fs = pal.fontSize;
    const double x0 = frame.plotLeft;
    if (options.legend) {
        const std::vector<LegendEntry> entries = legendEntries(content.legend, pal);
        const double lineH = fs * 1.6;
        const double swW = fs * 1.3, swH = fs * 0.95;
        double x = x0;
        double lineTop = y + fs * 0.8;
        for (const LegendEntry& entry : entries) {
            const double w = swW * double(entry.swatches.size()) + 3 + estimateTextWidth(entry.text, fs);
            if (x > x0 && x + w > options.widthPt - pal.margin) x = x0, lineTop += lineH;
            double sx = x;
            for (const Color& c : entry.swatches) {
                frame.legendRects.push_back({sx,
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
            if (entry.framed)
                frame.legendRects.push_back({x,
                                             lineTop + (lineH - swH) / 2,
                                             sx - x,
                                             swH,
                                             Color{0, 0, 0, 0},
                                             pal.text,
                                             overlapFrameWidth(pal),
                                             RectRole::Legend,
                                             -1,
                                             -1,
                                             {},
                                             {}});
            frame.legendTexts.push_back({sx + 3, lineTop + lineH / 2 + 0.35 * fs, entry.text, fs, pal.text,
                                         TextAnchor::Start, false});
            x += w + fs * 1.5;
        }
        if (!entries.empty()) y = lineTop + lineH;
    }
    return y;
}

} // namespace

ChartFrame layoutChartFrame(const ChartContent& content, const ChartOptions& options) {
    const Palette& pal = findPalette(options.palette);
    if (!(options.widthPt >= 100 && options.widthPt <= 100000))
        throw ValidationError("chart.width", "widthPt",
                              "chart width " + formatNumber(options.widthPt) + " pt is not in [100, 100000]");
    ChartFrame frame;
    frame.width = options.widthPt;
    frame.palette = &pal;
    frame.fontFamily = std::string(pal.fontFamily);
    frame.showComm = options.showComm;
    frame.labels = options.labels;
    frame.minLabelSize = options.minLabelSize;
    frame.axis = options.axis;
    frame.timeUnit = options.timeUnit;
    frame.timeEnd = content.timeEnd;
    frame.timeStart = content.timeStart;

    frameColumns(frame, content, options, pal);
    double y = framePanels(frame, content, options, pal);
    y = frameAxis(frame, options, pal, y);
    y = frameLegend(frame, content, options, pal, y);
    frame.height = std::ceil(y + pal.margin);
    return frame;
}

SceneRect chartBackground(const ChartFrame& frame) {
    return {0,  0,  frame.width, frame.height, frame.palette->background, {}, 0, RectRole::Background, -1,
            -1, {}, {}};
}

void appendPanelDecor(Scene& scene, const ChartFrame& frame, std::size_t panel) {
    const ChartFramePanel& fp = frame.panels[panel];
    const Palette& pal = *frame.palette;
    const double fs = pal.fontSize;
    scene.texts.insert(scene.texts.end(), fp.header.begin(), fp.header.end());
    for (int d = 0; d < fp.rows; ++d) {
        const double ry = frame.rows[std::size_t(fp.firstRow + d)].y;
        const bool named = std::size_t(d) < fp.rowLabels.size();
        scene.texts.push_back({frame.plotLeft - 4, ry + frame.rowHeight / 2 + 0.35 * fs,
                               named ? fp.rowLabels[std::size_t(d)] : "D" + std::to_string(d), fs, pal.text,
                               TextAnchor::End, false});
    }
}

double chartX(const ChartFrame& frame, const TimeMapping& mapping, double t) {
    return mapping.timeToX(std::clamp(t, frame.timeStart, frame.timeEnd));
}

void appendIdleRows(Scene& scene, const ChartFrame& frame, std::size_t panel, const TimeMapping& mapping) {
    const ChartFramePanel& fp = frame.panels[panel];
    const double x = chartX(frame, mapping, 0);
    const double w = chartX(frame, mapping, fp.makespan) - x;
    for (int d = 0; d < fp.rows; ++d)
        scene.rects.push_back({x,
                               frame.rows[std::size_t(fp.firstRow + d)].y,
                               w,
                               frame.rowHeight,
                               frame.palette->idle,
                               {},
                               0,
                               RectRole::Idle,
                               -1,
                               int(panel),
                               {},
                               {}});
}

void appendAxis(Scene& scene, const ChartFrame& frame, const TimeMapping& mapping, double t0, double t1) {
    if (!frame.axis) return;
    const Palette& pal = *frame.palette;
    const double fs = pal.fontSize;
    const double ay = frame.axisY;
    const double tick = 3;
    scene.lines.push_back({frame.plotLeft, ay, frame.plotLeft + frame.plotWidth, ay, pal.grid, 0.5, false});
    // At fit the export's ticks; zoomed in, ticks spaced for the window across the plot.
    const bool whole = t0 <= 0 && t1 >= frame.timeEnd;
    const TimeAxis axis = whole ? frame.axisAtFit
                                : windowTimeAxis(std::max(t0, 0.0), std::min(t1, frame.timeEnd),
                                                 frame.maxTicks, frame.timeUnit, frame.timeEnd);
    for (std::size_t i = 0; i < axis.ticks.size(); ++i) {
        const double x = chartX(frame, mapping, axis.ticks[i]);
        scene.lines.push_back({x, ay, x, ay + tick, pal.grid, 0.5, false});
        scene.texts.push_back(
            {x, ay + tick + fs + 1, axis.labels[i], fs, pal.text, TextAnchor::Middle, false});
    }
    scene.texts.insert(scene.texts.end(), frame.axisTexts.begin(), frame.axisTexts.end());
}

void appendLegend(Scene& scene, const ChartFrame& frame) {
    scene.rects.insert(scene.rects.end(), frame.legendRects.begin(), frame.legendRects.end());
    scene.texts.insert(scene.texts.end(), frame.legendTexts.begin(), frame.legendTexts.end());
}

void appendEventBar(Scene& scene, const ChartFrame& frame, const Timeline& timeline, int panel, std::size_t k,
                    const TimeMapping& mapping, bool tooltip) {
    const Palette& pal = *frame.palette;
    const TimelineEvent& e = timeline.events[k];
    const TimelineShape& shape = timeline.shape;
    const ChartFrameRow& row = frame.rows[std::size_t(frame.panels[std::size_t(panel)].firstRow + e.device)];
    const double x = chartX(frame, mapping, e.start), w = chartX(frame, mapping, e.end) - x;
    const double rowH = frame.rowHeight;
    if (e.lane == Lane::Compute) {
        const int pipe = e.op.pipe > 0 ? 1 : 0;
        const Color fill = opColor(pal, e.op.kind, pipe, chunkInPipe(shape, e.op), chunksPerPipe(shape));
        scene.rects.push_back({x, row.y, w, rowH, fill, pal.opStroke, pal.opStrokeWidth, RectRole::Op, int(k),
                               panel, opKindName(e.op.kind),
                               tooltip ? tooltipOf(e, shape, frame.axisAtFit) : std::string()});
        if (!frame.labels || pal.labelSize > rowH - 2) return;
        // The label inside the box's border; in a box too narrow for it at the palette's size it
        // shrinks, down to the frame's minLabelSize (a single-column figure of interleaved 1F1B numbers its
        // half-unit boxes), and below that the box has none.
        const double room = w - 2 * pal.opStrokeWidth; // the width estimate errs wide already
        if (room <= 0) return;                         // no label fits: skip building one
        std::string label = cellOpLabel(e.op, shape.sequenceSlices);
        const double natural = estimateTextWidth(label, pal.labelSize);
        const double size = natural <= room ? pal.labelSize : pal.labelSize * room / natural;
        if (size < std::min(frame.minLabelSize, pal.labelSize)) return;
        scene.texts.push_back({x + w / 2, row.y + rowH / 2 + 0.35 * size, std::move(label), size,
                               labelColorOn(pal, fill), TextAnchor::Middle, false});
    } else {
        scene.rects.push_back({x,
                               row.y + rowH + 1,
                               w,
                               pal.commHeight,
                               commColor(pal, e.comm),
                               {},
                               0,
                               RectRole::Comm,
                               int(k),
                               panel,
                               commKindName(e.comm),
                               tooltip ? tooltipOf(e, shape, frame.axisAtFit) : std::string()});
    }
}

std::vector<OverlapSlot> overlapSlots(const Timeline& timeline) {
    std::vector<OverlapSlot> slots;
    const auto& heads = timeline.shape.overlapped;
    if (heads.empty()) return slots;
    const auto key = [](const Op& op) { return std::tuple(op.pipe, op.stage, op.mb); };
    const std::size_t length = timeline.shape.splitBackward ? 3 : 2;
    const auto& events = timeline.events;
    for (std::size_t k = 0; k + length <= events.size(); ++k) {
        const TimelineEvent& e = events[k];
        if (e.lane != Lane::Compute || e.op.kind != OpKind::F || !isValidChartEvent(e) ||
            !std::binary_search(heads.begin(), heads.end(), e.op,
                                [&](const Op& a, const Op& b) { return key(a) < key(b); }))
            continue;
        const TimelineEvent& last = events[k + length - 1];
        if (events[k + 1].op.kind != OpKind::B || last.device != e.device || !isValidChartEvent(last))
            continue;
        slots.push_back({e.device, e.start, last.end, k});
    }
    return slots;
}

void appendOverlapFrame(Scene& scene, const ChartFrame& frame, int panel, const OverlapSlot& slot,
                        const TimeMapping& mapping) {
    const ChartFramePanel& fp = frame.panels[std::size_t(panel)];
    if (slot.device < 0 || slot.device >= fp.rows) return;
    const ChartFrameRow& row = frame.rows[std::size_t(fp.firstRow) + std::size_t(slot.device)];
    const double x = chartX(frame, mapping, slot.start), w = chartX(frame, mapping, slot.end) - x;
    if (!(w > 0)) return;
    const Palette& pal = *frame.palette;
    scene.rects.push_back({x, row.y, w, frame.rowHeight, Color{0, 0, 0, 0}, pal.text, overlapFrameWidth(pal),
                           RectRole::Op, int(slot.event), panel, kOverlapSlotKind, std::string()});
}

void appendOverlapFrames(Scene& scene, const ChartFrame& frame, const Timeline& timeline, int panel,
                         const TimeMapping& mapping) {
    for (const OverlapSlot& slot : overlapSlots(timeline))
        appendOverlapFrame(scene, frame, panel, slot, mapping);
}

SceneRect measuredOutlineRect(const ChartFrame& frame, int row, int lane, double start, double end, int panel,
                              int event, const TimeMapping& mapping) {
    SceneRect o;
    o.x = chartX(frame, mapping, start); // cut at the axis's ends, as the bars are
    o.w = chartX(frame, mapping, end) - o.x;
    o.y = frame.laneTop(row, lane) - 0.5;
    o.h = frame.laneHeight(lane) + 1.0;
    o.fill = Color{0, 0, 0, 0};
    o.stroke = Color{0xd6, 0x27, 0x28, 255};
    o.strokeWidth = 0.9;
    o.role = RectRole::Op;
    o.kind = kMeasuredOutlineKind;
    o.event = event;
    o.panel = panel;
    return o;
}

void appendMeasuredOutline(Scene& scene, const ChartFrame& frame, const Timeline& predicted, int panel,
                           std::size_t k, const TimelineEvent& m, double alignOffset,
                           const TimeMapping& mapping) {
    const TimelineEvent& e = predicted.events[k];
    const int row = frame.panels[std::size_t(panel)].firstRow + e.device;
    SceneRect outline =
        measuredOutlineRect(frame, row, e.lane == Lane::Compute ? 0 : 1, m.start - alignOffset,
                            m.end - alignOffset, panel, int(k), mapping);
    // Coloured by the op's duration error: grey as predicted, red slower, blue faster.
    outline.stroke = durationErrorColor(e.duration(), m.duration());
    outline.strokeWidth = 1.1;
    scene.rects.push_back(std::move(outline));
}

} // namespace stagecraft
