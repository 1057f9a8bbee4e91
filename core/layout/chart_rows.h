#pragma once
// The windowed chart: what an interactive view (the Qt chart, later the ImGui viewer) needs to
// zoom, pan, hover and click a chart of a million ops at screen rate. Built once per set of
// timelines, never per zoom step: per (panel, device, lane) a row of event indices sorted by
// start, split into tracks of non-overlapping events (comm lanes and measured traces can
// overlap). A frame's work then depends on the rows and the pixels, not the ops:
//   - appendVisible emits the visible bars of a window through the fold of draw_list.h (Tracy's
//     draw lists), on the frame that layoutGantt uses too (chart_frame.h);
//   - eventAt finds the bar under a point: the row by y, then a binary search by time;
//   - eventBox gives the box of one event in O(1).
// The full Scene (layoutGantt) stays what SVG, TikZ, PDF and PNG exports draw.

#include "layout/chart_common.h"
#include "layout/chart_frame.h"
#include "layout/draw_list.h"
#include "layout/scene.h"
#include "layout/time_mapping.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace stagecraft {

/// What a view shows of a chart in one frame.
struct ChartWindow {
    TimeMapping mapping;      ///< time to x, in the frame's units (points)
    double x0 = 0, x1 = 0;    ///< visible x range: bars are drawn for the times under it
    double y0 = 0, y1 = 0;    ///< visible y range: rows outside it are skipped
    double pixelsPerUnit = 1; ///< device pixels per frame unit; folding is decided in pixels
    double minPx = 3;         ///< events narrower than this fold into counted boxes
};

/// What appendVisible emitted.
struct ChartWindowStats {
    std::size_t bars = 0;     ///< events drawn as they are
    std::size_t folds = 0;    ///< counted boxes
    std::size_t folded = 0;   ///< events inside them
    std::size_t outlines = 0; ///< measured outlines and outline folds
};

/// `kind` of a counted box of narrow events (role Op or Comm, event -1).
inline constexpr char kFoldedKind[] = "folded";
/// `kind` of the share of one op kind drawn inside a fold (role Op, event -1).
inline constexpr char kFoldMixKind[] = "folded-mix";
/// Widest column, in device pixels, over which a fold's mix of kinds is averaged.
inline constexpr double kMixColumnPx = 6;

struct ChartHit {
    int panel = -1;
    int event = -1; ///< index into the panel's Timeline::events
};

struct ChartBox {
    double x = 0, y = 0, w = 0, h = 0;
};

class ChartRows {
  public:
    ChartRows() = default;
    /// Indexes the drawn events (isDrawnChartEvent) of `panels`, scanned into `content` (same
    /// panels, same options). Linear in events when each lane is in time order, as simulated and
    /// traced timelines are; a lane out of order costs a sort of that lane. The timelines must
    /// outlive this object.
    ChartRows(std::span<const ChartPanel> panels, const ChartContent& content);

    std::size_t rowCount() const { return m_rows.size(); }
    std::size_t trackCount() const { return m_tracks.size(); }
    std::size_t eventCount() const { return m_event.size(); }
    /// Tracks of the lane (0 compute, 1 comm) of a frame row; outline: the measured outlines'.
    std::size_t tracksOf(int frameRow, int lane, bool outline = false) const;

    /// Appends what `window` shows on `frame` (laid out from the same content): per visible
    /// panel its idle row backgrounds, then per visible row the bars (Event items through
    /// appendEventBar, labels included; Folded items as one box, kind kFoldedKind, tooltip
    /// "N ops"; on compute lanes that box is the idle colour with the mix of F, B and W it holds
    /// stacked from its bottom, per column of at most kMixColumnPx pixels, rects of kind
    /// kFoldMixKind, so a bubble stays visible however far out the view is); then the frames of
    /// the F&B slots wide enough to see (kOverlapSlotKind, at least twice minPx); then the measured
    /// outlines (folded alike). Work: O(rows + visible items
    /// + visible rows x tracks x log events).
    ChartWindowStats appendVisible(Scene& scene, const ChartFrame& frame, const ChartWindow& window) const;

