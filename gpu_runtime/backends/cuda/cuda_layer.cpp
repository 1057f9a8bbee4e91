#include "backends/cuda/cuda_layer.h"

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_kernels.h"
#include "backends/cuda/gemm_mapping.h"
#include "backends/cuda/mpi_check_cuda.h"
#include "backends/cuda/mpi_staged_transport.h"
#include "backends/cuda/nccl_transport.h"
#include "backends/cuda/nvtx_range.h"
#include "backends/cuda/plan_exchange.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <thread>

namespace stagecraft::runtime::cuda {
namespace {

// ComputeWork::after is normally waited with the executor's deadline (wait()) before compute();
// this bound only keeps a request that was not waited that way from blocking a host-staged run
// forever.
constexpr std::chrono::seconds kAfterTimeout{600};

int worldRankOrUnknown() {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    int rank = -1;
    if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

std::string joinFirst(const std::vector<std::string>& items, std::size_t shown) {
    std::string text;
    for (std::size_t i = 0; i < items.size() && i < shown; ++i) text += (i ? ", " : "") + items[i];
    if (items.size() > shown) text += " and " + std::to_string(items.size() - shown) + " more";
    return text;
}

} // namespace

CudaLayer::CudaLayer(const CudaLayerOptions& options) : m_options(options) {
    std::string why;
    m_devices = usableDevices(why);
    if (m_devices == 0) throw BackendError("no CUDA device for the CUDA layer: " + why);
    if (options.localRank < 0)
        throw BackendError("CudaLayerOptions::localRank is negative (" + std::to_string(options.localRank) +
                           ")");
    m_device = options.localRank % m_devices;
    setErrorContext(worldRankOrUnknown(), m_device);
    SC_CUDA_CHECK(cudaSetDevice(m_device));
    cudaDeviceProp props{};
    SC_CUDA_CHECK(cudaGetDeviceProperties(&props, m_device));
    m_deviceName = std::string(props.name) + " (sm_" + std::to_string(props.major) +
                   std::to_string(props.minor) + ", device " + std::to_string(m_device) + " of " +
                   std::to_string(m_devices) + ")";
    int leastPriority = 0, greatestPriority = 0;
    SC_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&leastPriority, &greatestPriority));
    m_commPriority = greatestPriority;
    m_compute = makeStream(leastPriority);
    m_mark = makeSyncEvent();
    m_buffers = std::make_unique<DeviceBuffers>(m_device, m_compute.get());
    m_gemm = std::make_unique<CublasGemm>(m_compute.get());
    if (options.mpiTransport)
        m_comm = std::make_unique<MpiStagedTransport>();
    else
        m_comm = std::make_unique<NcclTransport>(m_device);
}

CudaLayer::~CudaLayer() {
    try {
        SC_CUDA_LOG(cudaSetDevice(m_device));
        // Communicators are destroyed (collectively, in plan order) only when this rank finished
        // cleanly; otherwise they are aborted, which never waits for a peer.
        // After abort() its thread owns the communicators (and may still be in ncclCommAbort).
        if (m_comm && !m_aborted) {
            if (idleAndHealthy())
                m_comm->shutdown();
            else
                m_comm->abort();
        }
        if (m_compute) SC_CUDA_LOG(cudaDeviceSynchronize());
        m_comm.reset();
        m_buffers.reset();
        m_gemm.reset();
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (m_world != MPI_COMM_NULL && !finalized) MPI_Comm_free(&m_world);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "stagecraft cuda: while destroying the layer: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "stagecraft cuda: unknown error while destroying the layer\n");
    }
}

// True when this rank ended cleanly: no abort, no communicator error, nothing left to run. The
// frees that release() queued may still be running, so the streams get a moment to drain.
bool CudaLayer::idleAndHealthy() noexcept {
    if (m_aborted || !m_setupDone || m_comm->groupOpen()) return false;
    try {
        const auto grace = Clock::now() + std::chrono::seconds(2);
        for (;;) {
            m_comm->progress();
            if (!m_comm->asyncError().empty()) return false;
            bool idle = m_comm->hostIdle();
            for (cudaStream_t stream : allStreams()) idle = idle && cudaStreamQuery(stream) == cudaSuccess;
            if (idle) return true;
            if (Clock::now() >= grace) return false;
            std::this_thread::yield();
        }
    } catch (...) {
        return false;
    }
}

