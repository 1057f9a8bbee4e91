#pragma once
// MPI has no fp16 or bf16 type: the host-staged all-reduce sends them as MPI_UINT16_T with these
// user-defined sum operations (each element converted to fp32, added, rounded back to nearest
// even, as the device would).

#include <mpi.h>

namespace stagecraft::runtime::cuda {

/// Creates the two operations (MPI_Op_create); collective only in that every rank needs them.
void createHalfSumOps(MPI_Op& fp16Sum, MPI_Op& bf16Sum);

} // namespace stagecraft::runtime::cuda
