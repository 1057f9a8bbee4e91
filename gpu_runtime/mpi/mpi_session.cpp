#include "mpi/mpi_session.h"

#include "exec/interrupt.h"
#include "mpi/mpi_check.h"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <thread>
#include <unistd.h>

namespace stagecraft::runtime {
namespace {

template <class T>
void put(std::vector<char>& out, const T& value) {
    const auto* bytes = reinterpret_cast<const char*>(&value);
    out.insert(out.end(), bytes, bytes + sizeof(T));
}

template <class T>
T take(const char*& at, const char* end) {
    if (std::size_t(end - at) < sizeof(T)) throw BackendError("a rank's record arrived truncated");
    T value;
    std::memcpy(&value, at, sizeof(T));
    at += sizeof(T);
    return value;
}

/// Polls a non-blocking collective until it completes or the deadline passes.
void complete(MPI_Request& request, Clock::time_point deadline, const char* what) {
    for (int spins = 0;; ++spins) {
        int done = 0;
        SC_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
        if (done) return;
        throwIfInterrupted(what);
        if (Clock::now() > deadline)
            throw DeadlineExceeded(mpiWhere() + ": " + what +
                                   " did not complete before the deadline (a rank died or hangs)");
        if (spins > 64) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

double since(Clock::time_point anchor) {
    return std::chrono::duration<double, std::micro>(Clock::now() - anchor).count();
}

} // namespace

MpiSession::MpiSession(int& argc, char**& argv) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) SC_MPI_CHECK(MPI_Init(&argc, &argv));
    SC_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &m_comm));
    SC_MPI_CHECK(MPI_Comm_set_errhandler(m_comm, MPI_ERRORS_RETURN));
    SC_MPI_CHECK(MPI_Comm_rank(m_comm, &m_rank));
    SC_MPI_CHECK(MPI_Comm_size(m_comm, &m_size));
}

MpiSession::~MpiSession() {
    if (m_comm != MPI_COMM_NULL) MPI_Comm_free(&m_comm);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}

int MpiSession::localRank() const {
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    gethostname(host, sizeof host - 1);
    const std::uint64_t mine = std::hash<std::string>{}(host);
    std::vector<std::uint64_t> all(std::size_t(m_size), 0);
    SC_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, m_comm));
    int local = 0;
    for (int r = 0; r < m_rank; ++r) local += all[std::size_t(r)] == mine ? 1 : 0;
    return local;
}

void MpiSession::abortAll(int status) const {
    MPI_Abort(MPI_COMM_WORLD, status);
    std::_Exit(status); // MPI_Abort does not return; if it ever does, do not linger
}

std::vector<ClockOffset> exchangeClockOffsets(MPI_Comm comm, Clock::time_point anchor, int rounds) {
    int rank = 0, size = 1;
    SC_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    SC_MPI_CHECK(MPI_Comm_size(comm, &size));
    auto offsets = std::vector<ClockOffset>(std::size_t(size));
    // Ranks on rank 0's machine read the same steady clock (one CLOCK_MONOTONIC per kernel), so
    // their offset is the difference of the anchors, exactly. A ping-pong can be off by a reply
    // that waited for a core: on a loaded machine by more than a millisecond, which then shows as
    // receives ending before their sends began. Ranks of other machines are measured.
    MPI_Comm node = MPI_COMM_NULL;
    SC_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    int lowest = rank;
    SC_MPI_CHECK(MPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, node));
    const auto anchorNs =
        std::int64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(anchor.time_since_epoch()).count());
    std::int64_t nodeAnchorNs = anchorNs; // of the node's lowest rank (node rank 0: split by rank)
    SC_MPI_CHECK(MPI_Bcast(&nodeAnchorNs, 1, MPI_INT64_T, 0, node));
    SC_MPI_CHECK(MPI_Comm_free(&node));
    const int onRankZerosMachine = lowest == 0 ? 1 : 0;
    std::vector<int> sameMachine(std::size_t(size), 0);
    SC_MPI_CHECK(MPI_Allgather(&onRankZerosMachine, 1, MPI_INT, sameMachine.data(), 1, MPI_INT, comm));
    const double anchorOffsetUs = onRankZerosMachine ? double(nodeAnchorNs - anchorNs) / 1000.0 : 0.0;
    std::vector<double> anchorOffsets(std::size_t(size), 0.0);
    SC_MPI_CHECK(MPI_Gather(&anchorOffsetUs, 1, MPI_DOUBLE, anchorOffsets.data(), 1, MPI_DOUBLE, 0, comm));
    constexpr int kTag = 7;
    for (int peer = 1; peer < size; ++peer) {
        if (sameMachine[std::size_t(peer)]) {
            if (rank == 0) offsets[std::size_t(peer)] = ClockOffset{anchorOffsets[std::size_t(peer)], 0.0};
            continue;
        }
        std::vector<PingSample> samples;
        for (int k = 0; k < rounds; ++k) {
            if (rank == 0) {
                PingSample s;
                s.sentUs = since(anchor);
                SC_MPI_CHECK(MPI_Send(&s.sentUs, 1, MPI_DOUBLE, peer, kTag, comm));
                SC_MPI_CHECK(MPI_Recv(&s.peerUs, 1, MPI_DOUBLE, peer, kTag, comm, MPI_STATUS_IGNORE));
                s.receivedUs = since(anchor);
                samples.push_back(s);
            } else if (rank == peer) {
                double ignored = 0;
                SC_MPI_CHECK(MPI_Recv(&ignored, 1, MPI_DOUBLE, 0, kTag, comm, MPI_STATUS_IGNORE));
                const double now = since(anchor);
                SC_MPI_CHECK(MPI_Send(&now, 1, MPI_DOUBLE, 0, kTag, comm));
            }
        }
        if (rank == 0) offsets[std::size_t(peer)] = estimateOffset(samples);
    }
    static_assert(sizeof(ClockOffset) == 2 * sizeof(double));
    SC_MPI_CHECK(MPI_Bcast(offsets.data(), 2 * size, MPI_DOUBLE, 0, comm));
    return offsets;
}

