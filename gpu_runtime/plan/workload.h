#pragma once
// The `model` workload: a synthetic transformer stage sized from the project, as GEMMs on real
// buffers. Per layer the forward runs the GEMMs of QKV, the two attention products, the output
// projection and the MLP (Y = X W); the input gradient their transposes (dX = dY W^T) and the
// attention backward; the weight gradient dW = X^T dY. The last stage adds the LM head. The
// GEMM FLOPs equal the cost model's formulas (core/sim/transformer_math.h) exactly, so a
// measured F/B/W time can be held against the analytic prediction op by op.
//
// Buffers, in elements of the backend's type: the weights (and their gradients) of every stage a
// rank holds live for the whole run; one activation buffer per (stage, micro-batch) lives from
// its first instruction to its last (the received input, every layer's saved activations and
// gradients, the output a SEND_F sends and the input gradient a SEND_B sends), so the measured
// memory follows the schedule.
//
// Sequence slices (Seq1F1B, TeraPipe): each slice of a micro-batch has its own activation buffer,
// and the micro-batch one more on the stage, its keys and values (per layer K, V and their
// gradients, [L·b, h] each), which every slice's attention needs: slice q of s tokens ending at
// token P writes its K and V rows [P - s, P) and attends to rows [0, P), the rectangle s x P that
// dense kernels compute. Its backward adds to dK and dV rows [0, P) (the micro-batch's last slice,
// whose backward runs first, writes them) and reads its own rows back for its input and weight
// gradients, complete by then (every later slice's backward ran). Q, K and V are three GEMMs
// there, on the three h x h blocks of Wqkv.

#include "work/device_work.h"

#include <cstdint>
#include <vector>

namespace stagecraft::runtime {

/// Sizes of one stage's work for one micro-batch.
struct StageShape {
    std::int64_t layers = 1;
    std::int64_t hidden = 64;    ///< h
    std::int64_t heads = 4;      ///< a (divides h)
    std::int64_t seqLen = 32;    ///< s
    std::int64_t microBatch = 1; ///< b
    std::int64_t vocab = 0;      ///< V of the LM head on the last stage; 0 elsewhere
    /// A sequence slice: `seqLen` is its tokens, `keysEnd` the micro-batch's tokens up to its end
    /// (P), `wholeSeqLen` the micro-batch's (L), `lastSlice` whether it ends the micro-batch.
    /// keysEnd 0: the whole micro-batch at once.
    std::int64_t keysEnd = 0;
    std::int64_t wholeSeqLen = 0;
    bool lastSlice = false;

    std::int64_t tokens() const { return seqLen * microBatch; }
    std::int64_t headDim() const { return hidden / heads; }
    bool sliced() const { return keysEnd > 0; }
    /// The keys each query attends to: every token of the micro-batch so far.
    std::int64_t keys() const { return sliced() ? keysEnd : seqLen; }
};

/// The shape of slice `slice` of a micro-batch cut into `lengths` tokens (in order).
StageShape sliceShape(const StageShape& whole, const std::vector<int>& lengths, int slice);

/// Elements of a sliced micro-batch's key-value buffer on the stage: per layer K, V, dK and dV of
/// the whole sequence; 0 for a shape that is not a slice.
std::uint64_t keyValueElements(const StageShape& shape);

/// Where each tensor of one (stage, micro-batch) lives inside its activation buffer.
struct ActivationLayout {
    std::uint64_t input = 0;      ///< [T, h] received activation (or the embedded tokens)
    std::uint64_t inputGrad = 0;  ///< [T, h] the input gradient B produces and SEND_B sends
    std::uint64_t output = 0;     ///< [T, h] the last layer's output that SEND_F sends
    std::uint64_t outputGrad = 0; ///< [T, h] the received gradient of `output`
    std::uint64_t firstLayer = 0; ///< where layer 0's tensors begin
    std::uint64_t perLayer = 0;   ///< elements of one layer's tensors
    std::uint64_t logits = 0;     ///< [T, V] and its gradient after it (last stage only)
    std::uint64_t elements = 0;   ///< the whole buffer
};

/// Where each weight lives inside the stage's weight buffer (its gradient buffer has the same
/// layout).
struct WeightLayout {
    std::uint64_t perLayer = 0; ///< Wqkv [h,3h], Wo [h,h], W1 [h,4h], W2 [4h,h]
    std::uint64_t lmHead = 0;   ///< [h, V] on the last stage
    std::uint64_t elements = 0;
};

ActivationLayout activationLayout(const StageShape& shape);
WeightLayout weightLayout(const StageShape& shape);

/// The buffers one op of the stage works on.
struct StageBuffers {
    Buffer activations = -1; ///< this (stage, micro-batch)'s, or this slice's
    Buffer weights = -1;
    Buffer grads = -1;
    Buffer keysValues = -1; ///< a slice's micro-batch's keys and values (sliced shapes only)
};

/// The GEMMs of the forward, of the input gradient (`withWeightGrad`: also the weight gradient,
/// for schedules that do not split the backward) and of the weight gradient.
std::vector<Gemm> forwardGemms(const StageShape& shape, const StageBuffers& buffers);
std::vector<Gemm> backwardGemms(const StageShape& shape, const StageBuffers& buffers, bool withWeightGrad);
std::vector<Gemm> weightGradGemms(const StageShape& shape, const StageBuffers& buffers);

/// The optimizer step of the stage: weights -= lr · gradients.
Axpy optimizerStep(const StageShape& shape, const StageBuffers& buffers);

/// 2·m·n·k·batch summed.
double gemmFlops(const std::vector<Gemm>& gemms);

} // namespace stagecraft::runtime
