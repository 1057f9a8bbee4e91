#include "layout/chart_rows.h"

#include "error.h"
#include "layout/error_colors.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>

namespace stagecraft {

namespace {

constexpr int kLanes = 2; // compute, comm

int slotOf(int frameRow, int lane, bool outline) {
    return (frameRow * kLanes + lane) * 2 + (outline ? 1 : 0);
}

/// A fold is darker than its bars: it stands for many of them.
Color darker(Color fill) {
    return mixColor(fill, Color{0x30, 0x30, 0x30, 255}, 0.35);
}

} // namespace

ChartRows::ChartRows(std::span<const ChartPanel> panels, const ChartContent& content)
    : m_timeEnd(content.timeEnd), m_showComm(content.showComm) {
    if (panels.size() != content.panels.size())
        throw ValidationError("chart.panels", "panels",
                              std::to_string(panels.size()) + " panels given for a chart scanned with " +
                                  std::to_string(content.panels.size()));
    int totalRows = 0;
    for (std::size_t p = 0; p < panels.size(); ++p) {
        const ChartPanelContent& c = content.panels[p];
        if (panels[p].timeline != c.timeline)
            throw ValidationError("chart.panels", "panels[" + std::to_string(p) + "]",
                                  "panel's timeline is not the one the chart was scanned with");
        if (c.timeline->events.size() >= std::numeric_limits<std::uint32_t>::max())
            throw ValidationError("chart.panels", "panels[" + std::to_string(p) + "]",
                                  "a chart panel holds fewer than 2^32 - 1 events");
        m_panels.push_back({c.timeline, c.rows, totalRows});
        totalRows += c.rows;
        std::vector<OverlapSlot> overlaps = overlapSlots(*c.timeline);
        std::sort(overlaps.begin(), overlaps.end(),
                  [](const OverlapSlot& a, const OverlapSlot& b) { return a.start < b.start; });
        double longest = 0;
        for (const OverlapSlot& o : overlaps) longest = std::max(longest, o.end - o.start);
        m_overlaps.push_back(std::move(overlaps));
        m_longestOverlap.push_back(longest);
    }
    m_slots.assign(std::size_t(totalRows) * kLanes * 2, -1);

    // Bucket the drawn events and outlines by slot: count, offsets, fill (linear).
    std::vector<std::uint32_t> offset(m_slots.size() + 1, 0);
    auto forEachEntry = [&](auto&& visit) {
        for (std::size_t p = 0; p < panels.size(); ++p) {
            const PanelInfo& info = m_panels[p];
            const std::vector<TimelineEvent>& events = info.timeline->events;
            for (std::size_t k = 0; k < events.size(); ++k) {
                const TimelineEvent& e = events[k];
                if (!isDrawnChartEvent(e, info.rows, m_timeEnd, m_showComm)) continue;
                const double s = std::clamp(e.start, 0.0, m_timeEnd), t = std::clamp(e.end, 0.0, m_timeEnd);
                visit(slotOf(info.firstRow + e.device, e.lane == Lane::Compute ? 0 : 1, false), s, t, k);
            }
            const ChartPanel& in = panels[p];
            if (!in.measured || !in.overlay) continue;
            for (const OpDeviation& d : in.overlay->ops) {
                if (d.predictedEvent >= events.size() || d.measuredEvent >= in.measured->events.size())
                    continue;
                const TimelineEvent& e = events[d.predictedEvent];
                if (!isDrawnChartEvent(e, info.rows, m_timeEnd, m_showComm)) continue;
                const TimelineEvent& m = in.measured->events[d.measuredEvent];
                const double s = m.start - in.overlay->alignOffset, t = m.end - in.overlay->alignOffset;
                if (!std::isfinite(s) || !std::isfinite(t) || t < s) continue;
                visit(slotOf(info.firstRow + e.device, e.lane == Lane::Compute ? 0 : 1, true), s, t,
                      d.predictedEvent);
            }
        }
    };
    forEachEntry([&](int slot, double, double, std::size_t) { ++offset[std::size_t(slot) + 1]; });
    std::partial_sum(offset.begin(), offset.end(), offset.begin());
    const std::size_t total = offset.back();
    m_start.resize(total);
    m_end.resize(total);
    m_event.resize(total);
    std::vector<std::uint32_t> fill(offset.begin(), offset.end() - 1);
    forEachEntry([&](int slot, double s, double t, std::size_t k) {
        const std::uint32_t i = fill[std::size_t(slot)]++;
        m_start[i] = s;
        m_end[i] = t;
        m_event[i] = std::uint32_t(k);
    });

    std::vector<std::uint32_t> order;
    for (std::size_t slot = 0; slot < m_slots.size(); ++slot) {
        if (offset[slot] == offset[slot + 1]) continue;
        const int frameRow = int(slot / (kLanes * 2));
        const int lane = int(slot / 2 % kLanes);
        const bool outline = slot % 2 == 1;
        m_slots[slot] = int(m_rows.size());
        m_rows.push_back({frameRow, std::uint8_t(lane), outline, std::uint32_t(m_tracks.size()), 0});
        order.resize(offset[slot + 1] - offset[slot]);
        std::iota(order.begin(), order.end(), offset[slot]);
        addRow(order);
    }

    // Busy time by kind, summed in the arrays' order (rows and their tracks are contiguous).
    for (auto& sums : m_busy) sums.assign(total + 1, 0.0);
    for (const Row& row : m_rows) {
        const int panel =
            int(std::upper_bound(m_panels.begin(), m_panels.end(), row.frameRow,
                                 [](int r, const PanelInfo& info) { return r < info.firstRow; }) -
                m_panels.begin()) -
            1;
        const std::vector<TimelineEvent>& events = m_panels[std::size_t(panel)].timeline->events;
        for (std::uint32_t t = row.firstTrack; t < row.firstTrack + row.trackCount; ++t)
            for (std::uint32_t i = m_tracks[t].begin; i < m_tracks[t].end; ++i) {
                const OpKind kind = events[m_event[i]].op.kind;
                const int k = computeSlot(kind);
                for (int j = 0; j < int(kMixKinds); ++j)
                    m_busy[std::size_t(j)][i + 1] =
                        (row.lane == 0 && !row.outline && j == k) ? m_end[i] - m_start[i] : 0.0;
            }
    }
    for (auto& sums : m_busy) std::partial_sum(sums.begin(), sums.end(), sums.begin());
}

std::array<double, ChartRows::kMixKinds> ChartRows::busyIn(const Track& track, double t0, double t1) const {
    std::array<double, kMixKinds> busy{};
    const auto starts = m_start.begin() + track.begin, ends = m_end.begin() + track.begin;
    const std::size_t n = track.end - track.begin;
    // Events ending after t0 up to those starting before t1 (a track does not overlap itself,
    // so both ends are sorted).
    const std::size_t i0 = std::size_t(std::upper_bound(ends, ends + std::ptrdiff_t(n), t0) - ends);
    const std::size_t i1 = std::size_t(std::lower_bound(starts, starts + std::ptrdiff_t(n), t1) - starts);
    if (i1 <= i0) return busy;
    for (std::size_t k = 0; k < kMixKinds; ++k) {
        const std::vector<double>& sums = m_busy[k];
        busy[k] = sums[track.begin + i1] - sums[track.begin + i0];
        // Cut the first and the last event to the window.
        auto cut = [&](std::size_t i) {
            if (sums[track.begin + i + 1] - sums[track.begin + i] <= 0) return;
            busy[k] -=
                std::max(0.0, t0 - starts[std::ptrdiff_t(i)]) + std::max(0.0, ends[std::ptrdiff_t(i)] - t1);
        };
        cut(i0);
        if (i1 - 1 != i0) cut(i1 - 1);
        busy[k] = std::max(busy[k], 0.0);
    }
    return busy;
}

void ChartRows::addRow(std::vector<std::uint32_t>& order) {
    const double* start = m_start.data();
    const double* end = m_end.data();
    Row& row = m_rows.back();
    const std::uint32_t begin = order.front();
    const std::size_t n = order.size();
    // By start (ties by event index, the order exports draw in); usually already so.
    bool sorted = true;
    for (std::size_t i = 1; i < n && sorted; ++i) {
        const std::uint32_t a = order[i - 1], b = order[i];
        sorted = start[a] < start[b] || (start[a] == start[b] && m_event[a] <= m_event[b]);
    }
    if (!sorted)
        std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            return start[a] != start[b] ? start[a] < start[b] : m_event[a] < m_event[b];
        });
    // Tracks: an event goes to the track that ended earliest if it ended by the event's start,
    // else to a new track (the fewest tracks; one for a lane without overlaps).
    std::vector<std::uint32_t> trackOf(n, 0);
    std::uint32_t tracks = 1;
    double lastEnd = -std::numeric_limits<double>::infinity();
    bool overlaps = false;
    for (std::size_t i = 0; i < n && !overlaps; ++i) {
        overlaps = start[order[i]] < lastEnd;
        lastEnd = std::max(lastEnd, end[order[i]]);
    }
    if (overlaps) {
        using Entry = std::pair<double, std::uint32_t>; // (end of the track's last event, track)
        std::priority_queue<Entry, std::vector<Entry>, std::greater<>> free;
        tracks = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint32_t e = order[i];
            if (!free.empty() && free.top().first <= start[e]) {
                trackOf[i] = free.top().second;
                free.pop();
            } else {
                trackOf[i] = tracks++;
            }
            free.push({end[e], trackOf[i]});
        }
    }
    // Write the row back in place, track after track, each in start order.
    std::vector<std::uint32_t> firstOf(tracks + 1, 0);
    for (std::size_t i = 0; i < n; ++i) ++firstOf[trackOf[i] + 1];
    std::partial_sum(firstOf.begin(), firstOf.end(), firstOf.begin());
    if (!sorted || overlaps) {
        std::vector<double> s(n), t(n);
        std::vector<std::uint32_t> ev(n);
        std::vector<std::uint32_t> at(firstOf.begin(), firstOf.end() - 1);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint32_t to = at[trackOf[i]]++;
            s[to] = start[order[i]];
            t[to] = end[order[i]];
            ev[to] = m_event[order[i]];
        }
        std::copy(s.begin(), s.end(), m_start.begin() + begin);
        std::copy(t.begin(), t.end(), m_end.begin() + begin);
        std::copy(ev.begin(), ev.end(), m_event.begin() + begin);
    }
    for (std::uint32_t k = 0; k < tracks; ++k)
        m_tracks.push_back({begin + firstOf[k], begin + firstOf[k + 1]});
    row.trackCount = tracks;
}

