#include "backends/cuda/mpi_staged_transport.h"

#include "backends/cuda/cuda_events.h"
#include "backends/cuda/mpi_check_cuda.h"
#include "backends/cuda/mpi_half_sum.h"
#include "backends/cuda/mpi_tag.h"
#include "backends/cuda/plan_exchange.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <thread>

namespace stagecraft::runtime::cuda {
namespace {

// MPI counts are ints: larger messages go as several, which MPI keeps in order (same source,
// tag and communicator; collectives in call order), so both sides cut them identically.
constexpr std::size_t kChunkBytes = std::size_t(1) << 30;

bool mpiFinalized() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    return finalized != 0;
}

} // namespace

MpiStagedTransport::~MpiStagedTransport() {
    shutdown();
    // A block still lent may be the target of an MPI receive that never completed (after an
    // abort): leaking it is safer than letting MPI write into freed memory.
    if (m_pinned.lent() > 0)
        std::fprintf(stderr, "stagecraft cuda: %zu pinned staging buffers still in use are not freed [%s]\n",
                     m_pinned.lent(), errorContext().c_str());
}

void MpiStagedTransport::setup(const LayerSetup& setup, DType type, MPI_Comm world, int streamPriority,
                               RecordStamps& stamps) {
    m_type = type;
    m_stamps = &stamps;
    // Checks that the ranks agree on the run and that peer lists are symmetric (a one-sided peer
    // would hang the warm-up below).
    const std::vector<CommSpec> plan = gatherCommPlan(setup, world);
    void* value = nullptr;
    int found = 0;
    SC_MPI_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &found));
    if (found && value) m_tagUpperBound = *static_cast<int*>(value);
    SC_MPI_CHECK(MPI_Comm_dup(world, &m_p2p));
    SC_MPI_CHECK(MPI_Comm_set_errhandler(m_p2p, MPI_ERRORS_RETURN));
    createHalfSumOps(m_fp16Sum, m_bf16Sum);

    std::vector<int> peers(setup.peers);
    std::sort(peers.begin(), peers.end());
    for (int peer : peers) {
        Lane send;
        send.peer = peer;
        send.stream = makeStream(streamPriority);
        send.name = "edge " + std::to_string(setup.rank) + "->" + std::to_string(peer);
        m_sendLane[peer] = int(m_lanes.size());
        m_lanes.push_back(std::move(send));
        Lane recv;
        recv.peer = peer;
        recv.stream = makeStream(streamPriority);
        recv.name = "edge " + std::to_string(peer) + "->" + std::to_string(setup.rank);
        m_recvLane[peer] = int(m_lanes.size());
        m_lanes.push_back(std::move(recv));
    }
    // Every rank splits once per collective, in list order; members keep their list position.
    for (const CommSpec& spec : plan) {
        if (spec.kind != CommSpec::Kind::Collective) continue;
        const int position = spec.indexOf(setup.rank);
        MPI_Comm comm = MPI_COMM_NULL;
        SC_MPI_CHECK(MPI_Comm_split(world, position >= 0 ? 0 : MPI_UNDEFINED, std::max(position, 0), &comm));
        if (position < 0) continue;
        SC_MPI_CHECK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
        Lane lane;
        lane.comm = comm;
        lane.stream = makeStream(streamPriority);
        lane.name = spec.name;
        m_collectiveLane[spec.collective] = int(m_lanes.size());
        m_lanes.push_back(std::move(lane));
    }

    // Warm-up: one byte each way with every peer (on `world`, not on the transfers' communicator)
    // and a one-element all-reduce on every collective, so the first iteration pays no connection.
    std::vector<unsigned char> out(peers.size(), 1), in(peers.size(), 0);
    std::vector<MPI_Request> requests;
    for (std::size_t i = 0; i < peers.size(); ++i) {
        requests.emplace_back();
        SC_MPI_CHECK(MPI_Irecv(&in[i], 1, MPI_BYTE, peers[i], 0, world, &requests.back()));
        requests.emplace_back();
        SC_MPI_CHECK(MPI_Isend(&out[i], 1, MPI_BYTE, peers[i], 0, world, &requests.back()));
    }
    if (!requests.empty())
        SC_MPI_CHECK(MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
    for (const Lane& lane : m_lanes) {
        if (lane.comm == MPI_COMM_NULL) continue;
        float one = 1;
        SC_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_FLOAT, MPI_SUM, lane.comm));
    }
}

int MpiStagedTransport::sendLane(int peer, const std::string& label) const {
    const auto it = m_sendLane.find(peer);
    if (it == m_sendLane.end())
        throw BackendError(label + ": rank " + std::to_string(peer) +
                           " is not a peer of this rank (LayerSetup::peers)");
    return it->second;
}

