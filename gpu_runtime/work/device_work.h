#pragma once
// The value types of device work that both the plan (plan/workload.h builds a stage's GEMMs and
// its optimizer step) and the executor (exec/device_layer.h runs them) speak: buffers, requests,
// operands, GEMMs and AXPYs. Below both, so that neither includes the other for them.

#include <cstdint>

namespace stagecraft::runtime {

using Buffer = std::int32_t;  ///< a buffer the layer owns; -1: none
using Request = std::int32_t; ///< a posted transfer or collective; -1: none

/// A place in a buffer, in elements of the layer's element type.
struct Operand {
    Buffer buffer = -1;
    std::uint64_t offset = 0;
};

/// C = op(A) · op(B) (+ C when `accumulate`), `batch` times with the given element strides:
/// row-major, A is m x k (k x m when transA), B is k x n (n x k when transB), C is m x n.
struct Gemm {
    std::int64_t m = 0, n = 0, k = 0;
    bool transA = false, transB = false;
    bool accumulate = false;
    std::int32_t batch = 1;
    std::int64_t strideA = 0, strideB = 0, strideC = 0;
    Operand a, b, c;
};

/// y += alpha · x over n elements (the optimizer step: weights -= lr · gradients).
struct Axpy {
    std::uint64_t n = 0;
    float alpha = 0;
    Operand x, y;
};

} // namespace stagecraft::runtime