void ChartRows::checkFrame(const ChartFrame& frame) const {
    bool same = frame.panels.size() == m_panels.size();
    for (std::size_t p = 0; same && p < m_panels.size(); ++p)
        same = frame.panels[p].rows == m_panels[p].rows && frame.panels[p].firstRow == m_panels[p].firstRow;
    if (!same)
        throw ValidationError("chart.panels", "frame",
                              "the chart frame was laid out for other panels than the chart's rows");
}

int ChartRows::rowOf(int frameRow, int lane, bool outline) const {
    if (frameRow < 0 || lane < 0 || lane >= kLanes) return -1;
    const std::size_t slot = std::size_t(slotOf(frameRow, lane, outline));
    return slot < m_slots.size() ? m_slots[slot] : -1;
}

std::size_t ChartRows::tracksOf(int frameRow, int lane, bool outline) const {
    const int r = rowOf(frameRow, lane, outline);
    return r < 0 ? 0 : m_rows[std::size_t(r)].trackCount;
}

void ChartRows::appendFoldMix(Scene& scene, const ChartWindow& window, const SceneRect& box,
                              const Track& track, int panel, const Palette& pal) const {
    const TimeMapping& mapping = window.mapping;
    const double columnW = kMixColumnPx / window.pixelsPerUnit;
    const int columns = std::max(1, int(std::ceil(box.w / columnW)));
    // Heights in whole device pixels; a column that looks like the one before widens its rects
    // instead of adding one per kind (steady phases are one run), so the cost follows what changes
    // on screen.
    std::array<int, kMixKinds> previous;
    previous.fill(-1);
    std::array<std::size_t, kMixKinds> previousRect{};
    const double devicePxH = box.h * window.pixelsPerUnit;
    for (int c = 0; c < columns; ++c) {
        const double x = box.x + box.w * c / columns, w = box.w / columns;
        const double t0 = mapping.xToTime(x), t1 = mapping.xToTime(x + w);
        if (!(t1 > t0)) continue;
        const std::array<double, kMixKinds> busy = busyIn(track, t0, t1);
        std::array<int, kMixKinds> heights{};
        for (std::size_t kind = 0; kind < kMixKinds; ++kind)
            heights[kind] = int(std::lround(devicePxH * std::min(1.0, busy[kind] / (t1 - t0))));
        if (heights == previous) {
            for (std::size_t kind = 0; kind < kMixKinds; ++kind)
                if (heights[kind] > 0)
                    scene.rects[previousRect[kind]].w = x + w - scene.rects[previousRect[kind]].x;
            continue;
        }
        previous = heights;
        double y = box.y + box.h;
        for (std::size_t kind = 0; kind < kMixKinds; ++kind) {
            if (heights[kind] <= 0) continue;
            const double h = heights[kind] / window.pixelsPerUnit;
            y -= h;
            SceneRect share;
            share.x = x;
            share.y = y;
            share.w = w;
            share.h = h;
            share.fill = opColor(pal, computeKindAt(int(kind)), 0, 0, 1);
            share.role = RectRole::Op;
            share.panel = panel;
            share.kind = kFoldMixKind;
            previousRect[kind] = scene.rects.size();
            scene.rects.push_back(std::move(share));
        }
    }
}

