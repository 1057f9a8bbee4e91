#pragma once
// The central chart: every shown schedule stacked on one shared time axis. It paints through
// core's windowed chart (layout/chart_rows.h): the frame (headers, rows, legend, axis) is laid
// out once per result and width, the rows of events once per result, and each frame draws only
// the bars of the visible window (runs narrower than 3 px folded), so zooming, panning,
// hovering and clicking cost what is on screen, not the size of the schedule. At fit it draws
// exactly the Scene that exports draw (scene()).
//
// Wheel, +/- zoom around the cursor; drag or arrows pan; Shift+drag (or right drag) zooms to a
// rubber band; F fits. Hovering a bar shows its op; clicking it highlights what it waits for and
// what waits for it. Optional overlays: each schedule's critical path outlined, and idle gaps
// tinted and hatched by cause (hover one for what it waits on).

#include "eval/chart_composition.h"
#include "gui/models/analysis_runner.h"
#include "gui/models/chart_overlays.h"
#include "gui/models/op_details.h"
#include "gui/models/windowed_chart.h"
#include "layout/chart_frame.h"
#include "layout/chart_rows.h"
#include "layout/chart_view.h"
#include "layout/scene.h"
#include "layout/time_mapping.h"

#include <QAbstractScrollArea>
#include <map>
#include <memory>
#include <optional>

class QRubberBand;

namespace stagecraft::gui {

class ChartDragEditor;

class GanttView : public QAbstractScrollArea {
    Q_OBJECT
  public:
    explicit GanttView(QWidget* parent = nullptr);

    /// `prepared`: the windowed chart the analysis worker built of `result`, used when it was
    /// built under the view's settings (otherwise the view builds its own).
    void setResult(AnalysisPtr result, std::shared_ptr<WindowedChart> prepared = nullptr);
    /// Shows `result` in place of the current one while a drag goes on (Design by Hand's live
    /// preview): the drag continues and the time mapping stays exactly where it is, so the pointer
    /// keeps its place over the re-timed bars. The next setResult() ends the preview (at fit again
    /// when the chart was at fit when the preview began).
    void showPreview(AnalysisPtr result);
    const AnalysisPtr& result() const { return m_result; }
    void setSettings(const ChartSettings& settings);
    const ChartSettings& settings() const { return m_settings; }

    /// The whole chart as exports draw it, at the view's width and fit: built on first use after
    /// a change (linear in ops; the screen itself paints from the windowed model). Scene
    /// coordinates are points of this chart.
    const Scene& scene() const;
    /// Zoom relative to fit (1 = the whole time axis across the plot).
    double zoom() const;
    /// Screen pixels per scene point (the logical DPI over 72).
    double pixelsPerPoint() const { return m_k; }
    /// Scene point under a viewport position: y through the vertical scroll, x through the
    /// current time mapping (the time under the position, where scene() draws that time).
    QPointF toScene(const QPoint& viewportPos) const;
    /// Viewport position of a scene point (the inverse).
    QPointF fromScene(const QPointF& scenePos) const;
    /// The frame and time mapping on screen, and the windowed rows (for tests and tools).
    const ChartFrame& frame() const { return m_frame; }
    const TimeMapping& mapping() const { return m_view.mapping(); }
    const ChartRows& chartRows() const { return m_rows; }
    /// True when the last paint folded sub-pixel bars (level of detail).
    bool lastPaintFolded() const { return m_lastPaintFolded; }
    /// Draw items painted last time (bars and folds), for tests of the level of detail.
    std::size_t lastPaintItems() const { return m_lastPaintItems; }
    /// Windowed charts this view built on its own thread (linear in ops), not the worker: tests
    /// check a large result arrives without one.
    std::size_t chartsBuiltHere() const { return m_chartsBuiltHere; }

    /// Selected bar: panel (= outcome index) and event index; highlights its dependencies.
    void selectEvent(int panel, int event);
    /// Selects the event and brings it into view: centred in time at the current zoom, its row
    /// scrolled into sight.
    void revealEvent(int panel, int event);
    void clearSelection();
    std::optional<std::pair<int, int>> selection() const { return m_selection; }
    /// Events highlighted as producers / consumers of the selection.
    const std::vector<int>& producerEvents() const { return m_producers; }
    const std::vector<int>& consumerEvents() const { return m_consumers; }

