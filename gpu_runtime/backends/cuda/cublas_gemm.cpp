#include "backends/cuda/cublas_gemm.h"

#include "backends/cuda/gemm_mapping.h"

#include <cstdio>

namespace stagecraft::runtime::cuda {
namespace {

// cuBLAS's recommended workspace for Hopper (4 MiB suffices before it). Given explicitly so that
// cuBLAS never allocates one itself in the middle of an iteration (see device_buffers.h on why
// allocations there are dangerous).
constexpr std::size_t kWorkspaceBytes = std::size_t(32) << 20;

cudaDataType cudaType(DType type) {
    switch (type) {
    case DType::F32:
        return CUDA_R_32F;
    case DType::F16:
        return CUDA_R_16F;
    case DType::BF16:
        return CUDA_R_16BF;
    }
    return CUDA_R_32F;
}

cublasOperation_t op(bool transpose) {
    return transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
}

} // namespace

CublasGemm::CublasGemm(cudaStream_t stream) {
    SC_CUBLAS_CHECK(cublasCreate(&m_handle));
    try {
        SC_CUDA_CHECK(cudaMalloc(&m_workspace, kWorkspaceBytes));
        SC_CUBLAS_CHECK(cublasSetStream(m_handle, stream)); // resets the workspace: set it after
        SC_CUBLAS_CHECK(cublasSetWorkspace(m_handle, m_workspace, kWorkspaceBytes));
    } catch (...) {
        if (m_workspace) cudaFree(m_workspace);
        cublasDestroy(m_handle);
        throw;
    }
}

CublasGemm::~CublasGemm() {
    if (m_handle && cublasDestroy(m_handle) != CUBLAS_STATUS_SUCCESS)
        std::fprintf(stderr, "stagecraft cuda: cublasDestroy failed [%s]\n", errorContext().c_str());
    if (m_workspace) SC_CUDA_LOG(cudaFree(m_workspace));
}

std::string CublasGemm::version() const {
    int v = 0;
    if (cublasGetVersion(m_handle, &v) != CUBLAS_STATUS_SUCCESS) return "cuBLAS";
    return "cuBLAS " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
           std::to_string(v % 100);
}

void CublasGemm::run(const Gemm& gemm, const void* a, const void* b, void* c, DType type) {
    if (gemm.m == 0 || gemm.n == 0) return; // C is empty
    const ColumnMajorGemm g = toColumnMajor(gemm);
    const float alpha = 1.0f;
    const float beta = gemm.accumulate ? 1.0f : 0.0f;
    const cudaDataType t = cudaType(type);
    if (g.batch == 1) {
        SC_CUBLAS_CHECK(cublasGemmEx(m_handle, op(g.transFirst), op(g.transSecond), int(g.m), int(g.n),
                                     int(g.k), &alpha, b, t, int(g.ldFirst), a, t, int(g.ldSecond), &beta, c,
                                     t, int(g.ldC), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    } else {
        SC_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
            m_handle, op(g.transFirst), op(g.transSecond), int(g.m), int(g.n), int(g.k), &alpha, b, t,
            int(g.ldFirst), g.strideFirst, a, t, int(g.ldSecond), g.strideSecond, &beta, c, t, int(g.ldC),
            g.strideC, g.batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }
}

} // namespace stagecraft::runtime::cuda
