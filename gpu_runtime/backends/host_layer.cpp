#include "backends/host_layer.h"

#include "exec/interrupt.h"
#include "mpi/mpi_check.h"

#include <algorithm>
#include <cblas.h>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <thread>
#include <unistd.h>

namespace stagecraft::runtime {
namespace {

std::string cpuModel() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) return line.substr(std::min(line.size(), colon + 2));
        }
    return "CPU";
}

/// Between two polls: yield first (a rank sharing its core with others lets them run; alone it
/// comes straight back, so transfers complete with MPI's own latency), then sleep briefly so a
/// long wait does not burn a core that a computing or waking rank needs.
void pollPause(int spins) {
    if (spins < 16)
        std::this_thread::yield();
    else
        std::this_thread::sleep_for(std::chrono::microseconds(20));
}

/// How often a sleeping rank progresses MPI, and the tail it spins instead of sleeping.
constexpr double kSleepPollUs = 100;
constexpr double kSpinTailUs = 50;
constexpr double kCopyGuardUs = 400;
/// Within the copy guard, how often a sleeping rank looks for a tensor its next op needs: on a
/// hop without slack it arrives one transfer time before the op ends, and is copied at once.
constexpr double kNeededPollUs = 20;

constexpr std::size_t kHugePage = std::size_t(2) << 20;

std::size_t pageSize() {
    static const auto size = std::size_t(sysconf(_SC_PAGESIZE));
    return size;
}

int mpiCount(std::uint64_t elements) {
    if (elements > std::uint64_t(INT_MAX))
        throw BackendError(mpiWhere() + ": a transfer of " + std::to_string(elements) +
                           " elements exceeds MPI's count limit (" + std::to_string(INT_MAX) +
                           "); shrink the model with --scale");
    return int(elements);
}

} // namespace

void HostLayer::FreeDeleter::operator()(float* p) const noexcept {
    std::free(p);
}

HostLayer::HostLayer() {
    openblas_set_num_threads(1);
    // Short sleeps end when asked: the default 50 µs timer slack would add to every poll.
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    SC_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &m_p2p));
    SC_MPI_CHECK(MPI_Comm_set_errhandler(m_p2p, MPI_ERRORS_RETURN));
    SC_MPI_CHECK(MPI_Comm_rank(m_p2p, &m_rank));
    void* bound = nullptr;
    int found = 0;
    SC_MPI_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &bound, &found));
    if (found && bound) m_tagBound = *static_cast<int*>(bound);
}

HostLayer::~HostLayer() {
    for (Pending& p : m_pending)
        if (!p.done && p.request != MPI_REQUEST_NULL) {
            MPI_Cancel(&p.request);
            MPI_Request_free(&p.request);
        }
    for (MPI_Comm& c : m_collectives)
        if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    if (m_p2p != MPI_COMM_NULL) MPI_Comm_free(&m_p2p);
}

std::string HostLayer::describe() const {
    std::string config = openblas_get_config();
    return "host: " + cpuModel() + " (" + config + ", fp32, 1 BLAS thread per rank)";
}

void HostLayer::setup(const LayerSetup& setup) {
    m_stamps.assign(std::size_t(setup.records), Stamp{});
    m_labels.assign(std::size_t(setup.records), std::string());
    m_requestOf.assign(std::size_t(setup.records), -1);
    // Collectives: every rank takes part in every split, in list order, so the calls match.
    for (const std::vector<int>& ranks : setup.collectives) {
        const bool member = std::find(ranks.begin(), ranks.end(), m_rank) != ranks.end();
        MPI_Comm comm = MPI_COMM_NULL;
        SC_MPI_CHECK(MPI_Comm_split(m_p2p, member ? 0 : MPI_UNDEFINED, m_rank, &comm));
        if (comm != MPI_COMM_NULL) SC_MPI_CHECK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
        m_collectives.push_back(comm);
    }
    // Warm every edge once in both directions, and every collective, so no connection is made
    // inside the first measured iteration.
    std::vector<float> out(setup.peers.size(), 1.0f), in(setup.peers.size(), 0.0f);
    std::vector<MPI_Request> requests(2 * setup.peers.size(), MPI_REQUEST_NULL);
    for (std::size_t i = 0; i < setup.peers.size(); ++i) {
        SC_MPI_CHECK(MPI_Irecv(&in[i], 1, MPI_FLOAT, setup.peers[i], 0, m_p2p, &requests[2 * i]));
        SC_MPI_CHECK(MPI_Isend(&out[i], 1, MPI_FLOAT, setup.peers[i], 0, m_p2p, &requests[2 * i + 1]));
    }
    SC_MPI_CHECK(MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
    for (MPI_Comm c : m_collectives) {
        if (c == MPI_COMM_NULL) continue;
        float value = 1.0f;
        SC_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_FLOAT, MPI_SUM, c));
    }
    SC_MPI_CHECK(MPI_Barrier(m_p2p));
}