void ChartRows::appendFold(Scene& scene, const ChartFrame& frame, const ChartWindow& window, std::size_t p,
                           int frameRow, int lane, const DrawItem& item, const Track& track) const {
    const TimeMapping& mapping = window.mapping;
    const Palette& pal = *frame.palette;
    const Timeline& timeline = *m_panels[p].timeline;
    const std::uint32_t base = track.begin;
    SceneRect fold;
    fold.x = mapping.timeToX(item.start);
    fold.w = std::max(mapping.timeToX(item.end) - fold.x, 1.0 / window.pixelsPerUnit); // at least a pixel
    fold.y = frame.laneTop(frameRow, lane);
    fold.h = frame.laneHeight(lane);
    // The colour of its ops when a few samples agree (first, second, middle two, last:
    // alternating kinds differ between neighbours), else the lane's mixed colour, so a fold does
    // not take the colour of whatever op begins the window.
    auto fillOf = [&](std::size_t i) {
        const TimelineEvent& e = timeline.events[m_event[base + item.first + i]];
        return lane == 0 ? opColor(pal, e.op.kind, e.op.pipe > 0 ? 1 : 0, chunkInPipe(timeline.shape, e.op),
                                   chunksPerPipe(timeline.shape))
                         : commColor(pal, e.comm);
    };
    const std::size_t n = item.count;
    Color fill = fillOf(0);
    for (std::size_t i : {std::size_t(1), n / 2, n / 2 + 1, n - 1})
        if (i < n && !(fillOf(i) == fill)) {
            fill = lane == 0 ? mixColor(pal.compute[0][0], pal.compute[0][1], 0.5)
                             : mixColor(pal.activation, pal.gradient, 0.5);
            break;
        }
    fold.fill = darker(fill);
    fold.role = lane == 0 ? RectRole::Op : RectRole::Comm;
    fold.panel = int(p);
    fold.kind = kFoldedKind;
    fold.tooltip = std::to_string(item.count) + " ops";
    if (lane != 0) {
        scene.rects.push_back(std::move(fold));
        return;
    }
    // The mix the fold holds, column by column: F, B and W stacked from the bottom by their share
    // of the column's time, the idle share left in the idle colour, so a bubble stays visible at
    // any zoom.
    fold.fill = pal.idle;
    const SceneRect box = fold;
    scene.rects.push_back(std::move(fold));
    appendFoldMix(scene, window, box, track, int(p), pal);
}