int MpiStagedTransport::recvLane(int peer, const std::string& label) const {
    const auto it = m_recvLane.find(peer);
    if (it == m_recvLane.end())
        throw BackendError(label + ": rank " + std::to_string(peer) +
                           " is not a peer of this rank (LayerSetup::peers)");
    return it->second;
}

int MpiStagedTransport::collectiveLane(int collective, const std::string& label) const {
    const auto it = m_collectiveLane.find(collective);
    if (it == m_collectiveLane.end())
        throw BackendError(label + ": this rank is not in collective " + std::to_string(collective) +
                           " (LayerSetup::collectives)");
    return it->second;
}

EventHandle MpiStagedTransport::takeEvent() {
    if (m_spareEvents.empty()) return makeSyncEvent();
    EventHandle event = std::move(m_spareEvents.back());
    m_spareEvents.pop_back();
    return event;
}

void MpiStagedTransport::post(int request, const CommOp& op) {
    Staged s;
    s.op = op;
    s.bytes = std::size_t(op.elements) * dtypeBytes(m_type);
    s.host = m_pinned.acquire(s.bytes);
    cudaStream_t stream = m_lanes[std::size_t(op.lane)].stream.get();
    if (op.kind == CommOp::Kind::Recv) {
        m_stamps->setHostStart(op.record, Clock::now());
        s.phase = Phase::OnWire;
        startMpi(s);
    } else {
        // The lane's stream already waits for compute (the layer made it): the copy carries what
        // compute produced before the op was posted.
        SC_CUDA_CHECK(cudaMemcpyAsync(s.host.data, op.data, s.bytes, cudaMemcpyDeviceToHost, stream));
        s.copied = takeEvent();
        SC_CUDA_CHECK(cudaEventRecord(s.copied.get(), stream));
        s.phase = Phase::ToHost;
    }
    m_ops.emplace(request, std::move(s));
    progress();
}

void MpiStagedTransport::startMpi(Staged& s) {
    const Lane& lane = m_lanes[std::size_t(s.op.lane)];
    auto* bytes = static_cast<unsigned char*>(s.host.data);
    // An empty transfer is still one (empty) message, so that both sides match it.
    const std::size_t chunks = std::max<std::size_t>(1, (s.bytes + kChunkBytes - 1) / kChunkBytes);
    s.mpi.resize(chunks, MPI_REQUEST_NULL);
    if (s.op.kind == CommOp::Kind::AllReduce) {
        const std::size_t elementBytes = dtypeBytes(m_type);
        const MPI_Datatype type = m_type == DType::F32 ? MPI_FLOAT : MPI_UINT16_T;
        const MPI_Op sum = m_type == DType::F32 ? MPI_SUM : m_type == DType::F16 ? m_fp16Sum : m_bf16Sum;
        for (std::size_t c = 0; c < chunks; ++c) {
            const std::size_t first = c * kChunkBytes;
            const int count = int(std::min(kChunkBytes, s.bytes - first) / elementBytes);
            SC_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, bytes + first, count, type, sum, lane.comm, &s.mpi[c]));
        }
        return;
    }
    const int tag = mpiTag(s.op.tag, m_tagUpperBound);
    for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t first = c * kChunkBytes;
        const int count = int(std::min(kChunkBytes, s.bytes - first));
        if (s.op.kind == CommOp::Kind::Send)
            SC_MPI_CHECK(MPI_Isend(bytes + first, count, MPI_BYTE, lane.peer, tag, m_p2p, &s.mpi[c]));
        else
            SC_MPI_CHECK(MPI_Irecv(bytes + first, count, MPI_BYTE, lane.peer, tag, m_p2p, &s.mpi[c]));
    }
}