void HostLayer::anchor() {
    m_anchor = Clock::now();
}

double HostLayer::now() const {
    return std::chrono::duration<double, std::micro>(Clock::now() - m_anchor).count();
}

Buffer HostLayer::allocate(std::uint64_t elements) {
    ++m_allocations;
    // Buffers of a huge page or more sit on huge pages: MPI's single-copy transfer (CMA) pins the
    // pages it copies, and 4 KiB pages make a 4 MiB transfer about 3.5 times slower.
    const std::uint64_t wanted = std::max<std::uint64_t>(elements, 1) * sizeof(float);
    const std::size_t align = wanted >= kHugePage ? kHugePage : pageSize();
    const std::uint64_t bytes = (wanted + align - 1) / align * align;
    std::unique_ptr<float, FreeDeleter> memory(static_cast<float*>(std::aligned_alloc(align, bytes)));
    if (!memory)
        throw BackendError(mpiWhere() + ": out of host memory allocating " + std::to_string(bytes) +
                           " bytes; shrink the model with --scale");
    if (align == kHugePage) (void)madvise(memory.get(), bytes, MADV_HUGEPAGE); // a hint: 4 KiB pages work too
    // Small finite values: GEMMs on them stay finite for any number of iterations. Written once,
    // here, before the first iteration: every page is resident from now on.
    float* p = memory.get();
    for (std::uint64_t i = 0; i < elements; ++i) p[i] = float(i % 7) * 1e-3f;
    Buffer id;
    if (!m_freeIds.empty()) {
        id = m_freeIds.back();
        m_freeIds.pop_back();
    } else {
        id = Buffer(m_buffers.size());
        m_buffers.emplace_back();
        m_sizes.push_back(0);
        m_inFlight.push_back(0);
        m_releaseLater.push_back(0);
    }
    m_buffers[std::size_t(id)] = std::move(memory);
    m_sizes[std::size_t(id)] = elements;
    return id;
}

std::uint64_t HostLayer::residentBytes(const std::vector<Buffer>& buffers) {
    const std::size_t page = pageSize();
    std::uint64_t resident = 0;
    std::vector<unsigned char> pages;
    for (const Buffer b : buffers) {
        if (b < 0 || std::size_t(b) >= m_buffers.size() || !m_buffers[std::size_t(b)]) continue;
        const std::uint64_t bytes = std::max<std::uint64_t>(m_sizes[std::size_t(b)], 1) * sizeof(float);
        const std::size_t count = std::size_t((bytes + page - 1) / page);
        pages.assign(count, 0);
        if (mincore(m_buffers[std::size_t(b)].get(), count * page, pages.data()) != 0)
            throw BackendError(mpiWhere() + ": mincore failed on buffer " + std::to_string(b) + ": " +
                               std::strerror(errno));
        for (const unsigned char in : pages) resident += (in & 1) ? page : 0;
    }
    return resident;
}

void HostLayer::freeBuffer(Buffer buffer) {
    m_buffers[std::size_t(buffer)].reset();
    m_sizes[std::size_t(buffer)] = 0;
    m_releaseLater[std::size_t(buffer)] = 0;
    m_freeIds.push_back(buffer);
}

void HostLayer::release(Buffer buffer) {
    if (buffer < 0 || std::size_t(buffer) >= m_buffers.size() || !m_buffers[std::size_t(buffer)])
        throw BackendError(mpiWhere() + ": release of unknown buffer " + std::to_string(buffer));
    if (m_inFlight[std::size_t(buffer)] > 0)
        m_releaseLater[std::size_t(buffer)] = 1; // a send still reads it: free when it completes
    else
        freeBuffer(buffer);
}

float* HostLayer::data(const Operand& operand, std::uint64_t elements, const char* what) {
    const auto b = std::size_t(operand.buffer);
    if (operand.buffer < 0 || b >= m_buffers.size() || !m_buffers[b] ||
        operand.offset + elements > m_sizes[b])
        throw BackendError(mpiWhere() + ": " + what + " reaches outside its buffer (buffer " +
                           std::to_string(operand.buffer) + ", elements " + std::to_string(operand.offset) +
                           ".." + std::to_string(operand.offset + elements) + ")");
    return m_buffers[b].get() + operand.offset;
}

void HostLayer::sleepProgressing(double until, const std::vector<Request>& next) {
    // Progress only while a transfer's copy (MPI_Test may copy a whole tensor) still fits: a copy
    // started near the end would make the op late. Within that guard only the tensors the next
    // op needs are looked for (and copied, late or not: the next op waits for them anyway).
    for (;;) {
        const double left = until - now();
        if (left <= kSpinTailUs) break;
        double step = kSleepPollUs;
        if (left > kCopyGuardUs) {
            progressTransfers();
        } else {
            bool waiting = false;
            for (const Request r : next) waiting = !testOne(r) || waiting;
            if (waiting) step = kNeededPollUs;
        }
        std::this_thread::sleep_for(
            std::chrono::duration<double, std::micro>(std::min(step, until - now() - kSpinTailUs)));
    }
    while (now() < until) std::this_thread::yield();
}

