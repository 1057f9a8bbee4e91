#pragma once
// The slices a trace reader has read so far, for front ends that draw a trace while it loads (the
// viewer). A TracePreview installed on a thread hears of the slices the Chrome trace reader
// (chrome_trace.h) keeps there, in blocks of kBlockSlices as they are read, without each front end
// passing a callback through the reader's API (as io/read_progress.h reports bytes).
//
// A block is a look ahead of the reader's checks, not its result: each event carries its
// slice's pid as its device, and the timeline read at the end may still differ (another iteration
// picked, annotation copies dropped, pids renumbered, or the file refused).

#include "sim/timeline.h"

#include <cstddef>
#include <functional>
#include <span>

namespace stagecraft {

class TracePreview {
  public:
    /// Called on the reading thread with each block of slices (the events of the slices kept
    /// since the last block, in file order).
    using Callback = std::function<void(std::span<const TimelineEvent> block)>;
    /// Slices per block: a few MiB of JSON, a few milliseconds of reading.
    static constexpr std::size_t kBlockSlices = std::size_t(1) << 14;

    /// Installs `callback` on this thread until destroyed (the one before is restored then).
    explicit TracePreview(Callback callback);
    ~TracePreview();
    TracePreview(const TracePreview&) = delete;
    TracePreview& operator=(const TracePreview&) = delete;

    /// Whether a preview is installed on this thread (the reader builds no block otherwise).
    static bool active();
    /// Hands `block` to the preview installed on this thread, if any.
    static void publish(std::span<const TimelineEvent> block);

  private:
    Callback m_callback;
    TracePreview* m_previous = nullptr;
};

} // namespace stagecraft
