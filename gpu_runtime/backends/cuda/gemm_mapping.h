#pragma once
// How a row-major Gemm (exec/device_layer.h) becomes one column-major cuBLAS call, and which
// element ranges its operands span. Pure C++ so that the mapping is tested on the host against
// a naive GEMM.
//
// A row-major r x c matrix with leading dimension c is, read column-major, its c x r transpose.
// So C = op(A)·op(B) (row-major, m x n) is computed as C^T = op(B)^T · op(A)^T (column-major,
// n x m): cuBLAS's first operand is our B and its second our A, each keeping its transpose flag,
// with cuBLAS dimensions (n, m, k) and the row-major leading dimensions.

#include "exec/device_layer.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace stagecraft::runtime::cuda {

/// Arguments of cublasGemmEx / cublasGemmStridedBatchedEx (column-major).
struct ColumnMajorGemm {
    bool transFirst = false;  ///< op of cuBLAS's A, which is our B
    bool transSecond = false; ///< op of cuBLAS's B, which is our A
    std::int64_t m = 0, n = 0, k = 0;
    std::int64_t ldFirst = 1, ldSecond = 1, ldC = 1;
    std::int64_t strideFirst = 0, strideSecond = 0, strideC = 0;
    std::int32_t batch = 1;
};

inline ColumnMajorGemm toColumnMajor(const Gemm& g) {
    ColumnMajorGemm c;
    c.transFirst = g.transB;
    c.transSecond = g.transA;
    c.m = g.n;
    c.n = g.m;
    c.k = g.k;
    // Row-major B is k x n (leading dimension n), or n x k when transposed (leading dimension k);
    // row-major A is m x k (k), or k x m (m). cuBLAS wants leading dimensions of at least 1.
    c.ldFirst = std::max<std::int64_t>(1, g.transB ? g.k : g.n);
    c.ldSecond = std::max<std::int64_t>(1, g.transA ? g.m : g.k);
    c.ldC = std::max<std::int64_t>(1, g.n);
    c.strideFirst = g.strideB;
    c.strideSecond = g.strideA;
    c.strideC = g.strideC;
    c.batch = g.batch;
    return c;
}

/// Elements from an operand's start to the end of its last matrix: (batch - 1) · stride + rows · cols.
inline std::uint64_t operandExtent(std::int64_t rows, std::int64_t cols, std::int64_t stride,
                                   std::int32_t batch) {
    const std::uint64_t matrix = std::uint64_t(rows) * std::uint64_t(cols);
    if (matrix == 0) return 0;
    return std::uint64_t(batch - 1) * std::uint64_t(stride) + matrix;
}
inline std::uint64_t extentA(const Gemm& g) {
    return operandExtent(g.m, g.k, g.strideA, g.batch);
}
inline std::uint64_t extentB(const Gemm& g) {
    return operandExtent(g.k, g.n, g.strideB, g.batch);
}
inline std::uint64_t extentC(const Gemm& g) {
    return operandExtent(g.m, g.n, g.strideC, g.batch);
}

/// Why cuBLAS cannot run `g` as given, or "" when it can. cuBLAS takes 32-bit dimensions, and
/// batches whose C matrices overlap would race with each other.
inline std::string gemmProblem(const Gemm& g) {
    constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
    if (g.m < 0 || g.n < 0 || g.k < 0)
        return "negative dimension (m " + std::to_string(g.m) + ", n " + std::to_string(g.n) + ", k " +
               std::to_string(g.k) + ")";
    if (g.m > kIntMax || g.n > kIntMax || g.k > kIntMax) return "a dimension exceeds cuBLAS's 32-bit range";
    if (g.batch < 1) return "batch " + std::to_string(g.batch) + " is below 1";
    if (g.strideA < 0 || g.strideB < 0 || g.strideC < 0) return "negative batch stride";
    if (g.batch > 1 && g.strideC < g.m * g.n)
        return "strideC " + std::to_string(g.strideC) + " is smaller than one C matrix (" +
               std::to_string(g.m * g.n) + " elements): the batches would overwrite each other";
    return {};
}

} // namespace stagecraft::runtime::cuda
