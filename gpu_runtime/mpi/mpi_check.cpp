#include "mpi/mpi_check.h"

#include <cstdio>
#include <unistd.h>

namespace stagecraft::runtime {

std::string mpiWhere() {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    int initialized = 0, rank = -1;
    MPI_Initialized(&initialized);
    if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return std::string(host) + " rank " + std::to_string(rank);
}

void throwMpiError(int code, const char* expression, const char* file, int line) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
        std::snprintf(text, sizeof text, "MPI error %d", code);
    throw BackendError(mpiWhere() + ": MPI failure " + file + ":" + std::to_string(line) + " '" + expression +
                       "': " + text);
}

} // namespace stagecraft::runtime