    /// The bar under (x, y) on `frame` under `mapping`: the lane under y, then in each of its
    /// tracks the bar containing x, or a bar narrower than `minWidth` within minWidth / 2 of x.
    /// Of several, the one drawn last (the later in time; the higher track). O(tracks x log n).
    std::optional<ChartHit> eventAt(const ChartFrame& frame, const TimeMapping& mapping, double x, double y,
                                    double minWidth) const;

    /// Box of a drawn event (nullopt for one the chart does not draw, or out of range). O(1).
    std::optional<ChartBox> eventBox(const ChartFrame& frame, const TimeMapping& mapping, int panel,
                                     int event) const;

  private:
    struct Track {
        std::uint32_t begin = 0, end = 0; ///< range of m_start / m_end / m_event
    };
    struct Row {
        int frameRow = 0;
        std::uint8_t lane = 0;
        bool outline = false;
        std::uint32_t firstTrack = 0, trackCount = 0;
    };
    struct PanelInfo {
        const Timeline* timeline = nullptr;
        int rows = 0;
        int firstRow = 0;
    };

    int rowOf(int frameRow, int lane, bool outline) const;
    /// Sorts the events `order` points at (one slot's range), splits them into tracks and writes
    /// them back in place, track after track.
    void addRow(std::vector<std::uint32_t>& order);
    /// Throws ValidationError "chart.panels" when `frame` has other panels or rows.
    void checkFrame(const ChartFrame& frame) const;
    /// A fold of `item`'s ops on a lane of panel p, with its F/B/W mix on a compute lane.
    void appendFold(Scene& scene, const ChartFrame& frame, const ChartWindow& window, std::size_t p,
                    int frameRow, int lane, const DrawItem& item, const Track& track) const;
    /// A compute fold's mix column by column: F, B and W stacked by their share of the time.
    void appendFoldMix(Scene& scene, const ChartWindow& window, const SceneRect& box, const Track& track,
                       int panel, const Palette& pal) const;
    /// The frames of the F&B slots in the window, over their bars.
    void appendOverlapFrames(Scene& scene, const ChartFrame& frame, const ChartWindow& window,
                             const DrawWindow& draw) const;
    /// A measured outline over one op (coloured by its duration error) or a fold of them.
    void appendOutline(Scene& scene, const ChartFrame& frame, const ChartWindow& window, std::size_t p,
                       int frameRow, int lane, const DrawItem& item, const Track& track) const;

    std::vector<PanelInfo> m_panels;
    /// Per panel its F&B slots sorted by start, and the longest one: a window finds the frames
    /// it shows by two binary searches.
    std::vector<std::vector<OverlapSlot>> m_overlaps;
    std::vector<double> m_longestOverlap;
    double m_timeEnd = 1;
    bool m_showComm = false;
    std::vector<int> m_slots; ///< [(frameRow * 2 + lane) * 2 + outline] -> index into m_rows, -1
    std::vector<Row> m_rows;
    std::vector<Track> m_tracks;
    // Events of every track, track after track: times (clamped to the axis for bars, aligned for
    // outlines) and the event index (outlines: the predicted event they stand over).
    std::vector<double> m_start, m_end;
    std::vector<std::uint32_t> m_event;
    /// The kinds a fold's mix shows, by computeSlot: F, B, W, R.
    static constexpr std::size_t kMixKinds = kComputeKindCount;
    /// Running sums over the arrays above of the time of F, B, W and R ops (compute lanes only):
    /// m_busy[k][i] = time of kind k in entries [0, i). Differences give a track's busy time by
    /// kind in any window in O(log n), which a fold's mix needs.
    std::array<std::vector<double>, kMixKinds> m_busy;
    /// Time of F, B, W and R (in that order) of `track` inside [t0, t1]: two binary searches.
    std::array<double, kMixKinds> busyIn(const Track& track, double t0, double t1) const;
};

} // namespace stagecraft