std::string CudaLayer::describe() const {
    std::string text = "cuda: " + m_deviceName + ", " + m_gemm->version() + ", " + m_comm->describe() + ", " +
                       dtypeName(m_buffers->type());
    return text;
}

std::size_t CudaLayer::elementBytes() const {
    return dtypeBytes(m_buffers->type());
}

void CudaLayer::setup(const LayerSetup& setup) {
    bindDevice();
    if (m_setupDone) throw BackendError("DeviceLayer::setup called twice [" + errorContext() + "]");
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized)
        throw BackendError("the CUDA layer's setup needs MPI: call MPI_Init before setup [" + errorContext() +
                           "]");
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    setErrorContext(rank, m_device);
    SC_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &m_world));
    SC_MPI_CHECK(MPI_Comm_set_errhandler(m_world, MPI_ERRORS_RETURN));

    // What can fail on one rank alone fails on all of them, before any rank enters the
    // communicator bootstrap and waits there for this one.
    DType type = DType::F32;
    std::string problem;
    try {
        type = parseDType(setup.dtype);
        m_buffers->setType(type);
        m_stamps.resize(setup.records);
        m_requestOf.assign(std::size_t(std::max(0, setup.records)), -1);
        warmKernels();
    } catch (const std::exception& e) {
        problem = e.what();
    }
    raiseOnAnyRank(problem, m_world);

    m_comm->setup(setup, type, m_world, m_commPriority, m_stamps);
    m_setupDone = true;

    // More streams than hardware queues makes unrelated streams share a queue, and a stream that
    // waits at its head then holds up the others (a receive behind another lane's wait).
    const std::size_t streams = allStreams().size();
    if (const char* connections = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"))
        if (std::size_t(std::max(1, std::atoi(connections))) < streams)
            std::fprintf(
                stderr,
                "stagecraft cuda: CUDA_DEVICE_MAX_CONNECTIONS=%s is below this rank's %zu streams: unrelated "
                "streams share hardware queues and may wait for each other [%s]\n",
                connections, streams, errorContext().c_str());
}

// Launches every kernel the run will use once, before any communicator exists. CUDA loads
// kernels lazily by default, and loading one may synchronize the device: in the first iteration
// that would wait for a NCCL kernel that waits for a peer. cuBLAS picks kernels per shape, so this
// covers the common ones only; CUDA_MODULE_LOADING=EAGER covers all at a start-up cost.
void CudaLayer::warmKernels() {
    constexpr std::int64_t kSide = 64;
    const Buffer a = m_buffers->allocate(2 * kSide * kSide);
    const Buffer b = m_buffers->allocate(2 * kSide * kSide);
    const Buffer c = m_buffers->allocate(2 * kSide * kSide);
    const DType type = m_buffers->type();
    for (int batch : {1, 2})
        for (bool transA : {false, true})
            for (bool transB : {false, true}) {
                Gemm g;
                g.m = g.n = g.k = kSide;
                g.transA = transA;
                g.transB = transB;
                g.accumulate = transA;
                g.batch = batch;
                g.strideA = g.strideB = g.strideC = kSide * kSide;
                m_gemm->run(g, m_buffers->address({a, 0}, extentA(g), "warm-up"),
                            m_buffers->address({b, 0}, extentB(g), "warm-up"),
                            m_buffers->address({c, 0}, extentC(g), "warm-up"), type);
            }
    SC_CUDA_CHECK(launchAxpy(kSide, 0.5f, m_buffers->address({a, 0}, kSide, "warm-up"),
                             m_buffers->address({b, 0}, kSide, "warm-up"), type, m_compute.get()));
    SC_CUDA_CHECK(launchSpin(1000, m_compute.get()));
    m_buffers->release(a);
    m_buffers->release(b);
    m_buffers->release(c);
    SC_CUDA_CHECK(cudaDeviceSynchronize());
}