void HostLayer::compute(const ComputeWork& work) {
    Stamp& stamp = m_stamps.at(std::size_t(work.record));
    stamp.start = now();
    if (work.sleepUs >= 0) sleepProgressing(stamp.start + work.sleepUs, work.next);
    for (const Gemm& g : work.gemms) {
        const std::uint64_t extentA = std::uint64_t((g.batch - 1) * g.strideA + g.m * g.k);
        const std::uint64_t extentB = std::uint64_t((g.batch - 1) * g.strideB + g.k * g.n);
        const std::uint64_t extentC = std::uint64_t((g.batch - 1) * g.strideC + g.m * g.n);
        const float* a = data(g.a, extentA, "a GEMM's A");
        const float* b = data(g.b, extentB, "a GEMM's B");
        float* c = data(g.c, extentC, "a GEMM's C");
        for (std::int32_t i = 0; i < g.batch; ++i)
            cblas_sgemm(CblasRowMajor, g.transA ? CblasTrans : CblasNoTrans,
                        g.transB ? CblasTrans : CblasNoTrans, int(g.m), int(g.n), int(g.k), 1.0f,
                        a + i * g.strideA, int(g.transA ? g.m : g.k), b + i * g.strideB,
                        int(g.transB ? g.k : g.n), g.accumulate ? 1.0f : 0.0f, c + i * g.strideC, int(g.n));
        if (!m_open.empty()) progressTransfers(); // transfers move between GEMMs
    }
    for (const Axpy& step : work.axpys)
        cblas_saxpy(int(step.n), step.alpha, data(step.x, step.n, "an optimizer step's gradient"), 1,
                    data(step.y, step.n, "an optimizer step's weights"), 1);
    stamp.end = now();
}

std::string HostLayer::labelOf(const Pending& p) const {
    const std::string& label = m_labels[std::size_t(p.record)];
    if (p.peer < 0) return label;
    return label + (p.isSend ? " to rank " : " from rank ") + std::to_string(p.peer);
}

Request HostLayer::post(Pending pending) {
    const auto id = Request(m_pending.size());
    m_requestOf[std::size_t(pending.record)] = id;
    if (pending.buffer >= 0) ++m_inFlight[std::size_t(pending.buffer)];
    m_pending.push_back(std::move(pending));
    m_open.push_back(id);
    return id;
}

Request HostLayer::postTransfer(const Transfer& t, bool isSend) {
    float* p = data(t.data, t.elements, isSend ? "a send" : "a receive");
    Pending pending{MPI_REQUEST_NULL, t.record, t.data.buffer, false, t.peer, isSend};
    m_stamps.at(std::size_t(t.record)).start = now();
    m_labels[std::size_t(t.record)] = t.label;
    // Tags above MPI_TAG_UB wrap: per peer pair the program order matches them anyway.
    const int tag = int(t.tag % (m_tagBound + 1));
    const int count = mpiCount(t.elements);
    if (isSend) {
        // At once: the consumer may be waiting, and posting copies nothing (the receiver copies).
        SC_MPI_CHECK(MPI_Isend(p, count, MPI_FLOAT, t.peer, tag, m_p2p, &pending.request));
        return post(std::move(pending));
    }
    // Posted between instructions, where an MPI_Irecv that matches a tensor already sent copies
    // it at once (200 µs for 4 MiB) before the next op: handed to MPI at the next progress point.
    pending.deferred = true;
    pending.data = p;
    pending.count = count;
    pending.tag = tag;
    const Request id = post(std::move(pending));
    m_deferred.push_back(id);
    return id;
}

void HostLayer::handToMpi(Pending& p) {
    p.deferred = false;
    SC_MPI_CHECK(MPI_Irecv(p.data, p.count, MPI_FLOAT, p.peer, p.tag, m_p2p, &p.request));
}

void HostLayer::postDeferred() {
    for (const Request id : m_deferred) handToMpi(m_pending[std::size_t(id)]);
    m_deferred.clear();
}

Request HostLayer::send(const Transfer& t) {
    return postTransfer(t, true);
}

Request HostLayer::recv(const Transfer& t) {
    return postTransfer(t, false);
}

