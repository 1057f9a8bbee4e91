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
    const auto probs = std::uint64_t(s.microBatch * s.heads * s.seqLen * s.keys());
    // A slice keeps its Q here; its K and V (and their gradients) are its micro-batch's.
    const std::uint64_t projections = s.sliced() ? 1 : 3;
    LayerTensors t{};
    std::uint64_t at = 0;
    auto take = [&at](std::uint64_t n) {
        const std::uint64_t here = at;
        at += n;
        return here;
    };
    t.qkv = take(projections * th);
    t.probs = take(probs);
    t.attn = take(th);
    t.x2 = take(th);
    t.h1 = take(4 * th);
    t.out = take(th);
    t.gradH1 = take(4 * th);
    t.gradX2 = take(th);
    t.gradAttn = take(th);
    t.gradProbs = take(probs);
    t.gradQkv = take(projections * th);
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

/// Where layer `l`'s K, V, dK and dV begin in a sliced micro-batch's key-value buffer, and where
/// the slice's own rows begin in each.
struct LayerKeysValues {
    std::uint64_t k, v, dk, dv, own;
};

LayerKeysValues layerKeysValues(const StageShape& s, std::int64_t l) {
    const auto whole = std::uint64_t(s.wholeSeqLen * s.microBatch * s.hidden);
    const std::uint64_t base = std::uint64_t(l) * 4 * whole;
    return {base, base + whole, base + 2 * whole, base + 3 * whole,
            std::uint64_t((s.keysEnd - s.seqLen) * s.microBatch * s.hidden)};
}

Gemm transposedA(Gemm g) {
    g.transA = true;
    return g;
}

Gemm transposedB(Gemm g) {
    g.transB = true;
    return g;
}

