#pragma once
// The search engine behind zb-auto and the cost-aware V schedules (zb-v, zb-v-half, zb-v-min):
// greedy list schedules of one pipe whose stages sit on devices (one stage per device, or the V's
// two), a grid over the greedy's choices, local improvement of the per-device warm-up caps, and
// fixed seed orders, all timed with the simulator's list-scheduling semantics under a memory limit.
// docs/zero-bubble.md describes the rules.

#include "generators/registry.h"
#include "generators/zb_auto.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace stagecraft::zb {

inline constexpr double kNoLimit = std::numeric_limits<double>::infinity();
/// The most ops a search plans (each timed order holds about 32 bytes per op): beyond it zb-auto
/// refuses the parameters and zb-v keeps its handcrafted order.
inline constexpr double kMaxSearchOps = double(1 << 23);

/// One pipe to plan: stage s runs on device[s]; a device's stages are visited in stage order by
/// every micro-batch (forward up, backward down).
struct Pipe {
    int devices = 1, microbatches = 1;
    std::vector<int> device;        ///< [stage]
    std::vector<double> f, b, w;    ///< [stage] op times
    std::vector<double> activation; ///< [stage] memory a forward adds, in M_a
    double comm = 0;                ///< added to a dependency between two devices
    double limit = kNoLimit;        ///< activation memory one device may hold, in M_a
    double rho = 1;                 ///< share of an activation its B keeps until W
    int stages() const { return int(device.size()); }
};

/// A pipe of `request`'s stages placed as `placement` (one pipe), activation per stage
/// `schedule.stageFraction()` of M_a.
Pipe pipeOf(const GenerateRequest& request, const std::vector<StageSlot>& placement, double limit);

struct Outcome {
    double span = kNoLimit;     ///< max over devices of last end - first start
    double makespan = kNoLimit; ///< end of the last op
    double peak = 0;            ///< largest device memory, M_a
    bool betterThan(const Outcome& other) const;
};

/// What the search found. `schedule` has the name and placement given to search().
struct Found {
    Schedule schedule;
    Outcome outcome;
    int evaluations = 0;
    bool cancelled = false;
    std::string winner;
};

struct SearchOptions {
    /// Orders to time first (each must be an order of this pipe); kept when they fit the limit.
    std::vector<std::pair<std::string, Schedule>> seeds;
    /// Orders timed besides the search, outside its budget (each an order of this pipe, shaped
    /// and named as the search's result): one whose span reaches `goodEnough` is the result at
    /// once; otherwise each is taken at the end when it beats what the search found (within
    /// `makespanCap`), so the search's own course and result are what they are without them.
    std::vector<std::pair<std::string, Schedule>> finalists;
    /// Stop as soon as an order's span is at most this (a lower bound).
    double goodEnough = 0;
    /// Candidates whose makespan exceeds this are not taken (keeps a seed's flush time).
    double makespanCap = kNoLimit;
    /// Set makespanCap to the first seed's makespan when that seed fits.
    bool capMakespanAtFirstSeed = false;
};

/// Search orders of `pipe` for the smallest span (ties: makespan) within the limit.
Found search(const Pipe& pipe, const Schedule& shape, const SearchOptions& options,
             const WorkControl& control);

} // namespace stagecraft::zb
