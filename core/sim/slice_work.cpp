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

std::vector<int> balancedSliceLengths(int seqLen, int slices, double attentionShare, int multiple,
                                      bool denseKernels) {
    if (slices < 1 || seqLen < slices || multiple < 1) return {};
    const double L = seqLen, rho = std::clamp(attentionShare, 0.0, 1.0);
    // From the last slice backwards, each the most tokens whose work is at most `target`; the
    // first the rest. Empty when a slice would hold no token.
    const auto cut = [&](double target) {
        std::vector<int> lengths(std::size_t(slices), 0);
        double end = L;
        for (int q = slices - 1; q > 0; --q) {
            // Causal: workShare(s, end) = target is a quadratic in s, -(rho/L²) s² + ((1-rho)/L +
            // 2 rho end/L²) s - target = 0, whose smaller root is written 2c / (b + sqrt(...)) so
            // that it stays exact as rho goes to 0 (no attention: s = L/k). Dense: linear in s.
            const double a = denseKernels ? 0.0 : rho / (L * L);
            const double b = (1.0 - rho) / L + (denseKernels ? 1.0 : 2.0) * rho * end / (L * L);
            const double s = 2.0 * target / (b + std::sqrt(std::max(0.0, b * b - 4.0 * a * target)));
            const int tokens = int(std::floor(s + 1e-9)) / multiple * multiple;
            if (tokens < 1) return std::vector<int>{};
            lengths[std::size_t(q)] = tokens;
            end -= tokens;
        }
        if (end < 1) return std::vector<int>{};
        lengths[0] = int(end);
        return lengths;
    };
    if (!denseKernels) return cut(1.0 / slices); // the slices' causal work adds up to the sequence's
    // Dense kernels: the slices' work adds up to less than the sequence's, by an amount the cut
    // decides; the target is 1/k of what the last cut adds up to, until the cut stays.
    const auto total = [&](const std::vector<int>& lengths) {
        double sum = 0, end = 0;
        for (const int s : lengths) sum += workShare(s, end += s, L, rho, true);
        return sum;
    };
    std::vector<int> lengths = uniformSliceLengths(seqLen, slices);
    for (int round = 0; round < 64 && !lengths.empty(); ++round) {
        std::vector<int> next = cut(total(lengths) / slices);
        if (next == lengths) break;
        lengths = std::move(next);
    }
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