// One step of `s` if it can take one without blocking; true when it moved.
bool MpiStagedTransport::advance(Staged& s) {
    cudaStream_t stream = m_lanes[std::size_t(s.op.lane)].stream.get();
    switch (s.phase) {
    case Phase::ToHost: {
        const cudaError_t state = cudaEventQuery(s.copied.get());
        if (state == cudaErrorNotReady) return false;
        SC_CUDA_CHECK(state);
        m_spareEvents.push_back(std::move(s.copied));
        startMpi(s);
        s.phase = Phase::OnWire;
        return true;
    }
    case Phase::OnWire: {
        int complete = 0;
        std::vector<MPI_Status> statuses(s.mpi.size());
        int code = MPI_Testall(int(s.mpi.size()), s.mpi.data(), &complete, statuses.data());
        if (code == MPI_ERR_IN_STATUS) // the failing request's own code says more (a size mismatch, say)
            for (const MPI_Status& status : statuses)
                if (status.MPI_ERROR != MPI_SUCCESS && status.MPI_ERROR != MPI_ERR_PENDING) {
                    code = status.MPI_ERROR;
                    break;
                }
        if (code != MPI_SUCCESS)
            throwMpiError(
                code,
                ("MPI_Testall for " + s.op.label + " on " + m_lanes[std::size_t(s.op.lane)].name).c_str(),
                __FILE__, __LINE__);
        if (!complete) return false;
        s.mpi.clear();
        if (s.op.kind == CommOp::Kind::Send) {
            m_stamps->setHostEnd(s.op.record, Clock::now());
            m_pinned.give(s.host);
            s.host = {};
            s.phase = Phase::Done;
            return true;
        }
        // The lane's stream waited for the buffer's last compute when the op was posted.
        SC_CUDA_CHECK(cudaMemcpyAsync(s.op.data, s.host.data, s.bytes, cudaMemcpyHostToDevice, stream));
        SC_CUDA_CHECK(cudaEventRecord(s.op.end, stream));
        s.phase = Phase::ToDevice;
        return true;
    }
    case Phase::ToDevice: {
        const cudaError_t state = cudaEventQuery(s.op.end);
        if (state == cudaErrorNotReady) return false;
        SC_CUDA_CHECK(state);
        m_pinned.give(s.host);
        s.host = {};
        s.phase = Phase::Done;
        return true;
    }
    case Phase::Done:
        return false;
    }
    return false;
}

void MpiStagedTransport::progress() {
    // Ops of one lane start their MPI part in posting order (the peer matches them in that order),
    // so a lane whose earlier op still waits for its copy holds its later ones back.
    std::set<int> held;
    bool moved = true;
    while (moved) {
        moved = false;
        held.clear();
        for (auto& [request, s] : m_ops) {
            if (s.phase == Phase::ToHost && held.count(s.op.lane)) continue;
            moved = advance(s) || moved;
            if (s.phase == Phase::ToHost) held.insert(s.op.lane);
        }
    }
}

void MpiStagedTransport::awaitEnqueued(int request, Clock::time_point deadline) {
    const auto it = m_ops.find(request);
    if (it == m_ops.end())
        throw BackendError("request " + std::to_string(request) + " is unknown [" + errorContext() + "]");
    const Staged& s = it->second;
    for (;;) {
        progress();
        if (s.phase == Phase::Done || (s.phase == Phase::ToDevice && s.op.kind != CommOp::Kind::Send)) return;
        if (Clock::now() >= deadline)
            throw DeadlineExceeded(s.op.label + " on " + m_lanes[std::size_t(s.op.lane)].name +
                                   ": the host-staged MPI transfer did not complete by the deadline [" +
                                   errorContext() + "]");
        std::this_thread::yield();
    }
}

cudaEvent_t MpiStagedTransport::completion(int request) const {
    const auto it = m_ops.find(request);
    if (it == m_ops.end()) return nullptr;
    // A send completes on the host: nothing left for a stream to wait on.
    return it->second.op.kind == CommOp::Kind::Send ? nullptr : it->second.op.end;
}

bool MpiStagedTransport::done(int request) {
    const auto it = m_ops.find(request);
    return it != m_ops.end() && it->second.phase == Phase::Done;
}

bool MpiStagedTransport::deviceWorkEnqueued(int request) const {
    const auto it = m_ops.find(request);
    if (it == m_ops.end()) return true;
    const Staged& s = it->second;
    return s.op.kind == CommOp::Kind::Send || s.phase == Phase::ToDevice || s.phase == Phase::Done;
}

bool MpiStagedTransport::hostIdle() {
    for (const auto& [request, s] : m_ops)
        if (s.phase != Phase::Done) return false;
    return true;
}

void MpiStagedTransport::forget() {
    for (auto it = m_ops.begin(); it != m_ops.end();)
        it = it->second.phase == Phase::Done ? m_ops.erase(it) : std::next(it);
}

void MpiStagedTransport::shutdown() noexcept {
    if (mpiFinalized()) return; // MPI objects died with MPI
    for (Lane& lane : m_lanes)
        if (lane.comm != MPI_COMM_NULL) MPI_Comm_free(&lane.comm);
    if (m_p2p != MPI_COMM_NULL) MPI_Comm_free(&m_p2p);
    if (m_fp16Sum != MPI_OP_NULL) MPI_Op_free(&m_fp16Sum);
    if (m_bf16Sum != MPI_OP_NULL) MPI_Op_free(&m_bf16Sum);
}

} // namespace stagecraft::runtime::cuda