void ChartRows::appendOverlapFrames(Scene& scene, const ChartFrame& frame, const ChartWindow& window,
                                    const DrawWindow& draw) const {
    for (std::size_t p = 0; p < m_panels.size(); ++p) {
        const ChartFramePanel& fp = frame.panels[p];
        const std::vector<OverlapSlot>& overlaps = m_overlaps[p];
        if (overlaps.empty() || fp.rows == 0 || fp.bottom < window.y0 || fp.top > window.y1) continue;
        auto it = std::lower_bound(overlaps.begin(), overlaps.end(), draw.t0 - m_longestOverlap[p],
                                   [](const OverlapSlot& o, double t) { return o.start < t; });
        for (; it != overlaps.end() && it->start <= draw.t1; ++it) {
            if (it->end < draw.t0 || (it->end - it->start) * draw.pxPerUs < 2 * window.minPx) continue;
            if (it->device >= fp.rows) continue;
            const ChartFrameRow& r = frame.rows[std::size_t(fp.firstRow) + std::size_t(it->device)];
            if (r.y > window.y1 || r.y + frame.rowHeight < window.y0) continue;
            appendOverlapFrame(scene, frame, int(p), *it, window.mapping);
        }
    }
}

void ChartRows::appendOutline(Scene& scene, const ChartFrame& frame, const ChartWindow& window, std::size_t p,
                              int frameRow, int lane, const DrawItem& item, const Track& track) const {
    const std::uint32_t base = track.begin;
    const bool one = item.type == DrawItem::Type::Event;
    SceneRect o = measuredOutlineRect(frame, frameRow, lane, item.start, item.end, int(p),
                                      one ? int(m_event[base + item.first]) : -1, window.mapping);
    o.w = std::max(o.w, 1.0 / window.pixelsPerUnit);
    if (one) {
        // As the export: coloured by the op's duration error.
        const std::size_t i = base + item.first;
        o.stroke =
            durationErrorColor(m_panels[p].timeline->events[m_event[i]].duration(), m_end[i] - m_start[i]);
        o.strokeWidth = 1.1;
    } else {
        o.tooltip = std::to_string(item.count) + " ops";
    }
    scene.rects.push_back(std::move(o));
}