void CudaLayer::anchor() {
    bindDevice();
    m_stamps.anchor(m_compute.get());
}

void CudaLayer::reanchor() {
    bindDevice();
    m_stamps.reanchor(m_compute.get());
}

Clock::time_point CudaLayer::anchorTime() const {
    return m_stamps.anchorTime();
}

Buffer CudaLayer::allocate(std::uint64_t elements) {
    bindDevice();
    if (m_aborted) throw BackendError("allocate after abort [" + errorContext() + "]");
    ++m_allocations;
    return m_buffers->allocate(elements);
}

// The buffer's memory goes back to the pool on a stream that waits for every stream that used it
// (device_buffers.h), which covers the work already on those streams. A transfer that will still
// put work there (a NCCL group not yet closed, a host-staged receive whose copy to the device
// comes when MPI delivers) holds the release back until it has.
void CudaLayer::release(Buffer buffer) {
    bindDevice();
    (void)m_buffers->address({buffer, 0}, 0, "release"); // refuses an unknown buffer now
    if (std::find(m_releaseLater.begin(), m_releaseLater.end(), buffer) != m_releaseLater.end())
        throw BackendError("release: buffer " + std::to_string(buffer) + " was released [" + errorContext() +
                           "]");
    if (awaitsDeviceWork(buffer)) {
        m_releaseLater.push_back(buffer);
        return;
    }
    m_buffers->release(buffer);
}

bool CudaLayer::awaitsDeviceWork(Buffer buffer) const {
    for (std::size_t r = 0; r < m_requests.size(); ++r)
        if (m_requests[r].buffer == buffer && !m_comm->deviceWorkEnqueued(int(r))) return true;
    return false;
}

void CudaLayer::releaseReady() {
    std::vector<Buffer> waiting;
    for (Buffer buffer : m_releaseLater) {
        if (awaitsDeviceWork(buffer))
            waiting.push_back(buffer);
        else
            m_buffers->release(buffer);
    }
    m_releaseLater.swap(waiting);
}

void CudaLayer::bindDevice() const {
    int current = -1;
    if (cudaGetDevice(&current) != cudaSuccess || current != m_device) SC_CUDA_CHECK(cudaSetDevice(m_device));
}

void CudaLayer::enter(const std::string& what) {
    bindDevice();
    if (m_aborted) throw BackendError(what + ": the CUDA layer was aborted [" + errorContext() + "]");
    if (!m_setupDone) throw BackendError(what + ": DeviceLayer::setup has not run [" + errorContext() + "]");
}

void CudaLayer::compute(const ComputeWork& work) {
    enter(work.label);
    NvtxRange range(work.label);
    for (Request request : work.after) waitFor(request, Clock::now() + kAfterTimeout, work.label);
    enqueueCompute(work);
}

