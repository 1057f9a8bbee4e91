#pragma once
// Transformer arithmetic shared by the cost and memory models: FLOPs, parameters and activation
// bytes of one layer, the split of layers into stages, and bytes of the tensors that cross
// pipeline and data-parallel links. Formulas from the zero-bubble paper (Table 1) and
// Megatron-LM's memory accounting; every quantity is per GPU (tensor parallelism divides it).

#include <vector>

namespace stagecraft {

/// The numbers of the model and of one micro-batch that the formulas need.
struct TransformerShape {
    int layers = 0;
    double hidden = 0;     ///< h
    double heads = 0;      ///< a
    double seqLen = 0;     ///< s
    double vocab = 0;      ///< V
    double microBatch = 0; ///< b
    double dtypeBytes = 2; ///< 2 for fp16/bf16, 4 for fp32
    int tp = 1;            ///< tensor-parallel degree (divides FLOPs, parameters, activations)
};

/// Forward FLOPs of one layer for one micro-batch: s·b·h·(24h + 4s) (ZB Table 1), per GPU.
double layerForwardFlops(const TransformerShape& t);
/// Input-gradient FLOPs: s·b·h·(24h + 8s).
double layerBackwardInputFlops(const TransformerShape& t);
/// Weight-gradient FLOPs: 24·s·b·h².
double layerBackwardWeightFlops(const TransformerShape& t);
/// LM head (logits) forward FLOPs: 2·s·b·h·V; its input and weight gradients cost the same each.
double lmHeadFlops(const TransformerShape& t);

/// Parameters of one layer per GPU: 12h² + 13h (attention and MLP weights and biases, two
/// layer norms), divided by tp.
double layerParams(const TransformerShape& t);
/// Embedding table parameters per GPU: V·h / tp (one copy on the first stage, one on the last:
/// input embedding and untied LM head).
double embeddingParams(const TransformerShape& t);

/// Activation bytes one micro-batch keeps per layer until its backward: M_B = s·b·h·(34 + 5as/h)
/// for 2-byte types (scaled for fp32), divided by tp (sequence parallelism).
double layerActivationBytes(const TransformerShape& t);
/// Part of M_B that must stay until the weight gradient (W) runs: M_W = 32·s·b·h (2-byte types).
double layerWeightGradActivationBytes(const TransformerShape& t);

/// Bytes of the activation (or its gradient) one micro-batch sends between pipeline stages:
/// s·b·h·dtype, scattered over tp ranks.
double boundaryBytes(const TransformerShape& t);

/// Ring all-reduce of `bytes` over `ranks` ranks: 2(n-1)/n · bytes / bandwidth + 2(n-1) · latency.
double ringAllReduceUs(double bytes, int ranks, double bytesPerUs, double latencyUs);
/// Ring reduce-scatter or all-gather: (n-1)/n · bytes / bandwidth + (n-1) · latency.
double ringReduceScatterUs(double bytes, int ranks, double bytesPerUs, double latencyUs);

} // namespace stagecraft