    /// The bar at a viewport position (logarithmic in its row's events).
    std::optional<ChartHit> eventAt(const QPoint& viewportPos) const;
    /// Tooltip text of a viewport position ("" when not over a bar).
    QString toolTipAt(const QPoint& viewportPos) const;

    /// The chart's panels as core composed them (a measured trace overlaid or in rows of its own
    /// under its prediction, ChartSettings::measuredRows).
    const ChartComposition& composition() const { return m_chart; }

    /// Outline the critical path of every shown schedule.
    void setShowCriticalPath(bool on);
    bool showCriticalPath() const { return m_showCriticalPath; }
    /// Tint and hatch idle gaps by cause; their tooltips say what they wait on.
    void setShowIdleCauses(bool on);
    bool showIdleCauses() const { return m_showIdleCauses; }
    /// Critical path of panel `panel` (event indices, first to last), computed on first use.
    const std::vector<std::size_t>& criticalPathEvents(int panel) const;
    /// Idle intervals of panel `panel`, computed on first use.
    const std::vector<IdleInterval>& idleGaps(int panel) const;
    /// Scene rectangle of an idle interval of `panel` (empty when its device row is not drawn).
    QRectF idleRect(int panel, const IdleInterval& interval) const;
    /// Critical-path bars and idle gaps the last paint drew.
    std::size_t lastPaintCriticalBars() const { return m_lastPaintCriticalBars; }
    std::size_t lastPaintIdleGaps() const { return m_lastPaintIdleGaps; }

    /// The chart is not the project the form shows (a refused edit, a declined or refused big
    /// input, a broken rule): painted greyed out under a banner with `reason`; "" clears it.
    void setStale(const QString& reason);
    QString staleReason() const { return m_staleReason; }
    /// Where the last paint drew the overlays' key (viewport pixels; empty without overlays).
    QRect overlayLegendRect() const { return m_overlayLegendRect; }

    /// Edit mode: a left press on a bar that `editor` accepts drags that op instead of panning
    /// (nullptr: no dragging of bars). The view does not own it.
    void setDragEditor(ChartDragEditor* editor);
    /// Scene rectangle of bar `event` of `panel` at the current zoom (null when not drawn).
    QRectF eventBox(int panel, int event) const { return boxOf(panel, event); }
    /// Draws the bars of panel `original` faintly behind those of panel `edited` (the same
    /// devices): where an op was before the edits. Panels of the shown result; none: no ghost.
    void setGhost(std::optional<std::pair<int, int>> originalAndEdited);
    std::optional<std::pair<int, int>> ghost() const { return m_ghost; }
    /// Ghost bars the last paint drew.
    std::size_t lastPaintGhostBars() const { return m_lastPaintGhostBars; }

    /// Deepest zoom, relative to fit: core's, the viewer's too.
    static constexpr double kMaxZoom = kChartMaxZoom;

  public slots:
    void zoomIn();
    void zoomOut();
    void fit();
    /// Zoom by `factor` keeping the time under viewport x `anchorX` in place.
    void zoomBy(double factor, double anchorX);

  signals:
    /// The user selected a schedule's bar (for the memory panel).
    void panelActivated(int panel);
    void zoomChanged(double zoom);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;

