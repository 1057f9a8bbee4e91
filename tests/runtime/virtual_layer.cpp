#include "virtual_layer.h"

#include <algorithm>
#include <cmath>

namespace stagecraft::runtime::testing {
namespace {

std::uint64_t extent(std::int32_t batch, std::int64_t stride, std::int64_t rows, std::int64_t cols) {
    return std::uint64_t((batch - 1) * stride + rows * cols);
}

} // namespace

void VirtualLayer::setup(const LayerSetup& setup) {
    m_recordEnd.assign(std::size_t(setup.records), std::nan(""));
    m_stamps.assign(std::size_t(setup.records), Stamp{});
}

Buffer VirtualLayer::allocate(std::uint64_t elements) {
    ++m_allocations;
    m_sizes.push_back(elements);
    m_ready.push_back(m_compute.busy);
    m_accesses.emplace_back();
    return Buffer(m_sizes.size() - 1);
}

std::uint64_t VirtualLayer::residentBytes(const std::vector<Buffer>& buffers) {
    std::uint64_t bytes = 0;
    for (const Buffer b : buffers) bytes += m_sizes.at(std::size_t(b)) * elementBytes();
    return bytes;
}

// As the CUDA layer does: the compute stream waits for every stream that used the buffer, and
// later users on other streams wait for the compute stream's position.
void VirtualLayer::reuse(Buffer buffer) {
    for (const Access& a : m_accesses.at(std::size_t(buffer)))
        m_compute.busy = std::max(m_compute.busy, a.end);
    m_ready[std::size_t(buffer)] = m_compute.busy;
}

VirtualLayer::Stream& VirtualLayer::lane(const std::string& name) {
    for (auto& [n, s] : m_lanes)
        if (n == name) return s;
    m_lanes.emplace_back(name, Stream{});
    return m_lanes.back().second;
}

void VirtualLayer::access(Buffer buffer, Access a) {
    auto& list = m_accesses.at(std::size_t(buffer));
    for (const Access& e : list) {
        if (e.what == a.what) continue; // one op's own operands
        const bool memory = a.begin < e.stop && e.begin < a.stop;
        const bool time = a.start < e.end && e.start < a.end;
        if (memory && time && (a.writes || e.writes))
            m_races.push_back(a.what + " [" + std::to_string(a.start) + ", " + std::to_string(a.end) + ") " +
                              (a.writes ? "writes" : "reads") + " elements " + std::to_string(a.begin) +
                              ".." + std::to_string(a.stop) + " of buffer " + std::to_string(buffer) +
                              " while " + e.what + " [" + std::to_string(e.start) + ", " +
                              std::to_string(e.end) + ") " + (e.writes ? "writes" : "reads") + " " +
                              std::to_string(e.begin) + ".." + std::to_string(e.stop));
    }
    list.push_back(std::move(a));
}

void VirtualLayer::issued(std::int32_t record, double end) {
    m_recordEnd.at(std::size_t(record)) = end;
    int inFlight = 0;
    for (const double e : m_recordEnd)
        if (!std::isnan(e) && e > m_host) ++inFlight;
    m_mostInFlight = std::max(m_mostInFlight, inFlight);
}

void VirtualLayer::compute(const ComputeWork& work) {
    if (m_nextInputs.size() <= std::size_t(work.record)) {
        m_nextInputs.resize(std::size_t(work.record) + 1);
        m_postedBefore.resize(std::size_t(work.record) + 1);
    }
    std::vector<std::int32_t>& next = m_nextInputs[std::size_t(work.record)];
    next.clear();
    for (const Request r : work.next) next.push_back(m_requests.at(std::size_t(r)).record);
    std::vector<std::int32_t>& posted = m_postedBefore[std::size_t(work.record)];
    posted.clear();
    for (const Pending& p : m_requests) posted.push_back(p.record);
    const double start = std::max(m_compute.busy, m_host);
    const double duration = work.sleepUs >= 0
                                ? work.sleepUs
                                : m_options.gemmUs * double(work.gemms.size()) + double(work.axpys.size());
    const double end = start + std::max(duration, 1.0);
    const auto touch = [&](const Operand& o, std::uint64_t n, bool writes) {
        access(o.buffer, Access{start, end, o.offset, o.offset + n, writes, work.label});
        m_ready[std::size_t(o.buffer)] = std::max(m_ready[std::size_t(o.buffer)], end);
    };
    for (const Gemm& g : work.gemms) {
        touch(g.a, extent(g.batch, g.strideA, g.m, g.k), false);
        touch(g.b, extent(g.batch, g.strideB, g.k, g.n), false);
        touch(g.c, extent(g.batch, g.strideC, g.m, g.n), true);
    }
    for (const Axpy& x : work.axpys) {
        touch(x.x, x.n, false);
        touch(x.y, x.n, true);
    }
    m_compute.busy = end;
    m_stamps.at(std::size_t(work.record)) = {start, end};
    issued(work.record, end);
}

Request VirtualLayer::post(std::int32_t record, const std::string& label, const std::string& laneName,
                           const Operand& data, std::uint64_t elements, bool writes, bool sendsData,
                           int peer) {
    Stream& stream = lane(laneName);
    double start = std::max({stream.busy, m_ready.at(std::size_t(data.buffer)), m_host});
    if (sendsData) start = std::max(start, m_compute.busy); // carries what was computed before it
    const double duration = sendsData && peer >= 0 ? m_options.sendUs : m_options.transferUs;
    const double end = peer >= 0 && peer == m_options.hungPeer ? kNever : start + duration;
    stream.busy = end;
    access(data.buffer, Access{start, end, data.offset, data.offset + elements, writes, label});
    m_stamps.at(std::size_t(record)) = {start, std::isinf(end) ? -1 : end};
    issued(record, end);
    m_requests.push_back({record, end});
    return Request(m_requests.size() - 1);
}

Request VirtualLayer::send(const Transfer& t) {
    return post(t.record, t.label, "send to " + std::to_string(t.peer), t.data, t.elements, false, true,
                t.peer);
}

Request VirtualLayer::recv(const Transfer& t) {
    return post(t.record, t.label, "recv from " + std::to_string(t.peer), t.data, t.elements, true, false,
                t.peer);
}

Request VirtualLayer::allReduce(const AllReduce& r) {
    return post(r.record, r.label, "collective " + std::to_string(r.collective), r.data, r.elements, true,
                true, -1);
}

void VirtualLayer::wait(Request request, Clock::time_point) {
    m_compute.busy = std::max(m_compute.busy, m_requests.at(std::size_t(request)).end);
}

bool VirtualLayer::completed(Request request) {
    const double end = m_requests.at(std::size_t(request)).end;
    if (end <= m_host) return true;
    m_host += m_options.pollStepUs; // time passes while the host polls
    return false;
}

bool VirtualLayer::recordDone(std::int32_t record) {
    const double end = m_recordEnd.at(std::size_t(record));
    if (std::isnan(end) || end <= m_host) return true;
    if (std::isinf(end)) {
        m_host += m_options.pollStepUs;
        return false;
    }
    m_host = end; // the host waited until then
    return true;
}

void VirtualLayer::finish(Clock::time_point deadline) {
    for (;;) {
        double last = m_compute.busy;
        for (const Pending& p : m_requests) last = std::max(last, p.end);
        if (!std::isinf(last)) {
            m_host = std::max(m_host, last);
            return;
        }
        if (Clock::now() > deadline) throw DeadlineExceeded("virtual layer: a transfer never completes");
    }
}

void VirtualLayer::times(std::vector<Stamp>& stamps) {
    stamps = m_stamps;
    std::fill(m_stamps.begin(), m_stamps.end(), Stamp{});
    std::fill(m_recordEnd.begin(), m_recordEnd.end(), std::nan(""));
    m_requests.clear();
}

} // namespace stagecraft::runtime::testing
