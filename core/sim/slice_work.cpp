#include "sim/slice_work.h"

#include <algorithm>
#include <cmath>

namespace stagecraft {

namespace {

/// Work of `tokens` ending at token `end`, as a fraction of the whole sequence's work (causal
/// kernels: of its causal pairs; dense kernels: of its whole square).
double workShare(double tokens, double end, double seqLen, double attentionShare, bool denseKernels = false) {
    if (denseKernels) // the slice's queries against every key so far
        return (1.0 - attentionShare) * tokens / seqLen + attentionShare * tokens * end / (seqLen * seqLen);
    const double pairs = tokens * end - tokens * tokens / 2.0; // causal pairs the slice computes
    return (1.0 - attentionShare) * tokens / seqLen + attentionShare * pairs / (seqLen * seqLen / 2.0);
}

} // namespace

std::vector<int> uniformSliceLengths(int seqLen, int slices) {
    if (slices < 1 || seqLen < slices) return {};
    std::vector<int> lengths(std::size_t(slices), seqLen / slices);
    for (int q = 0; q < seqLen % slices; ++q) ++lengths[std::size_t(q)];
    return lengths;
}

std::vector<int> balancedSliceLengths(int seqLen, int slices, double attentionShare, int multiple) {
    if (slices < 1 || seqLen < slices || multiple < 1) return {};
    const double L = seqLen, rho = std::clamp(attentionShare, 0.0, 1.0);
    std::vector<int> lengths(std::size_t(slices), 0);
    double end = L;
    for (int q = slices - 1; q > 0; --q) {
        // workShare(s, end) = 1/k is a quadratic in s: -(rho/L²) s² + ((1-rho)/L + 2 rho end/L²) s
        // - 1/k = 0; the smaller root is the slice that ends at `end`, written 2c / (b + sqrt(...))
        // so that it stays exact as rho goes to 0 (no attention: s = L/k).
        const double a = rho / (L * L), b = (1.0 - rho) / L + 2.0 * rho * end / (L * L), c = 1.0 / slices;
        const double s = 2.0 * c / (b + std::sqrt(std::max(0.0, b * b - 4.0 * a * c)));
        const int tokens = int(std::floor(s + 1e-9)) / multiple * multiple;
        if (tokens < 1) return {};
        lengths[std::size_t(q)] = tokens;
        end -= tokens;
    }
    if (end < 1) return {};
    lengths[0] = int(end);
    return lengths;
}

std::vector<double> relativeSliceWork(const std::vector<int>& lengths, double attentionShare,
                                      bool denseKernels) {
    double total = 0;
    for (const int s : lengths) total += s;
    std::vector<double> out;
    out.reserve(lengths.size());
    double end = 0;
    for (const int s : lengths) {
        end += s;
        out.push_back(double(lengths.size()) * workShare(s, end, total, attentionShare, denseKernels));
    }
    return out;
}

} // namespace stagecraft
