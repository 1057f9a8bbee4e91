#pragma once
// Progress of the file reads of one thread, for front ends that read in the background (the
// viewer's progress bar). A ReadProgress installed on a thread hears of every block a ByteSource
// (json_stream.h) reads from a file there, so the trace readers (Chrome traces, their counters,
// the traces of other tools) report without each passing a callback through its API.

#include <cstdint>
#include <functional>

namespace stagecraft {

class ReadProgress {
  public:
    /// Called after each block with the bytes of the file read so far and its size; returning
    /// false stops the read: the reader throws Error "work.cancelled".
    using Callback = std::function<bool(std::uint64_t read, std::uint64_t size)>;

    /// Installs `callback` on this thread until destroyed (the one before is restored then).
    explicit ReadProgress(Callback callback);
    ~ReadProgress();
    ReadProgress(const ReadProgress&) = delete;
    ReadProgress& operator=(const ReadProgress&) = delete;

    /// Tells the progress installed on this thread, if any (ByteSource, after each block).
    static void report(std::uint64_t read, std::uint64_t size);

  private:
    Callback m_callback;
    ReadProgress* m_previous = nullptr;
};

} // namespace stagecraft
