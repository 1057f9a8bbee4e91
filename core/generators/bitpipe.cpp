// BitPipe (Wu, Chen, Yu 2024): Chimera's two opposite pipelines, each folded into a V of 2p
// half-stage chunks, so every device holds four chunks. Pipe 0 ("down") runs stage s on device s
// for s < p and on device 2p-1-s for s >= p; pipe 1 ("up") stage s on device p-1-s for s < p and
// s-p for s >= p. A device's chunk is the reference code's virtual rank vr:
//   vr0 = down stage r, vr1 = up stage p-1-r   (first leg of the V)
//   vr2 = down stage 2p-1-r, vr3 = up stage p+r (second leg)
// vr0/vr2 of rank r and vr1/vr3 of rank p-1-r hold the same layers (same stage index, two pipes)
// and all-reduce their gradients.
//
// The order is the reference code's (bitpipe_schedule.py): a basic unit is p micro-batches, p/2
// per pipe (unit j: down gets j*p + 0..p/2-1, up gets j*p + p/2..p-1), i.e. 2p chunk-forwards and
// 2p chunk-backwards per rank, each in a fixed per-rank chunk order. The phases are warm-up,
// 1F1B and cool-down of the first unit, with the next unit's 1F1B and warm-up spliced into the
// previous unit's cool-down (direct concatenation), then two eager gradient syncs.
#include "generators/generators.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace stagecraft::gen {

void checkBitpipe(const ScheduleParams& params) {
    requireEvenPp("bitpipe", params);
    requireMicrobatchesMultipleOfPp("bitpipe", params);
}

namespace {

/// Stage and pipe of chunk (virtual rank) `vr` on rank r; pipe = vr % 2, leg = vr / 2.
int stageOfChunk(int p, int r, int vr) {
    constexpr int kDown = 0, kUpFirst = 1, kDownSecond = 2;
    if (vr == kDown) return r;
    if (vr == kUpFirst) return p - 1 - r;
    if (vr == kDownSecond) return 2 * p - 1 - r;
    return p + r;
}

std::vector<std::vector<StageSlot>> bitpipePlacement(int p) {
    std::vector<std::vector<StageSlot>> placement(2, std::vector<StageSlot>(std::size_t(2 * p)));
    for (int r = 0; r < p; ++r)
        for (int vr = 0; vr < 4; ++vr) placement[vr % 2][stageOfChunk(p, r, vr)] = {r, vr};
    return placement;
}

/// The chunks of one basic unit's 2p forwards (or backwards) on rank r, in order, each with its
/// index among that chunk's p/2 micro-batches of the unit. Ranks in the first half of the devices
/// are nearer the down pipe's entry and lead with down chunks (ih = 0), the others with up chunks.
/// With roles (a, b, c, d) and ni the rank's distance-based repeat count the code's pattern is
///   ni x a, (p/2-ni) x (b, a), ni x (b, c), (p/2-ni) x (d, c), ni x d.
/// Forwards use roles (ih, 1-ih, 3-ih, 2+ih); backwards (2+ih, 3-ih, 1-ih, ih), i.e. they retire
/// the second leg first.
std::vector<std::pair<int, int>> unitChunkOrder(int p, int r, std::array<int, 4> roles) {
    const int nu = p / 2;
    const int ni = r < nu ? nu - r : r - nu + 1;
    const auto [a, b, c, d] = roles;
    std::vector<std::pair<int, int>> order;
    order.reserve(2 * std::size_t(p));
    std::array<int, 4> taken{0, 0, 0, 0}; // micro-batches of the unit used so far, per chunk
    auto take = [&](int vr) { order.emplace_back(vr, taken[vr]++); };
    for (int i = 0; i < ni; ++i) take(a);
    for (int i = 0; i < nu - ni; ++i) take(b), take(a);
    for (int i = 0; i < ni; ++i) take(b), take(c);
    for (int i = 0; i < nu - ni; ++i) take(d), take(c);
    for (int i = 0; i < ni; ++i) take(d);
    return order;
}

} // namespace

