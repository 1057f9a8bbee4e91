#pragma once
// The central chart: every shown schedule stacked on one shared time axis, drawn from the one
// Scene that exports use too. Horizontal zoom re-lays the chart out at a wider width (text keeps
// its size; the axis gets finer ticks); the viewport paints only what is visible. Wheel, +/-
// zoom around the cursor; drag or arrows pan; Shift+drag (or right drag) zooms to a rubber band;
// F fits. Hovering a bar shows its op; clicking it highlights what it waits for and what waits
// for it. Optional overlays: each schedule's critical path outlined, and idle gaps tinted and
// hatched by cause (hover one for what it waits on).

#include "eval/chart_composition.h"
#include "gui/models/analysis_runner.h"
#include "gui/models/chart_overlays.h"
#include "gui/models/op_details.h"
#include "layout/scene.h"

#include <QAbstractScrollArea>
#include <map>
#include <memory>
#include <optional>

class QRubberBand;

namespace stagecraft::gui {

class GanttView : public QAbstractScrollArea {
    Q_OBJECT
  public:
    explicit GanttView(QWidget* parent = nullptr);

    void setResult(AnalysisPtr result);
    const AnalysisPtr& result() const { return m_result; }
    void setSettings(const ChartSettings& settings);
    const ChartSettings& settings() const { return m_settings; }

    /// The scene on screen (laid out at the current zoom).
    const Scene& scene() const { return m_scene; }
    double zoom() const { return m_zoom; }
    /// Screen pixels per scene point (the logical DPI over 72).
    double pixelsPerPoint() const { return m_k; }
    /// Scene point under a viewport position.
    QPointF toScene(const QPoint& viewportPos) const;
    /// Viewport position of a scene point.
    QPointF fromScene(const QPointF& scenePos) const;
    /// True when the last paint folded sub-pixel bars (level of detail).
    bool lastPaintFolded() const { return m_lastPaintFolded; }
    /// Draw items painted last time (bars and folds), for tests of the level of detail.
    std::size_t lastPaintItems() const { return m_lastPaintItems; }

    /// Selected bar: panel (= outcome index) and event index; highlights its dependencies.
    void selectEvent(int panel, int event);
    void clearSelection();
    std::optional<std::pair<int, int>> selection() const { return m_selection; }
    /// Events highlighted as producers / consumers of the selection.
    const std::vector<int>& producerEvents() const { return m_producers; }
    const std::vector<int>& consumerEvents() const { return m_consumers; }

    /// The bar at a viewport position: index into scene().rects, -1 when none.
    int rectAt(const QPoint& viewportPos) const;
    /// Tooltip text of a viewport position ("" when not over a bar).
    QString toolTipAt(const QPoint& viewportPos) const;

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

    /// Paints above this many rects go through level-of-detail folding.
    static constexpr std::size_t kFoldAbove = 4000;

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
    void relayout();
    void updateScrollBars();
    /// Linear time mapping of the current scene: x = a + b * t (b = 0 when unknown).
    std::pair<double, double> timeMapping() const;
    void paintHighlights(QPainter& painter) const;
    void paintOverlays(QPainter& painter, const QRectF& visible);
    /// Rect of every event of `panel` and the (y, h) of every device row, built on first use.
    void ensureGeometry() const;
    QString idleToolTipAt(const QPointF& scenePos) const;
    void paintFolded(QPainter& painter, const QRectF& visible);
    void buildRows();
    int rectOfEvent(int panel, int event) const;

    AnalysisPtr m_result;
    ChartSettings m_settings;
    Scene m_scene;
    double m_zoom = 1.0;
    double m_k = 1.0; ///< pixels per point
    QString m_layoutError;
    /// Level of detail for big charts: the scene without bars, and per device row the compute
    /// events in time order with their rects.
    struct Row {
        int panel = 0;
        double y = 0, h = 0;
        std::vector<TimelineEvent> events; ///< sorted by start (what buildDrawList reads)
        std::vector<int> rects;            ///< scene rect of each of `events`
    };
    Scene m_decor;
    std::vector<int> m_otherBars; ///< bars not in a row (comm lane, measured outlines)
    std::vector<Row> m_rows;
    bool m_lastPaintFolded = false;
    std::size_t m_lastPaintItems = 0;
    std::optional<std::pair<int, int>> m_selection;
    std::vector<int> m_producers;
    std::vector<int> m_consumers;
    std::map<int, std::unique_ptr<EventDependencies>> m_dependencies; ///< per panel, built on first click

    // Overlays: analyses per panel (kept across relayouts) and geometry per layout.
    bool m_showCriticalPath = false;
    bool m_showIdleCauses = false;
    mutable std::map<int, std::vector<std::size_t>> m_criticalPaths;
    mutable std::map<int, std::vector<IdleInterval>> m_idleGaps;
    mutable bool m_geometryBuilt = false;
    mutable std::map<int, std::vector<int>> m_eventRects; ///< [panel][event] -> rect, -1
    mutable std::map<std::pair<int, int>, std::pair<double, double>>
        m_deviceRows; ///< (panel, device) -> (y, h)
    std::size_t m_lastPaintCriticalBars = 0;
    std::size_t m_lastPaintIdleGaps = 0;

    // Mouse interaction.
    enum class Drag { None, Pan, Band };
    Drag m_drag = Drag::None;
    QPoint m_pressPos;
    QPoint m_lastPos;
    bool m_moved = false;
    QRubberBand* m_band = nullptr;
};

} // namespace stagecraft::gui