std::vector<char> encodeIteration(const RankIteration& it) {
    std::vector<char> out;
    out.reserve(48 + it.stamps.size() * sizeof(Stamp) + it.memory.size() * 16);
    put(out, it.iterationStart);
    put(out, it.allocations);
    put(out, it.residentSlotBytes);
    put(out, std::uint64_t(it.stamps.size()));
    for (const Stamp& s : it.stamps) {
        put(out, s.start);
        put(out, s.end);
    }
    put(out, std::uint64_t(it.memory.size()));
    for (const MemoryChange& c : it.memory) {
        put(out, c.instr);
        put(out, c.bytes);
    }
    return out;
}

RankIteration decodeIteration(const char* data, std::size_t size) {
    const char* at = data;
    const char* end = data + size;
    RankIteration it;
    it.iterationStart = take<double>(at, end);
    it.allocations = take<std::uint64_t>(at, end);
    it.residentSlotBytes = take<std::uint64_t>(at, end);
    const auto stamps = take<std::uint64_t>(at, end);
    if (stamps > size / sizeof(Stamp)) throw BackendError("a rank's record names more stamps than it holds");
    it.stamps.resize(stamps);
    for (Stamp& s : it.stamps) {
        s.start = take<double>(at, end);
        s.end = take<double>(at, end);
    }
    const auto changes = take<std::uint64_t>(at, end);
    if (changes > size / 12) throw BackendError("a rank's record names more memory changes than it holds");
    it.memory.resize(changes);
    for (MemoryChange& c : it.memory) {
        c.instr = take<std::int32_t>(at, end);
        c.bytes = take<std::int64_t>(at, end);
    }
    return it;
}

std::vector<RankIteration> gatherIteration(MPI_Comm comm, const RankIteration& mine,
                                           Clock::time_point deadline) {
    int rank = 0, size = 1;
    SC_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    SC_MPI_CHECK(MPI_Comm_size(comm, &size));
    const std::vector<char> bytes = encodeIteration(mine);
    const auto count = int(bytes.size());
    std::vector<int> counts(std::size_t(size), 0), displacements(std::size_t(size), 0);
    MPI_Request request = MPI_REQUEST_NULL;
    SC_MPI_CHECK(MPI_Igather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm, &request));
    complete(request, deadline, "gathering the iteration's sizes");
    std::vector<char> all;
    if (rank == 0) {
        long total = 0;
        for (int r = 0; r < size; ++r) {
            displacements[std::size_t(r)] = int(total);
            total += counts[std::size_t(r)];
        }
        all.resize(std::size_t(total));
    }
    SC_MPI_CHECK(MPI_Igatherv(bytes.data(), count, MPI_CHAR, all.data(), counts.data(), displacements.data(),
                              MPI_CHAR, 0, comm, &request));
    complete(request, deadline, "gathering the iteration's records");
    std::vector<RankIteration> out;
    if (rank == 0)
        for (int r = 0; r < size; ++r)
            out.push_back(decodeIteration(all.data() + displacements[std::size_t(r)],
                                          std::size_t(counts[std::size_t(r)])));
    return out;
}

std::vector<RankProbe> gatherProbes(MPI_Comm comm, const RankProbe& mine) {
    int size = 1;
    SC_MPI_CHECK(MPI_Comm_size(comm, &size));
    const int pair[2] = {mine.devices, mine.localRank};
    std::vector<int> all(2 * std::size_t(size), 0);
    SC_MPI_CHECK(MPI_Allgather(pair, 2, MPI_INT, all.data(), 2, MPI_INT, comm));
    const std::vector<std::string> messages = gatherStrings(comm, mine.message);
    auto out = std::vector<RankProbe>(std::size_t(size));
    for (std::size_t r = 0; r < out.size(); ++r) {
        out[r].devices = all[2 * r];
        out[r].localRank = all[2 * r + 1];
        if (r < messages.size()) out[r].message = messages[r];
    }
    return out;
}

std::vector<std::string> gatherStrings(MPI_Comm comm, const std::string& mine) {
    int rank = 0, size = 1;
    SC_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    SC_MPI_CHECK(MPI_Comm_size(comm, &size));
    const auto count = int(mine.size());
    std::vector<int> counts(std::size_t(size), 0), displacements(std::size_t(size), 0);
    SC_MPI_CHECK(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
    std::string all;
    if (rank == 0) {
        int total = 0;
        for (int r = 0; r < size; ++r) {
            displacements[std::size_t(r)] = total;
            total += counts[std::size_t(r)];
        }
        all.resize(std::size_t(total));
    }
    SC_MPI_CHECK(MPI_Gatherv(mine.data(), count, MPI_CHAR, all.data(), counts.data(), displacements.data(),
                             MPI_CHAR, 0, comm));
    std::vector<std::string> out;
    if (rank == 0)
        for (int r = 0; r < size; ++r)
            out.push_back(
                all.substr(std::size_t(displacements[std::size_t(r)]), std::size_t(counts[std::size_t(r)])));
    return out;
}

} // namespace stagecraft::runtime
