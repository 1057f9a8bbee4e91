#include "backends/cuda/cuda_events.h"

namespace stagecraft::runtime::cuda {

void RecordStamps::resize(std::int32_t records) {
    if (records < 0) throw BackendError("LayerSetup::records is negative (" + std::to_string(records) + ")");
    m_start.clear();
    m_end.clear();
    for (std::int32_t r = 0; r < records; ++r) {
        m_start.push_back(makeTimingEvent());
        m_end.push_back(makeTimingEvent());
    }
    m_taken.assign(std::size_t(records), 0);
    m_hostStart.assign(std::size_t(records), Clock::time_point{});
    m_hostEnd.assign(std::size_t(records), Clock::time_point{});
}

RecordStamps::Events RecordStamps::take(std::int32_t record, const std::string& label) {
    if (record == -1) {
        // Untimed work still needs a completion event to wait on; spare pairs are reused from
        // the next iteration on (re-recording an event does not disturb earlier waits on it).
        if (m_spareTaken + 2 > m_spare.size()) {
            m_spare.push_back(makeTimingEvent());
            m_spare.push_back(makeTimingEvent());
        }
        Events events{m_spare[m_spareTaken].get(), m_spare[m_spareTaken + 1].get()};
        m_spareTaken += 2;
        return events;
    }
    if (record < 0 || record >= records())
        throw BackendError(label + ": record " + std::to_string(record) + " is outside the program's " +
                           std::to_string(records()) + " records (LayerSetup::records)");
    const auto r = std::size_t(record);
    m_taken[r] = 1;
    m_hostStart[r] = Clock::time_point{};
    m_hostEnd[r] = Clock::time_point{};
    return {m_start[r].get(), m_end[r].get()};
}

bool RecordStamps::ended(std::int32_t record) const {
    if (record < 0 || record >= records() || !m_taken[std::size_t(record)]) return true;
    if (m_hostEnd[std::size_t(record)] != Clock::time_point{}) return true;
    const cudaError_t state = cudaEventQuery(m_end[std::size_t(record)].get());
    if (state == cudaErrorNotReady) return false;
    SC_CUDA_CHECK(state);
    return true;
}

void RecordStamps::setHostStart(std::int32_t record, Clock::time_point when) {
    if (record >= 0 && record < records()) m_hostStart[std::size_t(record)] = when;
}

void RecordStamps::setHostEnd(std::int32_t record, Clock::time_point when) {
    if (record >= 0 && record < records()) m_hostEnd[std::size_t(record)] = when;
}

void RecordStamps::anchor(cudaStream_t stream) {
    if (!m_reference) m_reference = makeTimingEvent();
    SC_CUDA_CHECK(cudaDeviceSynchronize());
    SC_CUDA_CHECK(cudaEventRecord(m_reference.get(), stream));
    SC_CUDA_CHECK(cudaEventSynchronize(m_reference.get()));
    m_anchorTime = Clock::now();
    m_originTime = m_anchorTime;
    m_referenceUs = 0;
    m_anchored = true;
}

void RecordStamps::reanchor(cudaStream_t stream) {
    if (!m_anchored) return anchor(stream);
    SC_CUDA_CHECK(cudaDeviceSynchronize());
    SC_CUDA_CHECK(cudaEventRecord(m_reference.get(), stream));
    SC_CUDA_CHECK(cudaEventSynchronize(m_reference.get()));
    m_anchorTime = Clock::now();
    m_referenceUs = std::chrono::duration<double, std::micro>(m_anchorTime - m_originTime).count();
}

// -1 when the event has not completed or was never recorded (an iteration that failed part way):
// the stamps then show how far it got.
double RecordStamps::sinceAnchorUs(cudaEvent_t event) const {
    if (cudaEventQuery(event) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    float ms = 0;
    if (cudaEventElapsedTime(&ms, m_reference.get(), event) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return m_referenceUs + double(ms) * 1000.0;
}

double RecordStamps::sinceAnchorUs(Clock::time_point when) const {
    return std::chrono::duration<double, std::micro>(when - m_originTime).count();
}

void RecordStamps::read(std::vector<Stamp>& stamps) {
    stamps.assign(m_start.size(), Stamp{});
    bool any = false;
    for (std::uint8_t taken : m_taken) any = any || taken;
    if (any && !m_anchored) throw BackendError("DeviceLayer::times before anchor: the stamps have no origin");
    for (std::size_t r = 0; r < m_start.size(); ++r) {
        if (!m_taken[r]) continue;
        Stamp& s = stamps[r];
        s.start = m_hostStart[r] != Clock::time_point{} ? sinceAnchorUs(m_hostStart[r])
                                                        : sinceAnchorUs(m_start[r].get());
        s.end =
            m_hostEnd[r] != Clock::time_point{} ? sinceAnchorUs(m_hostEnd[r]) : sinceAnchorUs(m_end[r].get());
        if (s.start < 0 || s.end < 0) s.end = -1; // incomplete: end < start marks it
    }
    m_taken.assign(m_taken.size(), 0);
    m_spareTaken = 0;
}

} // namespace stagecraft::runtime::cuda
