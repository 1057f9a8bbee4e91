#pragma once
// Start and end stamps of every record, taken with CUDA events on the stream the record runs on
// (runtime.md B.9), and their conversion to µs on the host clock since the anchor.
//
// anchor() records a reference event on the idle device and reads steady_clock right after the
// event completes; a stamp is then cudaEventElapsedTime(reference, event) · 1000 µs plus, in
// double precision, the reference's host time since the first anchor (the origin). reanchor()
// records a new reference before every iteration: the float milliseconds of cudaEventElapsedTime
// then span one iteration (about 0.1 µs resolution at a second, where one reference for a whole
// run loses 4 µs after a minute), and the device clock is tied to the host clock again, so its
// drift never accumulates.
// Where an end happens on the host (a host-staged MPI send completes when MPI says so), the
// transport stamps it with steady_clock instead.

#include "backends/cuda/cuda_handles.h"
#include "exec/device_layer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stagecraft::runtime::cuda {

class RecordStamps {
  public:
    struct Events {
        cudaEvent_t start = nullptr;
        cudaEvent_t end = nullptr;
    };

    /// Creates the event pairs of `records` records (LayerSetup::records).
    void resize(std::int32_t records);
    std::int32_t records() const { return std::int32_t(m_start.size()); }

    /// The event pair of `record` for this iteration; -1 gives a spare, untimed pair. Throws
    /// BackendError when `record` is outside [-1, records).
    Events take(std::int32_t record, const std::string& label);
    /// Host-clock start or end of a record whose event does not mark it (see above).
    void setHostStart(std::int32_t record, Clock::time_point when);
    void setHostEnd(std::int32_t record, Clock::time_point when);

    /// True when `record` was not taken this iteration or its end event has completed.
    bool ended(std::int32_t record) const;

    /// Records the reference on `stream` (the device must be idle), waits for it and reads the
    /// host clock.
    void anchor(cudaStream_t stream);
    /// A new reference (the device must be idle); the origin stays.
    void reanchor(cudaStream_t stream);
    Clock::time_point anchorTime() const { return m_originTime; }

    /// The stamps of the records taken since the last call, resized to records(); records not
    /// taken, or whose events did not complete, keep end -1 (end < start). Then forgets them.
    void read(std::vector<Stamp>& stamps);

  private:
    double sinceAnchorUs(cudaEvent_t event) const;
    double sinceAnchorUs(Clock::time_point when) const;

    std::vector<EventHandle> m_start, m_end;
    std::vector<std::uint8_t> m_taken;
    std::vector<Clock::time_point> m_hostStart, m_hostEnd; // time_point{} = not set
    std::vector<EventHandle> m_spare;                      // pairs for record -1, reused per iteration
    std::size_t m_spareTaken = 0;
    EventHandle m_reference;
    Clock::time_point m_anchorTime{}; // the current reference's host time
    Clock::time_point m_originTime{}; // the first anchor's: every stamp counts from it
    double m_referenceUs = 0;         // the reference's host time since the origin
    bool m_anchored = false;
};

} // namespace stagecraft::runtime::cuda