Request HostLayer::allReduce(const AllReduce& r) {
    if (r.collective < 0 || std::size_t(r.collective) >= m_collectives.size() ||
        m_collectives[std::size_t(r.collective)] == MPI_COMM_NULL)
        throw BackendError(mpiWhere() + ": " + r.label + " names collective " + std::to_string(r.collective) +
                           ", which this rank is not part of");
    float* p = data(r.data, r.elements, "a gradient sync");
    Pending pending{MPI_REQUEST_NULL, r.record, r.data.buffer, false, -1, false};
    m_stamps.at(std::size_t(r.record)).start = now();
    m_labels[std::size_t(r.record)] = r.label;
    SC_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, p, mpiCount(r.elements), MPI_FLOAT, MPI_SUM,
                                m_collectives[std::size_t(r.collective)], &pending.request));
    return post(std::move(pending));
}

HostLayer::Pending& HostLayer::pendingAt(Request id) {
    if (id < 0 || std::size_t(id) >= m_pending.size())
        throw BackendError(mpiWhere() + ": test of unknown request " + std::to_string(id));
    return m_pending[std::size_t(id)];
}

bool HostLayer::test(Request id) {
    if (pendingAt(id).done) return true;
    // Every receive asked for is posted before MPI is progressed: a peer may wait for one of
    // them to complete its send before it sends what this rank waits for.
    postDeferred();
    return testOne(id);
}

bool HostLayer::testOne(Request id) {
    Pending& p = pendingAt(id);
    if (p.done) return true;
    if (p.deferred) {
        m_deferred.erase(std::remove(m_deferred.begin(), m_deferred.end(), id), m_deferred.end());
        handToMpi(p);
    }
    int flag = 0;
    SC_MPI_CHECK(MPI_Test(&p.request, &flag, MPI_STATUS_IGNORE));
    if (!flag) return false;
    p.done = true;
    m_stamps[std::size_t(p.record)].end = now();
    if (p.buffer >= 0 && --m_inFlight[std::size_t(p.buffer)] == 0 && m_releaseLater[std::size_t(p.buffer)])
        freeBuffer(p.buffer);
    return true;
}

bool HostLayer::completed(Request request) {
    if (request < 0) return true;
    // What the last progress point found: an MPI_Test here, between instructions, would progress
    // every transfer and could copy a tensor on the path of the next op.
    return pendingAt(request).done;
}

bool HostLayer::recordDone(std::int32_t record) {
    if (record < 0 || std::size_t(record) >= m_requestOf.size()) return true;
    const Request request = m_requestOf[std::size_t(record)];
    return request < 0 || test(request); // compute runs before compute() returns
}

void HostLayer::progressTransfers() {
    postDeferred();
    m_open.erase(std::remove_if(m_open.begin(), m_open.end(), [this](Request id) { return test(id); }),
                 m_open.end());
}

void HostLayer::wait(Request request, Clock::time_point deadline) {
    if (request < 0 || std::size_t(request) >= m_pending.size())
        throw BackendError(mpiWhere() + ": wait on unknown request " + std::to_string(request));
    // Poll rather than block in MPI_Wait: ranks share cores (a blocked rank should not spin them
    // away from the ranks computing) and the watchdog needs the deadline.
    for (int spins = 0; !test(request); ++spins) {
        if (interruptRequested()) throwIfInterrupted(labelOf(m_pending[std::size_t(request)]).c_str());
        if (Clock::now() > deadline)
            throw DeadlineExceeded(
                mpiWhere() + ": " + labelOf(m_pending[std::size_t(request)]) +
                " did not complete before the deadline (the peer died, hangs, or never posts "
                "the matching operation)");
        pollPause(spins);
    }
}

std::string HostLayer::pendingSummary() const {
    std::string out;
    int shown = 0;
    for (const Request id : m_open) {
        if (m_pending[std::size_t(id)].done) continue;
        if (shown++ == 4) {
            out += ", ...";
            break;
        }
        out += (out.empty() ? "" : ", ") + labelOf(m_pending[std::size_t(id)]);
    }
    return out;
}

void HostLayer::finish(Clock::time_point deadline) {
    for (int spins = 0;; ++spins) {
        progressTransfers();
        if (m_open.empty()) break;
        throwIfInterrupted("the end of the iteration");
        if (Clock::now() > deadline)
            throw DeadlineExceeded(mpiWhere() +
                                   ": still pending at the end of the iteration: " + pendingSummary());
        pollPause(spins);
    }
}

void HostLayer::times(std::vector<Stamp>& stamps) {
    stamps = m_stamps;
    std::fill(m_stamps.begin(), m_stamps.end(), Stamp{});
    std::fill(m_requestOf.begin(), m_requestOf.end(), -1);
    m_pending.clear();
    m_open.clear();
    m_deferred.clear();
}

void HostLayer::abort(std::chrono::milliseconds) noexcept {
    // MPI has no per-communicator abort that leaves the process usable; the caller ends the job
    // with MPI_Abort after writing what it has.
}

} // namespace stagecraft::runtime