/// The order, as the code writes it or (`figure`) as the paper's Figure of direct concatenation
/// draws it: there, where a unit's cool-down meets the next unit, the next unit's first backward
/// waits for one more forward (`B1 F5 F6 B2` on the outer devices at D = 4, where the code has
/// `B1 F5 B2 F6`), which ends a unit earlier at D = 4, N = 8 (53 against 54). The figure shows
/// D = 4 only; elsewhere the same move is made on every rank whose next-unit 1F1B phase has a
/// backward to move (u_r >= 2), a generalisation no figure confirms.
Schedule bitpipeOrder(const ScheduleParams& params, bool figure) {
    const int p = params.pp, m = params.microbatches, nu = p / 2;
    Schedule s = makeSchedule(figure ? "bitpipe-figure" : "bitpipe", p, m, bitpipePlacement(p), false);
    for (int r = 0; r < p; ++r) {
        reserveOrder(s, r, 4 * std::size_t(m) + 4);
        const int ih = r / nu;
        const auto fwd = unitChunkOrder(p, r, {ih, 1 - ih, 3 - ih, 2 + ih});
        const auto bwd = unitChunkOrder(p, r, {2 + ih, 3 - ih, 1 - ih, ih});
        // Position q of a rank's forward (backward) sequence is entry q % 2p of its unit order in
        // unit q / 2p.
        auto emit = [&](OpKind kind, const std::vector<std::pair<int, int>>& unit, int q) {
            const auto [vr, k] = unit[std::size_t(q % (2 * p))];
            const int mb = (q / (2 * p)) * p + (vr % 2) * nu + k;
            pushOp(s, r, kind, vr % 2, stageOfChunk(p, r, vr), mb);
        };
        int nextF = 0, nextB = 0; // positions in the forward and backward sequences
        auto F = [&] { emit(OpKind::F, fwd, nextF++); };
        auto B = [&] { emit(OpKind::B, bwd, nextB++); };
        auto syncLeg = [&](int leg) {
            for (int vr = 2 * leg; vr < 2 * leg + 2; ++vr)
                pushOp(s, r, OpKind::GradSync, vr % 2, stageOfChunk(p, r, vr), -1);
        };

        const int warm = p + nu + std::min(r, p - 1 - r); // w_r chunk-forwards before the first B
        const int steady = 2 * p - warm;                  // u_r, "unit_remaining"
        for (int i = 0; i < warm; ++i) F();
        for (int unit = 1; unit < m / p; ++unit) {
            for (int i = 0; i < steady; ++i) F(), B();
            for (int i = 0; i < warm - steady + 1; ++i) B();
            if (figure && steady >= 2) {
                F(), F(), B();
                for (int i = 0; i < steady - 2; ++i) F(), B();
                for (int i = 0; i < warm - steady; ++i) F();
            } else {
                for (int i = 0; i < steady - 1; ++i) F(), B();
                for (int i = 0; i < warm - steady + 1; ++i) F();
            }
        }
        for (int i = 0; i < steady; ++i) F(), B();
        // Cool-down, then eager sync: first the second-leg chunks, whose backwards are all done
        // once only first-leg backwards remain, then the first-leg ones. Outer ranks post the
        // first sync before their last backward (in the reference timeline it fills the idle gap
        // before that backward); the two middle ranks post both at the end, as the code does.
        for (int i = 0; i < 2 * p - steady - 1; ++i) B();
        const bool middle = r == nu - 1 || r == nu;
        if (middle) B();
        syncLeg(1);
        if (!middle) B();
        syncLeg(0);
    }
    return s;
}

Schedule bitpipe(const ScheduleParams& params) {
    return bitpipeOrder(params, false);
}

Schedule bitpipeFigure(const ScheduleParams& params) {
    return bitpipeOrder(params, true);
}

} // namespace stagecraft::gen
