// zb-v for given costs: the ZB paper's ZB-V (activation memory p·M_B). Device r holds stage r (down
// the V) and stage 2p-1-r (back up). Under equal F, B and W times and no transfer time it is the
// handcrafted order (zb_v.cpp); otherwise the greedy search of zb_greedy.h plans the order within
// p·M_B, with the handcrafted order as a seed that caps the makespan under a flush, so zb-v is never
// slower than it (neither its span nor its makespan; under post-validation, its span), and the
// paper's heuristic (zb_v_heuristic.h) as further seeds, so it is never slower than that either
// within that cap (under post-validation: never, the paper's ZB-V cost).
#include "generators/zb_v_family.h"

#include "generators/generators.h"
#include "generators/zb_greedy.h"
#include "generators/zb_v_heuristic.h"

#include <algorithm>
#include <cstdio>

namespace stagecraft::gen {

namespace {

bool uniformCosts(const GenerateRequest& request) {
    if (request.comm != 0) return false;
    for (const StageCost& c : request.stageCosts)
        if (c.f != c.b || c.b != c.w || c.f != request.stageCosts.front().f) return false;
    return true;
}

std::string format(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

/// The largest device's work: no order's span is below it.
double busiestDevice(const zb::Pipe& pipe) {
    std::vector<double> work(std::size_t(pipe.devices), 0.0);
    for (int s = 0; s < pipe.stages(); ++s)
        work[std::size_t(pipe.device[s])] += pipe.microbatches * (pipe.f[s] + pipe.b[s] + pipe.w[s]);
    return *std::max_element(work.begin(), work.end());
}

Schedule planV(const char* name, const GenerateRequest& request, double limit, bool seedHandcrafted,
               const WorkControl& control = {}) {
    const ScheduleParams& params = request.params;
    const Schedule shape =
        makeSchedule(name, params.pp, params.microbatches, {vShapePlacement(params.pp)}, true);
    const zb::Pipe pipe = zb::pipeOf(request, shape.placement[0], limit);
    zb::SearchOptions options;
    if (seedHandcrafted) {
        Schedule hand = zbV(params);
        hand.name = name;
        options.seeds.emplace_back("zb-v handcrafted", std::move(hand));
        // With a flush the makespan is the iteration time: never longer than the handcrafted
        // order's. With post-validation only the span counts (the paper's ZB-V cost).
        options.capMakespanAtFirstSeed = !request.postValidation;
    }
    // The paper's ZB-V heuristic, each setting of its grid: zb-v is never slower than it.
    for (Schedule& heuristic : zb::zbVHeuristic(pipe, shape))
        options.seeds.emplace_back("zb-v heuristic", std::move(heuristic));
    const double busy = busiestDevice(pipe);
    options.goodEnough = busy;
    zb::Found found = zb::search(pipe, shape, options, control);
    if (found.cancelled) throw Error("work.cancelled", std::string(name) + "'s search was cancelled");
    const double span = found.outcome.span;
    found.schedule.notes = "span " + format(span, 3) + " (bubble rate " +
                           format(span > 0 ? std::max(0.0, (span - busy) / span) : 0, 4) + "), peak " +
                           format(found.outcome.peak, 2) + " of limit " + format(pipe.limit, 2) +
                           " activations (M_a); best of " + std::to_string(found.evaluations) +
                           " orders: " + found.winner;
    return found.schedule;
}

} // namespace

Schedule zbVForCosts(const GenerateRequest& request) {
    const double ops = 6.0 * request.params.pp * request.params.microbatches;
    if (uniformCosts(request) || ops > zb::kMaxSearchOps) return zbV(request.params);
    return planV("zb-v", request, request.params.pp, true,
                 request.control ? *request.control : WorkControl{});
}

} // namespace stagecraft::gen