void CudaLayer::enqueueCompute(const ComputeWork& work) {
    // Everything is checked before anything is enqueued: a refused instruction leaves no half.
    struct GemmArgs {
        const void* a;
        const void* b;
        void* c;
    };
    struct AxpyArgs {
        const void* x;
        void* y;
    };
    std::vector<GemmArgs> gemms;
    std::vector<AxpyArgs> axpys;
    std::vector<Buffer> touched;
    const bool sleep = work.sleepUs >= 0;
    if (sleep) {
        if (!std::isfinite(work.sleepUs) || work.sleepUs > 3.6e9)
            throw BackendError(work.label + ": sleep of " + std::to_string(work.sleepUs) +
                               " µs is not a duration");
    } else {
        for (std::size_t i = 0; i < work.gemms.size(); ++i) {
            const Gemm& g = work.gemms[i];
            const std::string what = work.label + ": gemm " + std::to_string(i);
            const std::string problem = gemmProblem(g);
            if (!problem.empty()) throw BackendError(what + ": " + problem);
            gemms.push_back({m_buffers->address(g.a, extentA(g), what + " operand a"),
                             m_buffers->address(g.b, extentB(g), what + " operand b"),
                             m_buffers->address(g.c, extentC(g), what + " operand c")});
            touched.insert(touched.end(), {g.a.buffer, g.b.buffer, g.c.buffer});
        }
        for (std::size_t i = 0; i < work.axpys.size(); ++i) {
            const Axpy& x = work.axpys[i];
            const std::string what = work.label + ": axpy " + std::to_string(i);
            axpys.push_back({m_buffers->address(x.x, x.n, what + " operand x"),
                             m_buffers->address(x.y, x.n, what + " operand y")});
            touched.insert(touched.end(), {x.x.buffer, x.y.buffer});
        }
    }
    const RecordStamps::Events events = m_stamps.take(work.record, work.label);
    cudaStream_t stream = m_compute.get();
    const DType type = m_buffers->type();
    SC_CUDA_CHECK(cudaEventRecord(events.start, stream));
    if (sleep) {
        SC_CUDA_CHECK(launchSpin(std::uint64_t(std::llround(work.sleepUs * 1000.0)), stream));
    } else {
        for (std::size_t i = 0; i < gemms.size(); ++i)
            m_gemm->run(work.gemms[i], gemms[i].a, gemms[i].b, gemms[i].c, type);
        for (std::size_t i = 0; i < axpys.size(); ++i)
            SC_CUDA_CHECK(
                launchAxpy(work.axpys[i].n, work.axpys[i].alpha, axpys[i].x, axpys[i].y, type, stream));
    }
    SC_CUDA_CHECK(cudaEventRecord(events.end, stream));
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (Buffer buffer : touched) m_buffers->touchedByCompute(buffer);
    m_computes.push_back({work.label, events.end});
}

void CudaLayer::beginGroup() {
    enter("beginGroup");
    m_comm->beginGroup();
}

// A grouped transfer starts when NCCL launches the group, which waits for every stream in it: a
// receive's idle stream alone would stamp its start at the post, before the send it is grouped
// with could go. Each stream of the group waits for the others' places, then records its start.
void CudaLayer::recordGroupStarts() {
    std::vector<cudaStream_t> streams;
    for (const GroupStart& g : m_groupStarts)
        if (std::find(streams.begin(), streams.end(), g.stream) == streams.end()) streams.push_back(g.stream);
    while (m_groupMarks.size() < streams.size()) m_groupMarks.push_back(makeSyncEvent());
    for (std::size_t i = 0; i < streams.size(); ++i)
        SC_CUDA_CHECK(cudaEventRecord(m_groupMarks[i].get(), streams[i]));
    for (std::size_t t = 0; t < streams.size(); ++t)
        for (std::size_t i = 0; i < streams.size(); ++i)
            if (i != t) SC_CUDA_CHECK(cudaStreamWaitEvent(streams[t], m_groupMarks[i].get(), 0));
    for (const GroupStart& g : m_groupStarts) SC_CUDA_CHECK(cudaEventRecord(g.start, g.stream));
    m_groupStarts.clear();
}

void CudaLayer::endGroup() {
    enter("endGroup");
    if (!m_groupStarts.empty()) recordGroupStarts();
    m_comm->endGroup();
    if (!m_releaseLater.empty()) releaseReady();
}

Request CudaLayer::post(CommOp op, const Operand& data) {
    enter(op.label);
    NvtxRange range(op.label);
    cudaStream_t stream = m_comm->stream(op.lane);
    op.buffer = data.buffer;
    op.data = m_buffers->address(data, op.elements, op.label);
    if (op.kind != CommOp::Kind::Recv) {
        // A send or all-reduce carries what compute produced before it was posted.
        SC_CUDA_CHECK(cudaEventRecord(m_mark.get(), m_compute.get()));
        SC_CUDA_CHECK(cudaStreamWaitEvent(stream, m_mark.get(), 0));
    }
    m_buffers->useOn(data.buffer, stream); // the fill and the last compute on the buffer come first
    const RecordStamps::Events events = m_stamps.take(op.record, op.label);
    if (m_comm->groupOpen())
        m_groupStarts.push_back({stream, events.start});
    else
        SC_CUDA_CHECK(cudaEventRecord(events.start, stream));
    op.end = events.end;
    const auto request = Request(m_requests.size());
    if (op.record >= 0 && std::size_t(op.record) < m_requestOf.size())
        m_requestOf[std::size_t(op.record)] = request;
    m_requests.push_back(op);
    m_comm->post(request, op);
    return request;
}

