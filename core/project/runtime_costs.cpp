#include "project/runtime_costs.h"

#include <algorithm>
#include <cmath>

namespace stagecraft {

RuntimeCosts remapStages(const RuntimeCosts& costs, int stages) {
    const int from = int(costs.stages.size());
    if (stages == from || from == 0 || stages <= 0) return costs;
    RuntimeCosts out = costs;
    out.stages.assign(std::size_t(stages), StageCompute{0, 0, 0, 0});
    out.stageRanks.clear(); // a new cut of the model: no stage ran on a known rank
    out.weightFactors.clear();
    // Stage j covers [j / stages, (j + 1) / stages) of the model; in units of 1 / (from * stages)
    // the boundaries are integers.
    for (int j = 0; j < stages; ++j) {
        StageCompute& t = out.stages[std::size_t(j)];
        const long lo = long(j) * from, hi = long(j + 1) * from;
        for (int i = 0; i < from; ++i) {
            const long slo = long(i) * stages, shi = long(i + 1) * stages;
            const long overlap = std::min(hi, shi) - std::max(lo, slo);
            if (overlap <= 0) continue;
            const double share = double(overlap) / double(stages);
            const StageCompute& s = costs.stages[std::size_t(i)];
            auto add = [&](double& to, double v) { to = to < 0 || v < 0 ? -1.0 : to + share * v; };
            add(t.f, s.f);
            add(t.b, s.b);
            add(t.i, s.i);
            add(t.w, s.w);
        }
    }
    return out;
}

namespace {

/// The W of `stage` run at the speed `factor` (a W over I, RuntimeCosts::weightFactors): its fitted
/// W times `factor` over its own rank's; the fitted W where either is not known.
double weightCostAt(const RuntimeCosts& costs, std::size_t stage, double factor) {
    const double w = costs.stages[stage].w;
    const int fitted = stage < costs.stageRanks.size() ? costs.stageRanks[stage] : -1;
    if (w < 0 || fitted < 0 || std::size_t(fitted) >= costs.weightFactors.size()) return w;
    const double from = costs.weightFactors[std::size_t(fitted)];
    return std::isfinite(from) && std::isfinite(factor) && from > 0 && factor > 0 ? w * (factor / from) : w;
}

} // namespace

double weightCostOn(const RuntimeCosts& costs, int stage, int rank) {
    if (stage < 0 || std::size_t(stage) >= costs.stages.size()) return -1;
    if (rank < 0 || std::size_t(rank) >= costs.weightFactors.size())
        return costs.stages[std::size_t(stage)].w;
    return weightCostAt(costs, std::size_t(stage), costs.weightFactors[std::size_t(rank)]);
}

RuntimeCosts splitBackwardCosts(const RuntimeCosts& costs, double inputShare) {
    RuntimeCosts out = costs;
    for (std::size_t s = 0; s < out.stages.size(); ++s) {
        StageCompute& c = out.stages[s];
        if (c.i >= 0 && c.w >= 0) continue;
        if (c.b < 0) continue;
        c.i = s == 0 ? 0.0 : inputShare * c.b;
        c.w = c.b - c.i;
    }
    return out;
}

RuntimeCosts wholeBackwardCosts(const RuntimeCosts& costs) {
    RuntimeCosts out = costs;
    // A split W runs slower on some ranks than the same GEMMs on others (weightFactors); a whole
    // backward does not: on the recorded runs its weight half ran at the fastest rank's W speed on
    // every rank (docs/fidelity.md, "I + W is not B").
    double fastest = INFINITY;
    for (const double f : costs.weightFactors)
        if (std::isfinite(f) && f > 0) fastest = std::min(fastest, f);
    for (std::size_t s = 0; s < out.stages.size(); ++s) {
        StageCompute& c = out.stages[s];
        if (c.b < 0 && c.i >= 0 && c.w >= 0) c.b = c.i + weightCostAt(costs, s, fastest);
    }
    return out;
}

RuntimeCosts scaledCompute(const RuntimeCosts& costs, double factor) {
    RuntimeCosts out = costs;
    for (StageCompute& c : out.stages)
        for (double* v : {&c.f, &c.b, &c.i, &c.w})
            if (*v >= 0) *v *= factor;
    return out;
}

std::vector<StageCost> plannedStageCosts(const RuntimeCosts& costs, int stages, double inputShare) {
    std::vector<StageCost> out;
    for (const StageCompute& c :
         wholeBackwardCosts(splitBackwardCosts(remapStages(costs, stages), inputShare)).stages)
        out.push_back(StageCost{c.f, std::max(c.i, 1.0), std::max(c.w, 1.0)});
    return out;
}

} // namespace stagecraft
