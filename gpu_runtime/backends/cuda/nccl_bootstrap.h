#pragma once
// NCCL communicators from an MPI bootstrap (nccl-tests' way: a unique id made by one rank and
// spread over MPI, then ncclCommInitRank inside one ncclGroupStart/End), one per entry of the
// communicator plan (comm_plan.h).
//
// Each communicator's id is made by its owner (its smallest rank, so the bootstrap root thread
// runs on a host of the communicator) and one MPI_Allgatherv hands every id to every rank, in plan
// order. Then each rank initializes the communicators it belongs to, all in one group, so they
// connect concurrently and their order cannot deadlock.

#include "backends/cuda/comm_plan.h"

#include <mpi.h>
#include <nccl.h>
#include <vector>

namespace stagecraft::runtime::cuda {

/// Collective over `world`: throws BackendError on every rank when a communicator of `plan`
/// would have two ranks on one GPU (NCCL cannot do that; --transport mpi can).
void checkDistinctGpus(const std::vector<CommSpec>& plan, int device, MPI_Comm world);

/// Collective over `world`: one communicator per entry of `plan`, nullptr where this rank is not
/// a member. `plan` must outlive the call (NCCL reads the names during initialization).
std::vector<ncclComm_t> initNcclFromMpi(const std::vector<CommSpec>& plan, MPI_Comm world);

} // namespace stagecraft::runtime::cuda
