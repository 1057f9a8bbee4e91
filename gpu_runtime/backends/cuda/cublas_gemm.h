#pragma once
// The model workload's GEMMs on the compute stream: one cuBLAS call per Gemm (strided batched when
// batch > 1) in the layer's element type with fp32 accumulation (CUBLAS_COMPUTE_32F; fp32 stays
// true fp32, no TF32). The row-major to column-major mapping is in gemm_mapping.h.

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/dtype.h"
#include "exec/device_layer.h"

#include <string>

namespace stagecraft::runtime::cuda {

class CublasGemm {
  public:
    explicit CublasGemm(cudaStream_t stream);
    ~CublasGemm();
    CublasGemm(const CublasGemm&) = delete;
    CublasGemm& operator=(const CublasGemm&) = delete;

    /// Enqueues C = op(A)·op(B) (+ C when accumulating). The caller has checked gemmProblem and
    /// the operands' extents.
    void run(const Gemm& gemm, const void* a, const void* b, void* c, DType type);
    /// "cuBLAS 13.0.2".
    std::string version() const;

  private:
    cublasHandle_t m_handle = nullptr;
    void* m_workspace = nullptr;
};

} // namespace stagecraft::runtime::cuda