ChartWindowStats ChartRows::appendVisible(Scene& scene, const ChartFrame& frame,
                                          const ChartWindow& window) const {
    checkFrame(frame);
    ChartWindowStats stats;
    if (!(window.x1 > window.x0) || !(window.y1 >= window.y0)) return stats;
    const TimeMapping& mapping = window.mapping;
    DrawWindow draw;
    draw.t0 = mapping.xToTime(window.x0);
    draw.t1 = mapping.xToTime(window.x1);
    draw.pxPerUs = mapping.pxPerUs * window.pixelsPerUnit;
    draw.minPx = window.minPx;
    std::vector<DrawItem> items;

    // Each lane of each row of the window (bars, or measured outlines) as draw items.
    auto forEachVisibleItem = [&](std::size_t p, bool outline, auto&& visit) {
        const ChartFramePanel& fp = frame.panels[p];
        for (int d = 0; d < fp.rows; ++d) {
            const int frameRow = fp.firstRow + d;
            const ChartFrameRow& r = frame.rows[std::size_t(frameRow)];
            if (r.y > window.y1) break;
            const double bottom = frame.showComm ? r.commY + frame.commHeight : r.y + frame.rowHeight;
            if (bottom < window.y0) continue;
            for (int lane = 0; lane < kLanes; ++lane) {
                const int row = rowOf(frameRow, lane, outline);
                if (row < 0) continue;
                const Row& rr = m_rows[std::size_t(row)];
                for (std::uint32_t t = rr.firstTrack; t < rr.firstTrack + rr.trackCount; ++t) {
                    const Track& track = m_tracks[t];
                    const std::size_t n = track.end - track.begin;
                    items.clear();
                    appendDrawList(std::span<const double>(m_start.data() + track.begin, n),
                                   std::span<const double>(m_end.data() + track.begin, n), draw, items);
                    for (const DrawItem& item : items) visit(frameRow, lane, item, track);
                }
            }
        }
    };
    auto panelVisible = [&](std::size_t p) {
        const ChartFramePanel& fp = frame.panels[p];
        return fp.rows != 0 && fp.bottom >= window.y0 && fp.top <= window.y1;
    };

    for (std::size_t p = 0; p < m_panels.size(); ++p) {
        if (!panelVisible(p)) continue;
        appendIdleRows(scene, frame, p, mapping);
        forEachVisibleItem(p, false, [&](int frameRow, int lane, const DrawItem& item, const Track& track) {
            if (item.type == DrawItem::Type::Event) {
                appendEventBar(scene, frame, *m_panels[p].timeline, int(p), m_event[track.begin + item.first],
                               mapping, false);
                ++stats.bars;
                return;
            }
            appendFold(scene, frame, window, p, frameRow, lane, item, track);
            ++stats.folds;
            stats.folded += item.count;
        });
    }
    // Frames of the F&B slots in the window, over their bars; narrower ones are inside folds.
    appendOverlapFrames(scene, frame, window, draw);
    // Measured outlines over all bars.
    for (std::size_t p = 0; p < m_panels.size(); ++p) {
        if (!panelVisible(p)) continue;
        forEachVisibleItem(p, true, [&](int frameRow, int lane, const DrawItem& item, const Track& track) {
            appendOutline(scene, frame, window, p, frameRow, lane, item, track);
            ++stats.outlines;
        });
    }
    return stats;
}

