#pragma once
// SC_MPI_CHECK for the CUDA layer's MPI calls (bootstrap, host-staged transport), in the style of
// cuda_check.h: the call, MPI's error text, file:line, host and rank in a BackendError. MPI
// returns error codes only on communicators whose error handler is MPI_ERRORS_RETURN: the layer
// sets it on the communicators it makes (MPI_COMM_WORLD keeps the program's handler). The host
// backend has its own checks; this header belongs to the CUDA module only.

#include <mpi.h>

namespace stagecraft::runtime::cuda {

[[noreturn]] void throwMpiError(int code, const char* expression, const char* file, int line);

} // namespace stagecraft::runtime::cuda

#define SC_MPI_CHECK(expr)                                                                                   \
    do {                                                                                                     \
        const int scMpiCode_ = (expr);                                                                       \
        if (scMpiCode_ != MPI_SUCCESS)                                                                       \
            ::stagecraft::runtime::cuda::throwMpiError(scMpiCode_, #expr, __FILE__, __LINE__);               \
    } while (false)
