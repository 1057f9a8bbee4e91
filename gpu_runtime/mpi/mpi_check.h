#pragma once
// SC_MPI_CHECK(expr): an MPI call whose failure becomes a BackendError naming the expression,
// file:line, the host, the rank and MPI's own text. Our communicators return errors
// (MPI_ERRORS_RETURN) instead of aborting, so a dead peer becomes a message, not a silent exit.

#include "exec/device_layer.h"

#include <mpi.h>
#include <string>

namespace stagecraft::runtime {

/// "host rank 3" for messages.
std::string mpiWhere();

[[noreturn]] void throwMpiError(int code, const char* expression, const char* file, int line);

} // namespace stagecraft::runtime

#define SC_MPI_CHECK(expr)                                                                                   \
    do {                                                                                                     \
        const int sc_mpi_code_ = (expr);                                                                     \
        if (sc_mpi_code_ != MPI_SUCCESS)                                                                     \
            ::stagecraft::runtime::throwMpiError(sc_mpi_code_, #expr, __FILE__, __LINE__);                   \
    } while (0)