std::optional<ChartHit> ChartRows::eventAt(const ChartFrame& frame, const TimeMapping& mapping, double x,
                                           double y, double minWidth) const {
    checkFrame(frame);
    int lane = 0;
    const int frameRow = frame.rowAt(y, lane);
    if (frameRow < 0) return std::nullopt;
    const int row = rowOf(frameRow, lane, false);
    if (row < 0) return std::nullopt;
    const double t = mapping.xToTime(x);
    const double minUs = std::max(0.0, minWidth) / mapping.pxPerUs;
    const double slack = minUs / 2;
    auto hits = [&](std::uint32_t i) {
        // A bar narrower than minWidth is hit within minWidth / 2 of its edges.
        const double s = m_start[i], e = m_end[i];
        return e - s < minUs ? t >= s - slack && t <= e + slack : t >= s && t <= e;
    };
    const Row& r = m_rows[std::size_t(row)];
    // The higher track is drawn later, so it wins.
    for (std::uint32_t k = r.firstTrack + r.trackCount; k-- > r.firstTrack;) {
        const Track& track = m_tracks[k];
        // The last event starting by t + slack, and the one before it, are the only candidates:
        // events do not overlap in a track, and a wide one ends at least 2 slack after it starts.
        const auto first = m_start.begin() + track.begin, last = m_start.begin() + track.end;
        const std::uint32_t j = std::uint32_t(std::upper_bound(first, last, t + slack) - m_start.begin());
        for (std::uint32_t i = j; i > track.begin && i + 2 > j; --i)
            if (hits(i - 1)) {
                const int panel = frame.rows[std::size_t(frameRow)].panel;
                return ChartHit{panel, int(m_event[i - 1])};
            }
    }
    return std::nullopt;
}

std::optional<ChartBox> ChartRows::eventBox(const ChartFrame& frame, const TimeMapping& mapping, int panel,
                                            int event) const {
    checkFrame(frame);
    if (panel < 0 || std::size_t(panel) >= m_panels.size()) return std::nullopt;
    const PanelInfo& info = m_panels[std::size_t(panel)];
    if (event < 0 || std::size_t(event) >= info.timeline->events.size()) return std::nullopt;
    const TimelineEvent& e = info.timeline->events[std::size_t(event)];
    if (!isDrawnChartEvent(e, info.rows, m_timeEnd, m_showComm)) return std::nullopt;
    const int lane = e.lane == Lane::Compute ? 0 : 1;
    const int frameRow = frame.panels[std::size_t(panel)].firstRow + e.device;
    const double x = chartX(frame, mapping, e.start);
    return ChartBox{x, frame.laneTop(frameRow, lane), chartX(frame, mapping, e.end) - x,
                    frame.laneHeight(lane)};
}

} // namespace stagecraft
