// zb-auto: the ZB paper's automatic scheduler, searched and improved (see zb_auto.h).
#include "generators/zb_auto.h"

#include "error.h"
#include "generators/generators.h"
#include "generators/zb_greedy.h"
#include "generators/zb_heuristic.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace stagecraft {

namespace {

constexpr double kMemEps = 1e-9;

std::string format(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

double lowerBound(const zb::Pipe& P) {
    const int m = P.microbatches, p = P.devices;
    const double warmForwards =
        P.limit == zb::kNoLimit ? double(m) : std::min(double(m), std::floor(P.limit + kMemEps));
    double bound = 0;
    for (int d = 0; d < p; ++d) {
        // R_d: from the end of a forward on d to the earliest start of its B.
        double roundTrip = 0;
        for (int s = d + 1; s < p; ++s) roundTrip += P.f[s] + P.b[s] + 2 * P.comm;
        const double work = m * (P.f[d] + P.b[d] + P.w[d]);
        const double idle = std::max(0.0, P.f[d] + roundTrip - warmForwards * P.f[d]);
        const double lastForward = m * P.f[d] + roundTrip + P.b[d] + P.w[d];
        bound = std::max({bound, work + idle, lastForward});
        // Device e > d starts no sooner than the forward reaches it, runs its m F and m B, and the
        // last of those B's comes back to d, followed by its W.
        double between = 0; // sum over d <= s < e of f + b + 2 comm
        for (int e = d + 1; e < p; ++e) {
            between += P.f[e - 1] + P.b[e - 1] + 2 * P.comm;
            bound = std::max(bound, between + m * (P.f[e] + P.b[e]) + P.w[d]);
        }
    }
    return bound;
}

zb::Pipe pipeOf(const GenerateRequest& request) {
    const int p = request.params.pp;
    return zb::pipeOf(request, loopedPlacement(p, p), request.memoryLimit);
}

} // namespace

double zbAutoLowerBound(const GenerateRequest& request) {
    return lowerBound(pipeOf(request));
}

ZbAutoResult zbAutoSchedule(const GenerateRequest& request, const WorkControl& control) {
    const zb::Pipe P = pipeOf(request);
    if (P.limit < 1 - kMemEps)
        throw ValidationError("generator.memory", "memory.limit_microbatches",
                              "memory limit = " + format(P.limit, 3) +
                                  " activations: zb-auto needs room for at least one micro-batch's "
                                  "activations of a stage (>= 1)");
    ZbAutoResult result;
    result.lowerBound = lowerBound(P);
    for (int d = 0; d < P.devices; ++d)
        result.busy = std::max(result.busy, P.microbatches * (P.f[d] + P.b[d] + P.w[d]));

    // The handcrafted orders are seeds: where they fit, zb-auto is never worse than them.
    const ScheduleParams& params = request.params;
    zb::SearchOptions options;
    options.goodEnough = result.lowerBound;
    options.seeds.emplace_back("zb-h1", gen::zbH1(params));
    if (params.microbatches >= 2 * params.pp) options.seeds.emplace_back("zb-h2", gen::zbH2(params));
    const Schedule shape =
        makeSchedule("zb-auto", P.devices, P.microbatches, {loopedPlacement(P.devices, P.devices)}, true);
    // The paper's own heuristic, its best setting as the paper picks it (the smallest span; ties
    // to the shorter makespan): zb-auto is never slower than the paper.
    // It is a finalist, not a seed: the search runs as without it, and the better order wins.
    for (zb::HeuristicOrder& h : zb::zbPaperHeuristic(P, shape, true))
        options.finalists.emplace_back("paper heuristic", std::move(h.order));
    for (auto& [label, seed] : options.seeds) seed.name = "zb-auto";
    zb::Found found = zb::search(P, shape, options, control);

    result.schedule = std::move(found.schedule);
    result.evaluations = found.evaluations;
    result.cancelled = found.cancelled;
    result.winner = found.winner;
    result.span = found.outcome.span;
    result.makespan = found.outcome.makespan;
    result.peakMemory = found.outcome.peak;
    // Clamped at 0: rounding can put the span a hair under the work or the bound.
    result.bubbleRate = result.span > 0 ? std::max(0.0, (result.span - result.busy) / result.span) : 0;
    const double gap =
        result.lowerBound > 0 ? std::max(0.0, (result.span - result.lowerBound) / result.lowerBound) : 0;
    result.schedule.notes =
        "span " + format(result.span, 3) + " (bubble rate " + format(result.bubbleRate, 4) +
        "), lower bound " + format(result.lowerBound, 3) + ", at most " + format(100 * gap, 2) +
        "% above optimal; peak " + format(result.peakMemory, 2) + " activations" +
        (P.limit == zb::kNoLimit ? std::string(" (no limit)") : " of limit " + format(P.limit, 2)) +
        "; best of " + std::to_string(result.evaluations) + " orders: " + result.winner +
        (result.cancelled ? " (cancelled)" : "");
    return result;
}

namespace gen {

void checkZbAuto(const ScheduleParams& params) {
    const double ops = 3.0 * params.pp * params.microbatches;
    if (ops > zb::kMaxSearchOps)
        throw ValidationError("generator.range", "parallel.microbatches",
                              "zb-auto with pp = " + std::to_string(params.pp) +
                                  " and microbatches = " + std::to_string(params.microbatches) +
                                  " would search orders of " + std::to_string(static_cast<long long>(ops)) +
                                  " ops, more than its limit of " +
                                  std::to_string(static_cast<long long>(zb::kMaxSearchOps)));
}

Schedule zbAuto(const GenerateRequest& request) {
    ZbAutoResult result = zbAutoSchedule(request, request.control ? *request.control : WorkControl{});
    // Through the registry a stopped search is no order at all: the caller asked to stop.
    if (result.cancelled) throw Error("work.cancelled", "zb-auto's search was cancelled");
    return std::move(result.schedule);
}

} // namespace gen

} // namespace stagecraft
