#pragma once
// The MPI side of a run that is not a backend: start and end MPI, the local rank (nccl-tests'
// way: ranks on the same host name, counted below this one), the clock exchange with rank 0,
// gathering each iteration's records on rank 0 without blocking past a deadline, and ending every
// rank after a fault.

#include "exec/clock_sync.h"
#include "exec/device_layer.h"
#include "exec/executor.h"
#include "plan/backend_choice.h"

#include <mpi.h>
#include <vector>

namespace stagecraft::runtime {

class MpiSession {
  public:
    MpiSession(int& argc, char**& argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    int rank() const { return m_rank; }
    int size() const { return m_size; }
    MPI_Comm comm() const { return m_comm; }
    /// Ranks on this host below this one.
    int localRank() const;
    /// Ends every rank of the job (MPI_Abort): after a fault, so that no rank waits forever.
    [[noreturn]] void abortAll(int status) const;

  private:
    int m_rank = 0;
    int m_size = 1;
    MPI_Comm m_comm = MPI_COMM_NULL; ///< ours, returning errors instead of aborting
};

/// Collective: rank 0 learns every rank's clock offset (from its anchor to rank 0's anchor);
/// every rank gets the whole list.
std::vector<ClockOffset> exchangeClockOffsets(MPI_Comm comm, Clock::time_point anchor, int rounds);

/// Collective: every rank's iteration record arrives on rank 0 ([rank]; other ranks get an empty
/// list). Throws DeadlineExceeded naming the ranks it did not hear from by `deadline`.
std::vector<RankIteration> gatherIteration(MPI_Comm comm, const RankIteration& mine,
                                           Clock::time_point deadline);

/// Collective: every rank's probe on every rank ([rank]; the messages on rank 0 only).
std::vector<RankProbe> gatherProbes(MPI_Comm comm, const RankProbe& mine);

/// Collective: every rank's string on rank 0 ([rank]).
std::vector<std::string> gatherStrings(MPI_Comm comm, const std::string& mine);

/// Serialised form of one rank's iteration (exact: doubles as bytes).
std::vector<char> encodeIteration(const RankIteration& iteration);
RankIteration decodeIteration(const char* data, std::size_t size);

} // namespace stagecraft::runtime
