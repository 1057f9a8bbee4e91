#include "backends/cuda/nccl_transport.h"

#include "backends/cuda/nccl_bootstrap.h"
#include "backends/cuda/plan_exchange.h"

#include <algorithm>
#include <thread>

namespace stagecraft::runtime::cuda {
namespace {

// Creating and warming the communicators includes every rank's NCCL bootstrap and first
// connections; minutes only when something is wrong.
constexpr std::chrono::seconds kSetupTimeout{300};

ncclDataType_t ncclType(DType type) {
    switch (type) {
    case DType::F32:
        return ncclFloat32;
    case DType::F16:
        return ncclFloat16;
    case DType::BF16:
        return ncclBfloat16;
    }
    return ncclFloat32;
}

} // namespace

NcclTransport::NcclTransport(int device) : m_device(device) {}

NcclTransport::~NcclTransport() {
    // The layer calls shutdown() or abort() first; this is the fallback that never blocks.
    abort();
}

std::string NcclTransport::describe() const {
    int version = 0;
    if (ncclGetVersion(&version) != ncclSuccess) return "NCCL";
    // NCCL >= 2.9 encodes major * 10000 + minor * 100 + patch.
    return "NCCL " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
           std::to_string(version % 100);
}

void NcclTransport::setup(const LayerSetup& setup, DType type, MPI_Comm world, int streamPriority,
                          RecordStamps&) {
    m_type = ncclType(type);
    m_typeBytes = dtypeBytes(type);
    m_plan = gatherCommPlan(setup, world);
    checkDistinctGpus(m_plan, m_device, world);
    m_comms = initNcclFromMpi(m_plan, world);
    for (std::size_t i = 0; i < m_plan.size(); ++i) {
        if (!m_comms[i]) continue;
        const CommSpec& spec = m_plan[i];
        Lane lane;
        lane.spec = i;
        lane.comm = m_comms[i];
        lane.stream = makeStream(streamPriority);
        const int lanesSoFar = int(m_lanes.size());
        if (spec.kind == CommSpec::Kind::Collective) {
            m_collectiveLane[spec.collective] = lanesSoFar;
        } else if (spec.members[0] == setup.rank) {
            lane.peerInComm = 1;
            m_sendLane[spec.members[1]] = lanesSoFar;
        } else {
            lane.peerInComm = 0;
            m_recvLane[spec.members[0]] = lanesSoFar;
        }
        m_lanes.push_back(std::move(lane));
    }
    warmUp(setup.collectiveElements);
}

// Every edge carries one element and every collective reduces as many as the run's gradient
// all-reduce on it (NCCL picks its algorithm and protocol by size: a one-element warm-up would
// leave the real one's connections and buffers to the first iteration), in plan order: the first
// operation on a pair connects it, which needs both peers at once, and all ranks walk the plan in
// one order. The connections then exist before the first iteration, whose timing would otherwise
// include them. The scratch memory is freed before the run allocates its own.
void NcclTransport::warmUp(const std::vector<std::uint64_t>& collectiveElements) {
    void* scratch = nullptr;
    const std::size_t slot = 8; // one element of any type, one slot per lane: no two lanes share bytes
    const auto elementsOf = [&](const Lane& lane) -> std::uint64_t {
        const int c = m_plan[lane.spec].collective;
        return c >= 0 && std::size_t(c) < collectiveElements.size()
                   ? std::max<std::uint64_t>(1, collectiveElements[std::size_t(c)])
                   : 1;
    };
    // One slot per edge lane, then a region per collective lane: no two lanes share bytes (the
    // collectives of this rank hold about its gradients, which the run allocates after this).
    std::vector<std::size_t> offset(m_lanes.size(), 0);
    std::size_t bytes = std::max<std::size_t>(1, m_lanes.size()) * slot;
    for (std::size_t l = 0; l < m_lanes.size(); ++l) {
        offset[l] = l * slot;
        if (m_plan[m_lanes[l].spec].kind != CommSpec::Kind::Collective) continue;
        offset[l] = bytes;
        bytes += (std::size_t(elementsOf(m_lanes[l])) * m_typeBytes + 255) / 256 * 256;
    }
    SC_CUDA_CHECK(cudaMalloc(&scratch, bytes));
    try {
        SC_CUDA_CHECK(cudaMemset(scratch, 0, bytes));
        SC_CUDA_CHECK(cudaDeviceSynchronize()); // the lanes are non-blocking streams: order them after it
        for (std::size_t l = 0; l < m_lanes.size(); ++l) {
            const Lane& lane = m_lanes[l];
            void* element = static_cast<char*>(scratch) + offset[l];
            if (m_plan[lane.spec].kind == CommSpec::Kind::Collective)
                SC_NCCL_CHECK(ncclAllReduce(element, element, std::size_t(elementsOf(lane)), m_type, ncclSum,
                                            lane.comm, lane.stream.get()));
            else if (lane.peerInComm == 1)
                SC_NCCL_CHECK(ncclSend(element, 1, m_type, 1, lane.comm, lane.stream.get()));
            else
                SC_NCCL_CHECK(ncclRecv(element, 1, m_type, 0, lane.comm, lane.stream.get()));
        }
        waitLanesIdle(Clock::now() + kSetupTimeout, "warming the communicators");
    } catch (...) {
        abort();
        SC_CUDA_LOG(cudaFree(scratch));
        throw;
    }
    SC_CUDA_CHECK(cudaFree(scratch)); // the device is idle here
}

void NcclTransport::waitLanesIdle(Clock::time_point deadline, const char* what) {
    for (;;) {
        std::string pending;
        for (const Lane& lane : m_lanes) {
            const cudaError_t state = cudaStreamQuery(lane.stream.get());
            if (state == cudaErrorNotReady)
                pending += (pending.empty() ? "" : ", ") + m_plan[lane.spec].name;
            else
                SC_CUDA_CHECK(state);
        }
        if (pending.empty()) return;
        const std::string error = asyncError();
        if (!error.empty()) throw BackendError(std::string(what) + ": " + error);
        if (Clock::now() >= deadline)
            throw DeadlineExceeded(std::string(what) + " took longer than " +
                                   std::to_string(kSetupTimeout.count()) + " s; still pending: " + pending +
                                   " [" + errorContext() + "]");
        std::this_thread::yield();
    }
}

int NcclTransport::sendLane(int peer, const std::string& label) const {
    const auto it = m_sendLane.find(peer);
    if (it == m_sendLane.end())
        throw BackendError(label + ": rank " + std::to_string(peer) +
                           " is not a peer of this rank (LayerSetup::peers)");
    return it->second;
}

int NcclTransport::recvLane(int peer, const std::string& label) const {
    const auto it = m_recvLane.find(peer);
    if (it == m_recvLane.end())
        throw BackendError(label + ": rank " + std::to_string(peer) +
                           " is not a peer of this rank (LayerSetup::peers)");
    return it->second;
}

int NcclTransport::collectiveLane(int collective, const std::string& label) const {
    const auto it = m_collectiveLane.find(collective);
    if (it == m_collectiveLane.end())
        throw BackendError(label + ": this rank is not in collective " + std::to_string(collective) +
                           " (LayerSetup::collectives)");
    return it->second;
}

const std::string& NcclTransport::laneName(int lane) const {
    return m_plan[m_lanes[std::size_t(lane)].spec].name;
}

void NcclTransport::beginGroup() {
    SC_NCCL_CHECK(ncclGroupStart());
    ++m_groupDepth;
}

void NcclTransport::endGroup() {
    if (m_groupDepth == 0) throw BackendError("endGroup without beginGroup [" + errorContext() + "]");
    --m_groupDepth;
    const ncclResult_t result = ncclGroupEnd();
    if (result != ncclSuccess) {
        m_deferred.clear();
        m_inOpenGroup.clear();
        throwNcclError(result, "ncclGroupEnd()", __FILE__, __LINE__);
    }
    if (m_groupDepth > 0) return;
    // The group's kernels are on their streams now: mark their ends after them.
    for (const Deferred& d : m_deferred) SC_CUDA_CHECK(cudaEventRecord(d.end, d.stream));
    m_deferred.clear();
    m_inOpenGroup.clear();
}

void NcclTransport::post(int request, const CommOp& op) {
    const Lane& lane = m_lanes[std::size_t(op.lane)];
    cudaStream_t stream = lane.stream.get();
    switch (op.kind) {
    case CommOp::Kind::Send:
        SC_NCCL_CHECK(ncclSend(op.data, op.elements, m_type, lane.peerInComm, lane.comm, stream));
        break;
    case CommOp::Kind::Recv:
        SC_NCCL_CHECK(ncclRecv(op.data, op.elements, m_type, lane.peerInComm, lane.comm, stream));
        break;
    case CommOp::Kind::AllReduce:
        SC_NCCL_CHECK(ncclAllReduce(op.data, op.data, op.elements, m_type, ncclSum, lane.comm, stream));
        break;
    }
    m_completion[request] = op.end;
    if (m_groupDepth > 0) {
        m_deferred.push_back({request, op.end, stream});
        m_inOpenGroup.insert(request);
    } else {
        SC_CUDA_CHECK(cudaEventRecord(op.end, stream));
    }
}

void NcclTransport::awaitEnqueued(int request, Clock::time_point) {
    if (m_inOpenGroup.count(request))
        throw BackendError(
            "request " + std::to_string(request) +
            " was posted in a group that is still open: NCCL launches it at endGroup, so it cannot "
            "be waited on before [" +
            errorContext() + "]");
    if (!m_completion.count(request))
        throw BackendError("request " + std::to_string(request) + " is unknown [" + errorContext() + "]");
}

cudaEvent_t NcclTransport::completion(int request) const {
    return m_completion.at(request);
}

bool NcclTransport::done(int request) {
    if (m_inOpenGroup.count(request)) return false;
    const auto it = m_completion.find(request);
    return it != m_completion.end() && cudaEventQuery(it->second) == cudaSuccess;
}

std::string NcclTransport::asyncError() {
    for (const Lane& lane : m_lanes) {
        if (!lane.comm) continue; // aborted
        ncclResult_t state = ncclSuccess;
        const ncclResult_t call = ncclCommGetAsyncError(lane.comm, &state);
        if (call != ncclSuccess) state = call;
        if (state != ncclSuccess && state != ncclInProgress)
            return "NCCL asynchronous error on " + m_plan[lane.spec].name + ": " + ncclErrorText(state) +
                   " [" + errorContext() + "]";
    }
    return {};
}

// One group call for all communicators: ncclCommAbort on one communicator waits for its stream,
// which may sit behind a receive on a communicator not yet aborted; aborted together none waits
// for another. An open group (a fault between ncclGroupStart and ncclGroupEnd) is closed first.
void NcclTransport::abort() noexcept {
    if (m_aborted) return;
    m_aborted = true;
    while (m_groupDepth > 0) {
        SC_NCCL_LOG(ncclGroupEnd());
        --m_groupDepth;
    }
    m_deferred.clear();
    m_inOpenGroup.clear();
    SC_NCCL_LOG(ncclGroupStart());
    for (ncclComm_t& comm : m_comms) {
        if (comm) SC_NCCL_LOG(ncclCommAbort(comm));
        comm = nullptr;
    }
    SC_NCCL_LOG(ncclGroupEnd());
    for (Lane& lane : m_lanes) lane.comm = nullptr;
}

void NcclTransport::forget() {
    m_completion.clear();
}

void NcclTransport::shutdown() noexcept {
    if (m_aborted) return;
    // ncclCommFinalize flushes the communicator's work and its peers' (collective, in plan order
    // on every rank), so that ncclCommDestroy only frees; the layer only gets here with an idle
    // device.
    for (ncclComm_t comm : m_comms)
        if (comm) SC_NCCL_LOG(ncclCommFinalize(comm));
    for (ncclComm_t& comm : m_comms) {
        if (comm) SC_NCCL_LOG(ncclCommDestroy(comm));
        comm = nullptr;
    }
    for (Lane& lane : m_lanes) lane.comm = nullptr;
    m_aborted = true; // nothing left to abort
}

} // namespace stagecraft::runtime::cuda
