#include "plan/workload.h"

namespace stagecraft::runtime {
namespace {

/// Offsets of one layer's tensors inside its part of the activation buffer.
struct LayerTensors {
    std::uint64_t qkv, probs, attn, x2, h1, out;                // forward, saved for the backward
    std::uint64_t gradH1, gradX2, gradAttn, gradProbs, gradQkv; // backward, kept for W
    std::uint64_t size;
};

LayerTensors layerTensors(const StageShape& s) {
    const auto th = std::uint64_t(s.tokens() * s.hidden);
    const auto probs = std::uint64_t(s.microBatch * s.heads * s.seqLen * s.seqLen);
    LayerTensors t{};
    std::uint64_t at = 0;
    auto take = [&at](std::uint64_t n) {
        const std::uint64_t here = at;
        at += n;
        return here;
    };
    t.qkv = take(3 * th);
    t.probs = take(probs);
    t.attn = take(th);
    t.x2 = take(th);
    t.h1 = take(4 * th);
    t.out = take(th);
    t.gradH1 = take(4 * th);
    t.gradX2 = take(th);
    t.gradAttn = take(th);
    t.gradProbs = take(probs);
    t.gradQkv = take(3 * th);
    t.size = at;
    return t;
}

struct WeightOffsets {
    std::uint64_t qkv, o, w1, w2;
};

WeightOffsets layerWeights(const StageShape& s, std::int64_t layer) {
    const auto hh = std::uint64_t(s.hidden * s.hidden);
    const std::uint64_t base = std::uint64_t(layer) * 12 * hh;
    return {base, base + 3 * hh, base + 4 * hh, base + 8 * hh};
}

Gemm gemm(std::int64_t m, std::int64_t n, std::int64_t k, Operand a, Operand b, Operand c) {
    Gemm g;
    g.m = m;
    g.n = n;
    g.k = k;
    g.a = a;
    g.b = b;
    g.c = c;
    return g;
}

/// The same GEMM over the b·a attention heads, each a contiguous [s, d] or [s, s] block.
Gemm perHead(const StageShape& s, Gemm g, std::int64_t strideA, std::int64_t strideB, std::int64_t strideC) {
    g.batch = std::int32_t(s.microBatch * s.heads);
    g.strideA = strideA;
    g.strideB = strideB;
    g.strideC = strideC;
    return g;
}

/// Where layer `l`'s input X lives: the stage input for layer 0, the previous layer's output.
std::uint64_t layerInput(const ActivationLayout& a, const LayerTensors& t, std::int64_t l) {
    return l == 0 ? a.input : a.firstLayer + std::uint64_t(l - 1) * t.size + t.out;
}

/// Where the gradient of layer `l`'s output lives: the stage's output gradient for the last
/// layer; otherwise the [T, h] area each layer has after its tensors (activationLayout), which
/// layer l + 1's backward writes its input gradient into.
std::uint64_t gradOut(const StageShape& s, const ActivationLayout& a, const LayerTensors& t, std::int64_t l) {
    if (l + 1 == s.layers) return a.outputGrad;
    return a.firstLayer + std::uint64_t(l) * t.size + t.size - std::uint64_t(s.tokens() * s.hidden);
}

} // namespace

ActivationLayout activationLayout(const StageShape& s) {
    const auto th = std::uint64_t(s.tokens() * s.hidden);
    // Each layer's tensors plus one [T, h] input gradient handed to the layer below.
    const std::uint64_t perLayer = layerTensors(s).size + th;
    ActivationLayout a;
    a.input = 0;
    a.inputGrad = th;
    a.outputGrad = 2 * th;
    a.firstLayer = 3 * th;
    a.perLayer = perLayer;
    std::uint64_t end = a.firstLayer + std::uint64_t(s.layers) * perLayer;
    a.output = a.firstLayer + std::uint64_t(s.layers - 1) * perLayer + layerTensors(s).out;
    a.logits = end;
    if (s.vocab > 0) end += 2 * std::uint64_t(s.tokens() * s.vocab);
    a.elements = end;
    return a;
}

WeightLayout weightLayout(const StageShape& s) {
    WeightLayout w;
    w.perLayer = 12 * std::uint64_t(s.hidden * s.hidden);
    w.lmHead = std::uint64_t(s.layers) * w.perLayer;
    w.elements = w.lmHead + std::uint64_t(s.hidden * s.vocab);
    return w;
}

std::vector<Gemm> forwardGemms(const StageShape& s, const StageBuffers& buf) {
    const ActivationLayout a = activationLayout(s);
    LayerTensors t = layerTensors(s);
    t.size = a.perLayer;
    const std::int64_t T = s.tokens(), h = s.hidden, d = s.headDim(), sq = s.seqLen;
    const std::int64_t sd = sq * d, ss = sq * sq;
    auto act = [&](std::uint64_t at) { return Operand{buf.activations, at}; };
    auto wt = [&](std::uint64_t at) { return Operand{buf.weights, at}; };
    std::vector<Gemm> out;
    for (std::int64_t l = 0; l < s.layers; ++l) {
        const std::uint64_t base = a.firstLayer + std::uint64_t(l) * t.size;
        const WeightOffsets w = layerWeights(s, l);
        const std::uint64_t q = base + t.qkv, k = q + std::uint64_t(T * h), v = k + std::uint64_t(T * h);
        out.push_back(gemm(T, 3 * h, h, act(layerInput(a, t, l)), wt(w.qkv), act(base + t.qkv)));
        Gemm scores = gemm(sq, sq, d, act(q), act(k), act(base + t.probs)); // Q K^T
        scores.transB = true;
        out.push_back(perHead(s, scores, sd, sd, ss));
        out.push_back(
            perHead(s, gemm(sq, d, sq, act(base + t.probs), act(v), act(base + t.attn)), ss, sd, sd));
        out.push_back(gemm(T, h, h, act(base + t.attn), wt(w.o), act(base + t.x2)));
        out.push_back(gemm(T, 4 * h, h, act(base + t.x2), wt(w.w1), act(base + t.h1)));
        out.push_back(gemm(T, h, 4 * h, act(base + t.h1), wt(w.w2), act(base + t.out)));
    }
    if (s.vocab > 0) {
        const WeightLayout wl = weightLayout(s);
        out.push_back(gemm(T, s.vocab, h, act(a.output), wt(wl.lmHead), act(a.logits)));
    }
    return out;
}

std::vector<Gemm> backwardGemms(const StageShape& s, const StageBuffers& buf, bool withWeightGrad) {
    const ActivationLayout a = activationLayout(s);
    LayerTensors t = layerTensors(s);
    t.size = a.perLayer;
    const std::int64_t T = s.tokens(), h = s.hidden, d = s.headDim(), sq = s.seqLen;
    const std::int64_t sd = sq * d, ss = sq * sq;
    auto act = [&](std::uint64_t at) { return Operand{buf.activations, at}; };
    auto wt = [&](std::uint64_t at) { return Operand{buf.weights, at}; };
    std::vector<Gemm> out;
    if (s.vocab > 0) { // dOutput = dLogits · Wlm^T; dLogits is the loss gradient, already in place
        const WeightLayout wl = weightLayout(s);
        Gemm g =
            gemm(T, h, s.vocab, act(a.logits + std::uint64_t(T * s.vocab)), wt(wl.lmHead), act(a.outputGrad));
        g.transB = true;
        out.push_back(g);
    }
    for (std::int64_t l = s.layers - 1; l >= 0; --l) {
        const std::uint64_t base = a.firstLayer + std::uint64_t(l) * t.size;
        const WeightOffsets w = layerWeights(s, l);
        const std::uint64_t q = base + t.qkv, k = q + std::uint64_t(T * h), v = k + std::uint64_t(T * h);
        const std::uint64_t gq = base + t.gradQkv, gk = gq + std::uint64_t(T * h),
                            gv = gk + std::uint64_t(T * h);
        const std::uint64_t dOut = gradOut(s, a, t, l);
        const std::uint64_t dIn = l == 0 ? a.inputGrad : gradOut(s, a, t, l - 1);
        auto transB = [](Gemm g) {
            g.transB = true;
            return g;
        };
        auto transA = [](Gemm g) {
            g.transA = true;
            return g;
        };
        out.push_back(transB(gemm(T, 4 * h, h, act(dOut), wt(w.w2), act(base + t.gradH1))));
        out.push_back(transB(gemm(T, h, 4 * h, act(base + t.gradH1), wt(w.w1), act(base + t.gradX2))));
        out.push_back(transB(gemm(T, h, h, act(base + t.gradX2), wt(w.o), act(base + t.gradAttn))));
        out.push_back(perHead(
            s, transB(gemm(sq, sq, d, act(base + t.gradAttn), act(v), act(base + t.gradProbs))), sd, sd, ss));
        out.push_back(perHead(
            s, transA(gemm(sq, d, sq, act(base + t.probs), act(base + t.gradAttn), act(gv))), ss, sd, sd));
        out.push_back(perHead(s, gemm(sq, d, sq, act(base + t.gradProbs), act(k), act(gq)), ss, sd, sd));
        out.push_back(
            perHead(s, transA(gemm(sq, d, sq, act(base + t.gradProbs), act(q), act(gk))), ss, sd, sd));
        out.push_back(transB(gemm(T, h, 3 * h, act(base + t.gradQkv), wt(w.qkv), act(dIn))));
    }
    if (withWeightGrad) {
        std::vector<Gemm> w = weightGradGemms(s, buf);
        out.insert(out.end(), w.begin(), w.end());
    }
    return out;
}

std::vector<Gemm> weightGradGemms(const StageShape& s, const StageBuffers& buf) {
    const ActivationLayout a = activationLayout(s);
    LayerTensors t = layerTensors(s);
    t.size = a.perLayer;
    const std::int64_t T = s.tokens(), h = s.hidden;
    auto act = [&](std::uint64_t at) { return Operand{buf.activations, at}; };
    auto grad = [&](std::uint64_t at) { return Operand{buf.grads, at}; };
    auto dW = [](std::int64_t m, std::int64_t n, std::int64_t k, Operand x, Operand dy, Operand c) {
        Gemm g = gemm(m, n, k, x, dy, c); // dW = X^T dY, accumulated over micro-batches
        g.transA = true;
        g.accumulate = true;
        return g;
    };
    std::vector<Gemm> out;
    for (std::int64_t l = s.layers - 1; l >= 0; --l) {
        const std::uint64_t base = a.firstLayer + std::uint64_t(l) * t.size;
        const WeightOffsets w = layerWeights(s, l);
        out.push_back(dW(4 * h, h, T, act(base + t.h1), act(gradOut(s, a, t, l)), grad(w.w2)));
        out.push_back(dW(h, 4 * h, T, act(base + t.x2), act(base + t.gradH1), grad(w.w1)));
        out.push_back(dW(h, h, T, act(base + t.attn), act(base + t.gradX2), grad(w.o)));
        out.push_back(dW(h, 3 * h, T, act(layerInput(a, t, l)), act(base + t.gradQkv), grad(w.qkv)));
    }
    if (s.vocab > 0) {
        const WeightLayout wl = weightLayout(s);
        out.push_back(
            dW(h, s.vocab, T, act(a.output), act(a.logits + std::uint64_t(T * s.vocab)), grad(wl.lmHead)));
    }
    return out;
}

Axpy optimizerStep(const StageShape& s, const StageBuffers& buf) {
    Axpy step;
    step.n = weightLayout(s).elements;
    step.alpha = -1e-6f;
    step.x = {buf.grads, 0};
    step.y = {buf.weights, 0};
    return step;
}

double gemmFlops(const std::vector<Gemm>& gemms) {
    double flops = 0;
    for (const Gemm& g : gemms) flops += 2.0 * double(g.m) * double(g.n) * double(g.k) * double(g.batch);
    return flops;
}

} // namespace stagecraft::runtime