  private:
    /// How a rebuild places the time axis: keep the window (a chart at fit stays at fit), hold
    /// the mapping exactly (a preview), or fit.
    enum class Mapping { Keep, Hold, Fit };
    void replaceResult(AnalysisPtr result, std::shared_ptr<WindowedChart> prepared, Mapping mapping);
    /// Per result or settings: panels, content and rows (linear in events), then the frame.
    void rebuild(Mapping mapping = Mapping::Keep);
    /// Per width: the frame and its decoration, then the mapping at `zoom` (relative to fit),
    /// or at `pxPerUs` when positive, with `leftTime` at the plot's left edge.
    void relayoutFrame(double zoom, double leftTime, double pxPerUs = 0);
    /// Sets the mapping (clamped to the axis and the zoom range: ChartView) and the scroll bars.
    void setMapping(const TimeMapping& mapping);
    /// After m_view changed: the scroll bars and a repaint.
    void viewChanged();
    void updateScrollBars();
    const TimeMapping& fitMapping() const { return m_view.fitMapping(); }
    /// The plot's x range on screen, in points, and the times it shows.
    double plotLeft() const { return m_frame.plotLeft - 1; }
    double plotRight() const { return m_frame.plotLeft + m_frame.plotWidth + 1; }
    void paintHighlights(QPainter& painter) const;
    void paintOverlays(QPainter& painter, double t0, double t1, double y0, double y1);
    void paintOverlayLegend(QPainter& painter);
    QString idleToolTipAt(const QPoint& viewportPos) const;
    /// Idle gaps of (panel, device) in time order (indices into idleGaps(panel)), on first use.
    const std::vector<std::size_t>& idleGapsOf(int panel, int device) const;
    QRectF boxOf(int panel, int event) const;
    /// Row of `panel` (from its first) that shows predicted device `device`: the device itself, or
    /// its predicted row when the panel pairs measured rows with predicted ones.
    int rowOfDevice(int panel, int device) const;
    /// The predicted device row `row` of `panel` shows; -1 for a measured row.
    int deviceOfRow(int panel, int row) const;

    void paintStale(QPainter& painter);

    AnalysisPtr m_result;
    QString m_staleReason;
    QRect m_overlayLegendRect;
    ChartSettings m_settings;
    double m_k = 1.0; ///< pixels per point
    QString m_layoutError;

    // The windowed chart.
    ChartComposition m_chart;
    ChartOptions m_options;
    ChartContent m_content;
    ChartRows m_rows;
    std::shared_ptr<WindowedChart> m_prepared; ///< from setResult, until rebuild() takes it
    ChartFrame m_frame;
    Scene m_decor; ///< background, headers, row labels, legend, notes: what does not move
    bool m_hasChart = false;
    ChartView m_view;        ///< time to x in points of the frame; fit, zoom limits, pan (core's)
    double m_scrollUnit = 1; ///< pixels per step of the horizontal bar (its range is an int)
    bool m_syncingScroll = false;
    mutable std::optional<Scene> m_scene; ///< scene(), built on demand
    std::vector<int> m_measuredOf;        ///< overlay panel: predicted event -> measured event, -1

    bool m_lastPaintFolded = false;
    std::size_t m_lastPaintItems = 0;
    std::size_t m_chartsBuiltHere = 0;
    std::optional<std::pair<int, int>> m_selection;
    std::vector<int> m_producers;
    std::vector<int> m_consumers;
    std::map<int, std::unique_ptr<EventDependencies>> m_dependencies; ///< per panel, built on first click

    // Overlays: analyses per panel, computed on first use and kept until the result changes.
    bool m_showCriticalPath = false;
    bool m_showIdleCauses = false;
    mutable std::map<int, std::vector<std::size_t>> m_criticalPaths;
    mutable std::map<int, std::vector<IdleInterval>> m_idleGaps;
    mutable std::map<int, std::vector<std::vector<std::size_t>>> m_idleByDevice; ///< [panel][device]
    std::size_t m_lastPaintCriticalBars = 0;
    std::size_t m_lastPaintIdleGaps = 0;
    std::optional<std::pair<int, int>> m_ghost; ///< original panel, edited panel
    std::size_t m_lastPaintGhostBars = 0;
    std::optional<bool> m_previewFromFit; ///< set while a preview is shown: the chart was at fit before

    // Mouse interaction.
    enum class Drag { None, Pan, Band, Edit, Select };
    ChartDragEditor* m_dragEditor = nullptr;
    Drag m_drag = Drag::None;
    QPoint m_pressPos;
    QPoint m_lastPos;
    bool m_moved = false;
    QRubberBand* m_band = nullptr;
};

} // namespace stagecraft::gui
