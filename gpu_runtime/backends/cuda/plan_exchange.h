#pragma once
// The MPI half of the communicator plan (comm_plan.h): every rank learns every rank's peers, and
// the ranks check that they describe the same run before anyone creates a communicator. Any
// failure is raised on every rank, so that no rank is left waiting in a collective call.

#include "backends/cuda/comm_plan.h"
#include "exec/device_layer.h"

#include <mpi.h>
#include <vector>

namespace stagecraft::runtime::cuda {

/// Collective over `world`: checks that LayerSetup::rank and ranks match `world`, and that all
/// ranks give the same dtype and collectives, gathers the peer lists and returns
/// planCommunicators' list.
std::vector<CommSpec> gatherCommPlan(const LayerSetup& setup, MPI_Comm world);

/// Collective over `world`: throws BackendError on every rank when any rank's `problem` is not
/// empty; the message is the first such rank's own problem, or names that rank.
void raiseOnAnyRank(const std::string& problem, MPI_Comm world);

} // namespace stagecraft::runtime::cuda
