#pragma once
// The chart of a trace while it loads. The reading thread hands over the reader's blocks of slices
// (core's io/trace_preview.h); a thread of its own turns what has arrived into a chart now and then;
// the window takes each finished chart whole. The threads share only the list of events read
// (under a mutex; the build thread takes the new ones out) and the slot of the newest chart (handed
// over by moving its ownership), so the window never sees a chart half-built and draws one no other
// thread touches.

#include "view/view_chart.h"
#include "view/view_sources.h"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace stagecraft::view {

/// A chart of the part of a trace read so far.
struct LoadPreview {
    std::vector<ViewSource> sources; ///< one: the trace so far (the chart points into it)
    ViewChart chart;
    std::size_t events = 0;
};

/// The timeline of the events of a trace read so far (pids as devices): the rows are the pids and
/// peers seen, in order, and the shape is what the events show (core's reader renumbers and shapes
/// the same way at the end, from every slice).
Timeline previewTimeline(std::vector<TimelineEvent> events);

class PreviewBuilder {
  public:
    /// `built`: called on the build thread after each chart is ready to take (or none).
    explicit PreviewBuilder(ViewChartOptions options, std::function<void()> built = {});
    /// Stops (after a build under way) and waits for the thread.
    ~PreviewBuilder();
    PreviewBuilder(const PreviewBuilder&) = delete;
    PreviewBuilder& operator=(const PreviewBuilder&) = delete;

    /// Reading thread: the file now read; its blocks start a new preview.
    void startFile(const std::string& path);
    /// Reading thread: a block of the file's slices.
    void add(std::span<const TimelineEvent> block);
    /// Stops building (the read is over) and waits for a build under way.
    void stop();

    /// Window thread: the newest chart built since the last call, or null.
    std::unique_ptr<LoadPreview> take();
    /// Charts built so far (handed over or replaced by a newer one before that).
    std::size_t built() const;

  private:
    void run();

    using Clock = std::chrono::steady_clock;
    const ViewChartOptions m_options;
    const std::function<void()> m_builtCallback;
    mutable std::mutex m_mutex; // guards everything below but m_thread
    std::condition_variable m_wake;
    bool m_stop = false;
    std::string m_path;
    /// The blocks of the file read since the last build took them (moved in and out whole, so
    /// the mutex is held for a few pointers, never for the events).
    std::vector<std::vector<TimelineEvent>> m_blocks;
    std::size_t m_file = 0; ///< counts startFile calls: a build of an older file starts over
    // The build thread's own: every block of file m_takenFile taken so far (blocks, not one
    // growing array, so no capacity is held beyond the events).
    std::vector<std::vector<TimelineEvent>> m_taken;
    std::size_t m_takenFile = 0;
    bool m_fresh = false;       ///< events arrived since the last build
    Clock::time_point m_next{}; ///< no build before this (the builds' share of a core)
    std::unique_ptr<LoadPreview> m_ready;
    std::size_t m_built = 0;
    std::thread m_thread;
};

} // namespace stagecraft::view