Request CudaLayer::send(const Transfer& t) {
    enter(t.label);
    CommOp op;
    op.kind = CommOp::Kind::Send;
    op.label = t.label;
    op.record = t.record;
    op.lane = m_comm->sendLane(t.peer, t.label);
    op.elements = t.elements;
    op.tag = t.tag;
    return post(std::move(op), t.data);
}

Request CudaLayer::recv(const Transfer& t) {
    enter(t.label);
    CommOp op;
    op.kind = CommOp::Kind::Recv;
    op.label = t.label;
    op.record = t.record;
    op.lane = m_comm->recvLane(t.peer, t.label);
    op.elements = t.elements;
    op.tag = t.tag;
    return post(std::move(op), t.data);
}

Request CudaLayer::allReduce(const AllReduce& r) {
    enter(r.label);
    CommOp op;
    op.kind = CommOp::Kind::AllReduce;
    op.label = r.label;
    op.record = r.record;
    op.lane = m_comm->collectiveLane(r.collective, r.label);
    op.elements = r.elements;
    return post(std::move(op), r.data);
}

void CudaLayer::waitFor(Request request, Clock::time_point deadline, const std::string& what) {
    if (request < 0 || std::size_t(request) >= m_requests.size())
        throw BackendError(what + ": request " + std::to_string(request) +
                           " is unknown (requests live for one iteration, until times()) [" + errorContext() +
                           "]");
    m_comm->awaitEnqueued(request, deadline);
    if (cudaEvent_t done = m_comm->completion(request))
        SC_CUDA_CHECK(cudaStreamWaitEvent(m_compute.get(), done, 0));
    if (!m_releaseLater.empty()) releaseReady();
}

// NCCL: the compute stream waits on the request's end event and the host goes on at once (the
// deadline is finish's to enforce). Host-staged MPI: the host first moves the transfer along
// until its copy to the device is enqueued.
void CudaLayer::wait(Request request, Clock::time_point deadline) {
    enter("wait");
    waitFor(request, deadline, "wait");
}

void CudaLayer::progress() {
    if (!m_setupDone || m_aborted) return;
    bindDevice();
    m_comm->progress();
    if (!m_releaseLater.empty()) releaseReady();
}

std::vector<cudaStream_t> CudaLayer::allStreams() const {
    std::vector<cudaStream_t> streams{m_compute.get(), m_buffers->releaseStream()};
    for (int lane = 0; lane < m_comm->lanes(); ++lane) streams.push_back(m_comm->stream(lane));
    return streams;
}

std::string CudaLayer::pendingWork() {
    std::vector<std::string> records;
    for (const ComputeRecord& c : m_computes)
        if (cudaEventQuery(c.end) == cudaErrorNotReady) records.push_back(c.label + " (compute stream)");
    for (std::size_t r = 0; r < m_requests.size(); ++r)
        if (!m_comm->done(int(r)))
            records.push_back(m_requests[r].label + " (" + m_comm->laneName(m_requests[r].lane) + ")");
    std::vector<std::string> streams;
    if (cudaStreamQuery(m_compute.get()) == cudaErrorNotReady) streams.push_back("compute");
    if (cudaStreamQuery(m_buffers->releaseStream()) == cudaErrorNotReady) streams.push_back("buffer release");
    for (int lane = 0; lane < m_comm->lanes(); ++lane)
        if (cudaStreamQuery(m_comm->stream(lane)) == cudaErrorNotReady)
            streams.push_back(m_comm->laneName(lane));
    (void)cudaGetLastError();
    return "records " + (records.empty() ? std::string("none") : joinFirst(records, 16)) + "; busy streams " +
           (streams.empty() ? std::string("none") : joinFirst(streams, 16));
}

