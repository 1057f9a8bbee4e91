#include "backends/cuda/mpi_half_sum.h"

#include "backends/cuda/mpi_check_cuda.h"

#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace stagecraft::runtime::cuda {
namespace {

// cuda_fp16.h and cuda_bf16.h convert on the host as well; their raw structs carry the bits.
float fp16ToFloat(std::uint16_t bits) {
    __half_raw raw;
    raw.x = bits;
    return __half2float(__half(raw));
}
std::uint16_t floatToFp16(float value) {
    return __half_raw(__float2half_rn(value)).x;
}
float bf16ToFloat(std::uint16_t bits) {
    __nv_bfloat16_raw raw;
    raw.x = bits;
    return __bfloat162float(__nv_bfloat16(raw));
}
std::uint16_t floatToBf16(float value) {
    return __nv_bfloat16_raw(__float2bfloat16_rn(value)).x;
}

void fp16Sum(void* in, void* inout, int* length, MPI_Datatype*) {
    const auto* a = static_cast<const std::uint16_t*>(in);
    auto* b = static_cast<std::uint16_t*>(inout);
    for (int i = 0; i < *length; ++i) b[i] = floatToFp16(fp16ToFloat(a[i]) + fp16ToFloat(b[i]));
}

void bf16Sum(void* in, void* inout, int* length, MPI_Datatype*) {
    const auto* a = static_cast<const std::uint16_t*>(in);
    auto* b = static_cast<std::uint16_t*>(inout);
    for (int i = 0; i < *length; ++i) b[i] = floatToBf16(bf16ToFloat(a[i]) + bf16ToFloat(b[i]));
}

} // namespace

void createHalfSumOps(MPI_Op& fp16, MPI_Op& bf16) {
    SC_MPI_CHECK(MPI_Op_create(&fp16Sum, 1, &fp16));
    SC_MPI_CHECK(MPI_Op_create(&bf16Sum, 1, &bf16));
}

} // namespace stagecraft::runtime::cuda
