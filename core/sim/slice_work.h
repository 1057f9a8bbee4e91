#pragma once
// How a micro-batch's sequence is cut into k slices (Seq1F1B, TeraPipe), and what each slice then
// costs. Causal attention makes a slice's work grow with its position: a slice of s tokens ending
// at token P attends to every token before it, s·P − s²/2 query-key pairs, while its projections
// and MLP grow with s alone. An equal split in tokens therefore gives later slices more work; an
// equal split in work (thunlp's computation-wise partition) gives earlier slices more tokens.

#include <vector>

namespace stagecraft {

/// Slice lengths of an equal split of `seqLen` tokens; the first `seqLen % slices` slices hold one
/// more token. Needs 1 <= slices <= seqLen.
std::vector<int> uniformSliceLengths(int seqLen, int slices);

/// Slice lengths of equal work, where `attentionShare` of the whole sequence's work is attention
/// (0 <= share < 1) and the rest grows linearly with tokens. From the last slice backwards, each
/// takes the most tokens whose work is at most 1/k of the total, rounded down to a multiple of
/// `multiple`; the first slice takes the rest (thunlp's `uniform_comp`, for causal kernels). With
/// `denseKernels` a slice's attention is its rectangle s·P and the total depends on the cut: the
/// rule is repeated with 1/k of the last cut's total until the cut stays. Returns an empty vector
/// when a slice would hold no token (more slices than the sequence can give).
std::vector<int> balancedSliceLengths(int seqLen, int slices, double attentionShare, int multiple = 1,
                                      bool denseKernels = false);

/// Each slice's work relative to 1/k of the whole sequence's work done at once: the linear part in
/// proportion to its tokens, the attention part to the query-key pairs it computes. Causal kernels
/// compute the s·P − s²/2 pairs under the diagonal, which add up to the sequence's: the factors
/// average 1. Dense kernels (`denseKernels`) compute each slice's queries against every key so far,
/// the rectangle s·P, the mask applied after: the factors average (1 − share) + share · Σ s·P / L²,
/// (k + 1) / 2k of the attention for k even slices, less than the whole square at once.
std::vector<double> relativeSliceWork(const std::vector<int>& lengths, double attentionShare,
                                      bool denseKernels = false);

} // namespace stagecraft
