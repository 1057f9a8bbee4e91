#pragma once
// The command line's files read on a worker thread (loadSources), so that the window shows its
// first frame at once and a progress bar while a trace of a gigabyte loads, instead of a blank
// window until every file is read; and, given chart options, the part of a trace read so far as a
// chart (load_preview.h), so the window fills in as the trace arrives.

#include "view/load_preview.h"
#include "view/view_sources.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace stagecraft::view {

class SourceLoader {
  public:
    /// Starts reading `paths` (loadSources) on a thread of its own; with `preview`, charts of the
    /// trace being read are built under these options as it arrives (takePreview). `wake` is
    /// called, from those threads, when the sources are read and when a chart is built (a window
    /// that sleeps between frames wakes up for them).
    SourceLoader(std::vector<std::string> paths, LoadOptions options,
                 std::optional<ViewChartOptions> preview = std::nullopt, std::function<void()> wake = {});
    /// Stops a read still under way (at its next block) and waits for the thread.
    ~SourceLoader();
    SourceLoader(const SourceLoader&) = delete;
    SourceLoader& operator=(const SourceLoader&) = delete;

    /// The share of the bytes to read that were read, 0..1 (an estimate: see bytesToRead).
    double progress() const;
    /// The share of the evaluation of a schedule file or project under way, 0..1; -1 when none
    /// is (their bytes are read first, then they are evaluated).
    double evaluation() const { return m_evaluation.load(std::memory_order_relaxed); }
    /// Every file is read: take() hands the sources over.
    bool done() const { return m_done.load(std::memory_order_acquire); }
    /// The sources, in the order of the command line (loadSources); once, after done().
    std::vector<ViewSource> take();
    /// The newest chart of the trace being read that was not taken yet, or null (none built since,
    /// or no preview asked for). The caller owns it: no other thread touches it.
    std::unique_ptr<LoadPreview> takePreview() { return m_preview ? m_preview->take() : nullptr; }
    /// Charts of the trace being read built so far.
    std::size_t previewsBuilt() const { return m_preview ? m_preview->built() : 0; }

  private:
    void run(std::vector<std::string> paths, const LoadOptions& options);

    std::atomic<bool> m_done{false};
    std::shared_ptr<std::atomic<bool>> m_stop = std::make_shared<std::atomic<bool>>(false);
    std::atomic<double> m_evaluation{-1};
    std::atomic<std::uint64_t> m_read{0};
    std::uint64_t m_total = 1;
    std::mutex m_mutex; // guards m_sources
    std::vector<ViewSource> m_sources;
    std::unique_ptr<PreviewBuilder> m_preview; ///< made before and stopped before m_thread ends
    std::function<void()> m_wake;
    std::thread m_thread;
};

/// The bytes a load of `paths` reads, to scale its progress: a Stagecraft trace is read twice
/// (its timeline, then its counters), every other file once. Traces of several iterations skip
/// the counter pass, so their bar ends early; it is an estimate for the eye.
std::uint64_t bytesToRead(const std::vector<std::string>& paths);

} // namespace stagecraft::view
