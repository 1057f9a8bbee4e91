// DualPipe and DualPipeV (DeepSeek-V3): every rank runs the same 8 steps of its reference `step()`,
// with counts that depend on the rank's place in its half of the pipeline. Forwards of one
// direction ("phase") are overlapped with whole backwards of the other in one slot (F&B).
//
// DualPipeV: p ranks, 2p stages in a V; rank r holds stage r (phase 0, down) and 2p-1-r (phase 1,
// up); all m micro-batches enter at rank 0. DualPipe: p ranks (even), two pipes of p stages in
// opposite directions; rank r holds down stage r and up stage p-1-r; the down pipe carries
// micro-batches 0..m/2-1, the up pipe m/2..m-1. A rank's phase 0 is the direction in which it is in
// the first half of the pipeline.
//
// Primitive steps: F(ph) the next forward of phase ph; B(ph) its next whole backward (B then W of
// the split IR, run as one unit: ir/overlap.h); I(ph) its next input-gradient backward, whose W
// is queued; W the oldest queued W (first in, first out across both phases); FB(a, b) a slot of
// F(a) and a whole B(b).
#include "error.h"
#include "generators/generators.h"
#include "ir/overlap.h"

#include <deque>

namespace stagecraft::gen {

namespace {

/// Where one phase of a rank runs and which micro-batches it carries.
struct Phase {
    int pipe = 0;
    int stage = 0;
    int firstMb = 0; ///< micro-batch of the phase's k-th op is firstMb + k
};

/// The 8 steps of one rank. H half-ranks, h this rank's half-index, N micro-batches per phase.
class RankSteps {
  public:
    RankSteps(Schedule& s, int device, Phase p0, Phase p1) : m_s(s), m_device(device), m_phase{p0, p1} {}

    void run(int H, int h, int N, bool middle) {
        for (int i = 0; i < 2 * (H - h - 1); ++i) F(0);      // 1: nF0
        for (int i = 0; i < h + 1; ++i) F(0), F(1);          // 2: nF0F1
        for (int i = 0; i < H - h - 1; ++i) I(1), W(), F(1); // 3: nB1W1F1 (zero bubble)
        for (int i = 0; i < N - 2 * H + h + 1; ++i) {        // 4: nF0B1F1B0, the main step
            if (i == 0 && middle)
                F(0), B(1); // the reference does not overlap these two on a middle rank
            else
                FB(0, 1);
            FB(1, 0);
        }
        for (int i = 0; i < H - h - 1; ++i) B(1), FB(1, 0); // 5: nB1F1B0
        bool split = false;                                 // 6: nB1B0, split from the middle on
        for (int i = 0; i < h + 1; ++i) {
            const bool switchHere = i == (h + 1) / 2;
            if (switchHere && h % 2 == 1) split = true;
            split ? I(1) : B(1);
            if (switchHere && h % 2 == 0) split = true;
            split ? I(0) : B(0);
        }
        for (int i = 0; i < H - h - 1; ++i) W(), I(0); // 7: nWB0
        for (int i = 0; i < h + 1; ++i) W();           // 8: nW
    }

  private:
    Op next(int phase, int& counter) const {
        const Phase& p = m_phase[phase];
        Op op;
        op.pipe = std::uint8_t(p.pipe);
        op.stage = p.stage;
        op.mb = p.firstMb + counter++;
        return op;
    }
    void push(OpKind kind, const Op& op) { pushOp(m_s, m_device, kind, op.pipe, op.stage, op.mb); }
    void F(int ph) { push(OpKind::F, next(ph, m_f[ph])); }
    void B(int ph) {
        const Op op = next(ph, m_b[ph]);
        pushWholeBackward(m_s, m_device, op.pipe, op.stage, op.mb);
    }
    void I(int ph) {
        const Op op = next(ph, m_b[ph]);
        push(OpKind::B, op);
        m_weights.push_back(op);
    }
    void W() {
        push(OpKind::W, m_weights.front());
        m_weights.pop_front();
    }
    void FB(int forward, int backward) {
        const Op f = next(forward, m_f[forward]);
        const Op b = next(backward, m_b[backward]);
        pushOverlapped(m_s, m_device, f.pipe, f.stage, f.mb, b.pipe, b.stage, b.mb);
    }

    Schedule& m_s;
    int m_device;
    Phase m_phase[2];
    int m_f[2] = {0, 0};
    int m_b[2] = {0, 0};
    std::deque<Op> m_weights;
};

void requireMicrobatches(std::string_view schedule, const ScheduleParams& p, int minimum, const char* rule) {
    if (p.microbatches < minimum)
        throw ValidationError("generator.constraint", "parallel.microbatches",
                              "parallel.microbatches = " + std::to_string(p.microbatches) + ": " +
                                  std::string(schedule) + " needs " + rule + " (pp = " +
                                  std::to_string(p.pp) + ", at least " + std::to_string(minimum) + ")");
}

std::vector<std::vector<StageSlot>> dualPipePlacement(int p) {
    std::vector<std::vector<StageSlot>> placement(2, std::vector<StageSlot>(std::size_t(p)));
    for (int s = 0; s < p; ++s) {
        placement[0][std::size_t(s)] = {s, 0};
        placement[1][std::size_t(s)] = {p - 1 - s, 1};
    }
    return placement;
}

} // namespace

void checkDualPipeV(const ScheduleParams& params) {
    requireMicrobatches("dualpipev", params, 2 * params.pp, "microbatches >= 2 * pp");
}

Schedule dualPipeV(const ScheduleParams& params) {
    const int p = params.pp, m = params.microbatches;
    Schedule s = makeSchedule("dualpipev", p, m, {vShapePlacement(p)}, true);
    for (int r = 0; r < p; ++r) {
        reserveOrder(s, r, 6 * std::size_t(m));
        RankSteps(s, r, Phase{0, r, 0}, Phase{0, 2 * p - 1 - r, 0}).run(p, r, m, r == p - 1);
    }
    return s;
}

void checkDualPipe(const ScheduleParams& params) {
    requireEvenPp("dualpipe", params);
    if (params.microbatches % 2 != 0)
        throw ValidationError("generator.constraint", "parallel.microbatches",
                              "parallel.microbatches = " + std::to_string(params.microbatches) +
                                  ": dualpipe splits the micro-batches in two halves, one per direction, "
                                  "and needs an even number");
    requireMicrobatches("dualpipe", params, 2 * params.pp, "microbatches >= 2 * pp");
}

Schedule dualPipe(const ScheduleParams& params) {
    const int p = params.pp, m = params.microbatches, half = p / 2;
    Schedule s = makeSchedule("dualpipe", p, m, dualPipePlacement(p), true);
    for (int r = 0; r < p; ++r) {
        reserveOrder(s, r, 3 * std::size_t(m));
        const Phase down{0, r, 0}, up{1, p - 1 - r, m / 2};
        const bool secondHalf = r >= half;
        const int h = secondHalf ? p - 1 - r : r;
        RankSteps(s, r, secondHalf ? up : down, secondHalf ? down : up)
            .run(half, h, m / 2, r == half - 1 || r == half);
    }
    return s;
}

} // namespace stagecraft::gen
