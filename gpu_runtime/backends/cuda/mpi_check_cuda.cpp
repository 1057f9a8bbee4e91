#include "backends/cuda/mpi_check_cuda.h"

#include "backends/cuda/cuda_check.h"
#include "exec/device_layer.h"

#include <string>

namespace stagecraft::runtime::cuda {

void throwMpiError(int code, const char* expression, const char* file, int line) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
    const std::string message =
        length > 0 ? std::string(text, std::size_t(length)) : "MPI error code " + std::to_string(code);
    throw BackendError(callFailure(expression, message, file, line));
}

} // namespace stagecraft::runtime::cuda