Gemm accumulated(Gemm g, bool accumulate = true) {
    g.accumulate = accumulate;
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
    const std::int64_t T = s.tokens(), h = s.hidden, d = s.headDim(), sq = s.seqLen, keys = s.keys();
    const std::int64_t sd = sq * d, sk = sq * keys, kd = keys * d;
    const auto hh = std::uint64_t(h * h);
    auto act = [&](std::uint64_t at) { return Operand{buf.activations, at}; };
    auto wt = [&](std::uint64_t at) { return Operand{buf.weights, at}; };
    auto kv = [&](std::uint64_t at) { return Operand{buf.keysValues, at}; };
    std::vector<Gemm> out;
    for (std::int64_t l = 0; l < s.layers; ++l) {
        const std::uint64_t base = a.firstLayer + std::uint64_t(l) * t.size;
        const WeightOffsets w = layerWeights(s, l);
        const std::uint64_t q = base + t.qkv;
        const Operand x = act(layerInput(a, t, l));
        Operand k = act(q + std::uint64_t(T * h)), v = act(q + 2 * std::uint64_t(T * h));
        if (s.sliced()) { // Q here; K and V into the micro-batch's rows [P - s, P)
            const LayerKeysValues m = layerKeysValues(s, l);
            out.push_back(gemm(T, h, h, x, wt(w.qkv), act(q)));
            out.push_back(gemm(T, h, h, x, wt(w.qkv + hh), kv(m.k + m.own)));
            out.push_back(gemm(T, h, h, x, wt(w.qkv + 2 * hh), kv(m.v + m.own)));
            k = kv(m.k);
            v = kv(m.v);
        } else {
            out.push_back(gemm(T, 3 * h, h, x, wt(w.qkv), act(q)));
        }
        // Q K^T against every key so far, then the probabilities times V.
        out.push_back(perHead(s, transposedB(gemm(sq, keys, d, act(q), k, act(base + t.probs))), sd, kd, sk));
        out.push_back(perHead(s, gemm(sq, d, keys, act(base + t.probs), v, act(base + t.attn)), sk, kd, sd));
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
    const std::int64_t T = s.tokens(), h = s.hidden, d = s.headDim(), sq = s.seqLen, keys = s.keys();
    const std::int64_t sd = sq * d, sk = sq * keys, kd = keys * d;
    const auto hh = std::uint64_t(h * h);
    auto act = [&](std::uint64_t at) { return Operand{buf.activations, at}; };
    auto wt = [&](std::uint64_t at) { return Operand{buf.weights, at}; };
    auto kv = [&](std::uint64_t at) { return Operand{buf.keysValues, at}; };
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
        const std::uint64_t q = base + t.qkv, gq = base + t.gradQkv;
        Operand k = act(q + std::uint64_t(T * h)), v = act(q + 2 * std::uint64_t(T * h));
        Operand gk = act(gq + std::uint64_t(T * h)), gv = act(gq + 2 * std::uint64_t(T * h));
        // A slice adds to its micro-batch's dK and dV over every key so far; the last slice, whose
        // backward comes first, writes them.
        const bool accumulate = s.sliced() && !s.lastSlice;
        LayerKeysValues m{};
        if (s.sliced()) {
            m = layerKeysValues(s, l);
            k = kv(m.k);
            v = kv(m.v);
            gk = kv(m.dk);
            gv = kv(m.dv);
        }
        const std::uint64_t dOut = gradOut(s, a, t, l);
        const std::uint64_t dIn = l == 0 ? a.inputGrad : gradOut(s, a, t, l - 1);
        out.push_back(transposedB(gemm(T, 4 * h, h, act(dOut), wt(w.w2), act(base + t.gradH1))));
        out.push_back(transposedB(gemm(T, h, 4 * h, act(base + t.gradH1), wt(w.w1), act(base + t.gradX2))));
        out.push_back(transposedB(gemm(T, h, h, act(base + t.gradX2), wt(w.o), act(base + t.gradAttn))));
        out.push_back(
            perHead(s, transposedB(gemm(sq, keys, d, act(base + t.gradAttn), v, act(base + t.gradProbs))), sd,
                    kd, sk));
        out.push_back(perHead(
            s,
            accumulated(transposedA(gemm(keys, d, sq, act(base + t.probs), act(base + t.gradAttn), gv)),
                        accumulate),
            sk, sd, kd));
        out.push_back(perHead(s, gemm(sq, d, keys, act(base + t.gradProbs), k, act(gq)), sk, kd, sd));
        out.push_back(perHead(
            s, accumulated(transposedA(gemm(keys, d, sq, act(base + t.gradProbs), act(q), gk)), accumulate),
            sk, sd, kd));
        if (s.sliced()) { // dX = dQ Wq^T + dK Wk^T + dV Wv^T over the slice's own rows
            out.push_back(transposedB(gemm(T, h, h, act(gq), wt(w.qkv), act(dIn))));
            out.push_back(
                accumulated(transposedB(gemm(T, h, h, kv(m.dk + m.own), wt(w.qkv + hh), act(dIn)))));
            out.push_back(
                accumulated(transposedB(gemm(T, h, h, kv(m.dv + m.own), wt(w.qkv + 2 * hh), act(dIn)))));
        } else {
            out.push_back(transposedB(gemm(T, h, 3 * h, act(gq), wt(w.qkv), act(dIn))));
        }
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
    const auto hh = std::uint64_t(h * h);
    auto act = [&](std::uint64_t at) { return Operand{buf.activations, at}; };
    auto grad = [&](std::uint64_t at) { return Operand{buf.grads, at}; };
    auto kv = [&](std::uint64_t at) { return Operand{buf.keysValues, at}; };
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
        const Operand x = act(layerInput(a, t, l));
        if (s.sliced()) { // the slice's own rows of dK and dV, complete once its backward ran
            const LayerKeysValues m = layerKeysValues(s, l);
            out.push_back(dW(h, h, T, x, act(base + t.gradQkv), grad(w.qkv)));
            out.push_back(dW(h, h, T, x, kv(m.dk + m.own), grad(w.qkv + hh)));
            out.push_back(dW(h, h, T, x, kv(m.dv + m.own), grad(w.qkv + 2 * hh)));
        } else {
            out.push_back(dW(h, 3 * h, T, x, act(base + t.gradQkv), grad(w.qkv)));
        }
    }
    if (s.vocab > 0) {
        const WeightLayout wl = weightLayout(s);
        out.push_back(
            dW(h, s.vocab, T, act(a.output), act(a.logits + std::uint64_t(T * s.vocab)), grad(wl.lmHead)));
    }
    return out;
}

StageShape sliceShape(const StageShape& whole, const std::vector<int>& lengths, int slice) {
    StageShape s = whole;
    std::int64_t end = 0;
    for (int q = 0; q <= slice && q < int(lengths.size()); ++q) end += lengths[std::size_t(q)];
    s.seqLen = lengths.at(std::size_t(slice));
    s.keysEnd = end;
    s.wholeSeqLen = whole.seqLen;
    s.lastSlice = slice + 1 == int(lengths.size());
    return s;
}

std::uint64_t keyValueElements(const StageShape& s) {
    if (!s.sliced()) return 0;
    return std::uint64_t(s.layers) * 4 * std::uint64_t(s.wholeSeqLen * s.microBatch * s.hidden);
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
