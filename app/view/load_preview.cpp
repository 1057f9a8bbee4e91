#include "view/load_preview.h"

#include <algorithm>
#include <exception>
#include <utility>

namespace stagecraft::view {

namespace {

/// A build costs in proportion to the events read; waiting four times its time before the next
/// keeps the builds to a fifth of a core, and the reader (which the user waits for) on the rest.
constexpr auto kMinInterval = std::chrono::milliseconds(400);
constexpr int kIntervalPerBuildTime = 4;

} // namespace

Timeline previewTimeline(std::vector<TimelineEvent> events) {
    std::vector<std::int32_t> pids;
    for (const TimelineEvent& e : events) {
        if (pids.empty() || pids.back() != e.device) pids.push_back(e.device); // runs of one pid are common
        if (e.peer >= 0) pids.push_back(e.peer);
    }
    std::sort(pids.begin(), pids.end());
    pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
    const auto row = [&](std::int32_t pid) {
        return std::int32_t(std::lower_bound(pids.begin(), pids.end(), pid) - pids.begin());
    };
    Timeline t;
    t.origin = "read so far";
    t.shape.devices = int(pids.size());
    t.shape.stagesPerPipe = 0;
    for (TimelineEvent& e : events) {
        e.device = row(e.device);
        if (e.peer >= 0) e.peer = row(e.peer);
        const Op& op = e.op;
        t.shape.pipes = std::max(t.shape.pipes, int(op.pipe) + 1);
        t.shape.stagesPerPipe = std::max(t.shape.stagesPerPipe, op.stage + 1);
        t.shape.microbatches = std::max(t.shape.microbatches, op.mb + 1);
        t.shape.chunksPerDevice = std::max(t.shape.chunksPerDevice, int(op.chunk) + 1);
        t.shape.splitBackward = t.shape.splitBackward || op.kind == OpKind::W;
    }
    t.events = std::move(events);
    return t;
}

PreviewBuilder::PreviewBuilder(ViewChartOptions options, std::function<void()> built)
    : m_options(std::move(options)), m_builtCallback(std::move(built)) {
    m_thread = std::thread([this] { run(); });
}

PreviewBuilder::~PreviewBuilder() {
    stop();
}

void PreviewBuilder::startFile(const std::string& path) {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_path = path;
    m_blocks.clear();
    ++m_file;
    m_fresh = false;
}

void PreviewBuilder::add(std::span<const TimelineEvent> block) {
    std::vector<TimelineEvent> copy(block.begin(), block.end());
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_blocks.push_back(std::move(copy));
        m_fresh = true;
    }
    m_wake.notify_one();
}

void PreviewBuilder::stop() {
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_one();
    if (m_thread.joinable()) m_thread.join();
}

std::unique_ptr<LoadPreview> PreviewBuilder::take() {
    const std::lock_guard<std::mutex> lock(m_mutex);
    return std::move(m_ready);
}

std::size_t PreviewBuilder::built() const {
    const std::lock_guard<std::mutex> lock(m_mutex);
    return m_built;
}

void PreviewBuilder::run() {
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        const auto due = [&] { return m_stop || (m_fresh && Clock::now() >= m_next); };
        if (m_fresh && !m_stop)
            m_wake.wait_until(lock, m_next, due);
        else
            m_wake.wait(lock, due);
        if (m_stop) {
            m_taken.clear(); // the window draws the whole files next
            return;
        }
        if (!due()) continue; // woken before its time
        // The blocks that have arrived: the reader goes on adding while these are drawn.
        ViewSource source;
        source.path = m_path;
        std::vector<std::vector<TimelineEvent>> blocks;
        blocks.swap(m_blocks);
        const std::size_t file = m_file;
        m_fresh = false;
        lock.unlock();

        const auto t0 = Clock::now();
        if (file != m_takenFile) {
            m_taken.clear();
            m_takenFile = file;
        }
        for (std::vector<TimelineEvent>& b : blocks) m_taken.push_back(std::move(b));
        std::vector<TimelineEvent> events; // the chart's own copy, renumbered
        std::size_t n = 0;
        for (const auto& b : m_taken) n += b.size();
        events.reserve(n);
        for (const auto& b : m_taken) events.insert(events.end(), b.begin(), b.end());
        auto preview = std::make_unique<LoadPreview>();
        preview->events = events.size();
        source.trace = std::make_shared<const Timeline>(previewTimeline(std::move(events)));
        preview->sources.push_back(std::move(source));
        bool ok = true;
        try {
            preview->chart.build(preview->sources, m_options);
        } catch (const std::exception&) {
            ok = false; // slices the layout refuses: the read itself says why at the end
        }
        const auto took = Clock::now() - t0;

        lock.lock();
        bool handed = false;
        if (ok && !preview->chart.empty()) {
            handed = true;
            // An older one the window has not taken is dropped (freed below, outside the lock).
            std::swap(m_ready, preview);
            ++m_built;
        }
        m_next = Clock::now() + std::max<Clock::duration>(kMinInterval, kIntervalPerBuildTime * took);
        lock.unlock();
        preview.reset();
        if (handed && m_builtCallback) m_builtCallback();
        lock.lock();
    }
}

} // namespace stagecraft::view
