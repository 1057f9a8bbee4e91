#include "sim/transformer_math.h"

namespace stagecraft {

namespace {
double perGpu(const TransformerShape& t, double value) {
    return value / double(t.tp < 1 ? 1 : t.tp);
}
double dtypeScale(const TransformerShape& t) {
    return t.dtypeBytes / 2.0;
}
} // namespace

double layerForwardFlops(const TransformerShape& t) {
    return perGpu(t, t.seqLen * t.microBatch * t.hidden * (24.0 * t.hidden + 4.0 * t.seqLen));
}

double layerBackwardInputFlops(const TransformerShape& t) {
    return perGpu(t, t.seqLen * t.microBatch * t.hidden * (24.0 * t.hidden + 8.0 * t.seqLen));
}

double layerBackwardWeightFlops(const TransformerShape& t) {
    return perGpu(t, 24.0 * t.seqLen * t.microBatch * t.hidden * t.hidden);
}

double lmHeadFlops(const TransformerShape& t) {
    return perGpu(t, 2.0 * t.seqLen * t.microBatch * t.hidden * t.vocab);
}

double layerParams(const TransformerShape& t) {
    return perGpu(t, 12.0 * t.hidden * t.hidden + 13.0 * t.hidden);
}

double embeddingParams(const TransformerShape& t) {
    return perGpu(t, t.vocab * t.hidden);
}

double layerActivationBytes(const TransformerShape& t) {
    const double sbh = t.seqLen * t.microBatch * t.hidden;
    return perGpu(t, sbh * (34.0 + 5.0 * t.heads * t.seqLen / t.hidden) * dtypeScale(t));
}

double layerWeightGradActivationBytes(const TransformerShape& t) {
    return perGpu(t, 32.0 * t.seqLen * t.microBatch * t.hidden * dtypeScale(t));
}

double boundaryBytes(const TransformerShape& t) {
    return perGpu(t, t.seqLen * t.microBatch * t.hidden * t.dtypeBytes);
}

double ringAllReduceUs(double bytes, int ranks, double bytesPerUs, double latencyUs) {
    if (ranks <= 1) return 0.0;
    const double n = ranks;
    return 2.0 * (n - 1.0) / n * bytes / bytesPerUs + 2.0 * (n - 1.0) * latencyUs;
}

double ringReduceScatterUs(double bytes, int ranks, double bytesPerUs, double latencyUs) {
    if (ranks <= 1) return 0.0;
    const double n = ranks;
    return (n - 1.0) / n * bytes / bytesPerUs + (n - 1.0) * latencyUs;
}

} // namespace stagecraft
