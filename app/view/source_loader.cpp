#include "view/source_loader.h"

#include "io/read_progress.h"
#include "io/trace_preview.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

namespace stagecraft::view {

std::uint64_t bytesToRead(const std::vector<std::string>& paths) {
    std::uint64_t total = 0;
    for (const std::string& path : paths) {
        std::error_code ec;
        const std::uint64_t size = std::filesystem::file_size(path, ec);
        if (ec) continue;
        total += size * (inputKind(path) == SourceKind::Trace && !isForeignTrace(path) ? 2 : 1);
    }
    return std::max<std::uint64_t>(total, 1);
}

SourceLoader::SourceLoader(std::vector<std::string> paths, LoadOptions options,
                           std::optional<ViewChartOptions> preview, std::function<void()> wake)
    : m_wake(std::move(wake)) {
    m_total = bytesToRead(paths);
    if (preview) m_preview = std::make_unique<PreviewBuilder>(std::move(*preview), m_wake);
    m_thread = std::thread([this, paths = std::move(paths), options = std::move(options)]() mutable {
        run(std::move(paths), options);
    });
}

SourceLoader::~SourceLoader() {
    m_stop->store(true, std::memory_order_relaxed);
    if (m_thread.joinable()) m_thread.join();
}

void SourceLoader::run(std::vector<std::string> paths, const LoadOptions& options) {
    // Each ByteSource reports its own file's bytes; a report below the last one is a new file
    // (or the counter pass over the same one), whose bytes count from zero.
    std::uint64_t last = 0;
    const ReadProgress progress([&](std::uint64_t read, std::uint64_t) {
        m_read.fetch_add(read >= last ? read - last : read, std::memory_order_relaxed);
        last = read;
        return !m_stop->load(std::memory_order_relaxed);
    });
    LoadOptions evaluated = options;
    evaluated.cancel = m_stop;
    evaluated.evaluation = [this](double fraction, const std::string&) {
        m_evaluation.store(fraction, std::memory_order_relaxed);
    };
    std::optional<TracePreview> blocks;
    if (m_preview) {
        evaluated.fileStarted = [this](const std::string& path) { m_preview->startFile(path); };
        blocks.emplace([this](std::span<const TimelineEvent> block) { m_preview->add(block); });
    }
    std::vector<ViewSource> sources = loadSources(paths, evaluated);
    // No preview after the sources: the window draws those next. The wait is for a build under
    // way, here rather than on the window's thread.
    if (m_preview) m_preview->stop();
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_sources = std::move(sources);
    }
    m_done.store(true, std::memory_order_release);
    if (m_wake) m_wake();
}

double SourceLoader::progress() const {
    return std::min(1.0, double(m_read.load(std::memory_order_relaxed)) / double(m_total));
}

std::vector<ViewSource> SourceLoader::take() {
    const std::lock_guard<std::mutex> lock(m_mutex);
    return std::move(m_sources);
}

} // namespace stagecraft::view