void CudaLayer::finish(Clock::time_point deadline) {
    enter("finish");
    if (m_comm->groupOpen())
        throw BackendError("finish inside an open group: its transfers are launched at endGroup [" +
                           errorContext() + "]");
    const std::vector<cudaStream_t> streams = allStreams();
    for (;;) {
        m_comm->progress();
        if (!m_releaseLater.empty()) releaseReady(); // its free joins the release stream's queue
        bool idle = m_comm->hostIdle() && m_releaseLater.empty();
        for (cudaStream_t stream : streams) {
            const cudaError_t state = cudaStreamQuery(stream);
            if (state == cudaErrorNotReady) {
                idle = false;
            } else if (state != cudaSuccess) {
                // No abort here: the caller writes what it has first, then aborts (abort()).
                throwCudaError(state, "cudaStreamQuery(stream) in finish", __FILE__, __LINE__);
            }
        }
        if (idle) return;
        const std::string error = m_comm->asyncError();
        if (!error.empty()) throw BackendError(error);
        if (Clock::now() >= deadline) {
            const std::string pending = pendingWork();
            throw DeadlineExceeded("finish: the deadline passed with work still pending [" + errorContext() +
                                   "]: " + pending);
        }
        std::this_thread::yield();
    }
}

void CudaLayer::times(std::vector<Stamp>& stamps) {
    bindDevice();
    m_stamps.read(stamps);
    // A request that did not complete (the iteration failed) has no end, whatever its event held.
    for (std::size_t r = 0; r < m_requests.size(); ++r) {
        const std::int32_t record = m_requests[r].record;
        if (record >= 0 && std::size_t(record) < stamps.size() && !m_comm->done(int(r)))
            stamps[std::size_t(record)].end = -1;
    }
    if (!m_aborted && !m_releaseLater.empty()) releaseReady();
    m_requests.clear();
    m_computes.clear();
    std::fill(m_requestOf.begin(), m_requestOf.end(), -1);
    m_comm->forget();
}

void CudaLayer::abortNow() noexcept {
    if (m_comm) m_comm->abort();
}

// ncclCommAbort can block (a kernel that does not see the abort flag, a driver call behind a
// stuck stream): it runs on its own thread, and after `limit` the caller goes on to MPI_Abort,
// which ends the process whatever that thread is doing.
void CudaLayer::abort(std::chrono::milliseconds limit) noexcept {
    if (m_aborted) return;
    m_aborted = true;
    try {
        auto done = std::make_shared<std::promise<void>>();
        std::future<void> finished = done->get_future();
        std::thread([this, done] {
            bindDevice();
            abortNow();
            done->set_value();
        }).detach();
        if (finished.wait_for(limit) != std::future_status::ready)
            std::fprintf(stderr,
                         "stagecraft cuda: aborting the communicators took longer than %lld ms; ending "
                         "without them [%s]\n",
                         static_cast<long long>(limit.count()), errorContext().c_str());
    } catch (...) {
        abortNow(); // no thread could be started: abort here
    }
}

void CudaLayer::reuse(Buffer buffer) {
    bindDevice();
    m_buffers->reuse(buffer);
}

std::uint64_t CudaLayer::residentBytes(const std::vector<Buffer>&) {
    bindDevice();
    return m_buffers->usedHigh();
}

bool CudaLayer::completed(Request request) {
    if (request < 0) return true;
    if (!m_setupDone || m_aborted) return false;
    bindDevice();
    m_comm->progress();
    return m_comm->done(request);
}

// A compute record is done when its end event is; a transfer when its transport says so.
bool CudaLayer::recordDone(std::int32_t record) {
    if (!m_setupDone || m_aborted) return false;
    bindDevice();
    if (record < 0 || std::size_t(record) >= m_requestOf.size()) return true;
    const std::int32_t request = m_requestOf[std::size_t(record)];
    if (request >= 0) {
        m_comm->progress();
        return m_comm->done(request);
    }
    return m_stamps.ended(record);
}

std::string CudaLayer::asyncError() {
    if (!m_setupDone || m_aborted) return {};
    bindDevice();
    const cudaError_t sticky = cudaPeekAtLastError();
    if (sticky != cudaSuccess && sticky != cudaErrorNotReady)
        return std::string("CUDA error ") + cudaGetErrorName(sticky) + ": " + cudaGetErrorString(sticky) +
               " [" + errorContext() + "]";
    return m_comm->asyncError();
}

} // namespace stagecraft::runtime::cuda
