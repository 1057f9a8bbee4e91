// zb-v-half and zb-v-min: the V-shaped schedules with controllable memory (Qi et al., "Pipeline
// Parallelism with Controllable Memory", the ZB repository's V-Half and V-Min). Device r holds
// stage r (chunk 0, down the V) and stage 2p-1-r (chunk 1, back up), as in ZB-V.
//
// The orders come from a repeating building block on a grid of unit slots: every micro-batch puts
// six ops on each device (F and B of both chunks, two W), so a block repeats every 6 slots, and the
// offsets of the block's four F/B ops per device fix how long a micro-batch's activations live,
// hence the memory: a third of 1F1B's for V-Min, a half for V-Half. W ops fill the free slots. Then
// the warm-up and cool-down are squeezed: ops move to the earliest free slot after their
// dependencies that does not raise the peak memory (once with W placed, once for the cool-down
// with W left implicit), and W ops are placed again. The device orders (ops sorted by slot) are
// the schedule; the simulator times them with the real costs.
#include "generators/generators.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace stagecraft::gen {

namespace {

constexpr int kPeriod = 6; // slots per micro-batch and device

// The lanes of one device, in the order the building block names them. Forward F0 and backward B1
// flow down the devices; F1 and B0 flow up.
enum Lane { kF0, kF1, kB1, kB0, kW, kW1 = kW, kW0, kLanes };
constexpr int kComputeLanes = 4;

bool isForward(int lane) {
    return lane == kF0 || lane == kF1;
}
bool isBackward(int lane) {
    return lane == kB1 || lane == kB0;
}

/// One device's slots: lane -> micro-batch -> slot.
using DeviceSlots = std::vector<std::vector<int>>;

/// Offsets of F0, F1, B1, B0 on device i of n in the steady block.
std::array<int, kComputeLanes> blockOffsets(bool half, int n, int i) {
    if (half) {
        const int gap = n % 2 == 0 ? 3 : 0;
        return {2 * i, 3 * n - i - 2, 3 * n + gap + 2 * i - 1, 6 * n + gap - i - 2};
    }
    const int gap = n % 3 == 0 ? 2 : 0;
    return {i, 2 * n - i - 1, 2 * n + gap + i, 4 * n + gap - i - 1};
}

int lastSlot(const DeviceSlots& device) {
    int last = -1;
    for (int lane = 0; lane < kComputeLanes; ++lane)
        if (!device[std::size_t(lane)].empty()) last = std::max(last, device[std::size_t(lane)].back());
    return last;
}

/// Which compute lane holds each slot (-1: free).
std::vector<int> slotOwners(const DeviceSlots& device, int slots) {
    std::vector<int> owner(std::size_t(slots), -1);
    for (int lane = 0; lane < kComputeLanes; ++lane)
        for (int slot : device[std::size_t(lane)]) {
            if (owner[std::size_t(slot)] != -1)
                throw std::logic_error("zb-v building block: two ops in one slot");
            owner[std::size_t(slot)] = lane;
        }
    return owner;
}

/// Put W ops into the free slots, each as early as a finished backward allows. With `split` the W
/// of chunk 1 (after B1) and of chunk 0 (after B0) are separate lanes, chunk 1's first; otherwise
/// one lane kW holds every W in the order of the backwards.
void placeW(DeviceSlots& device, bool split) {
    device.resize(kLanes);
    device[kW1].clear();
    device[kW0].clear();
    const int last = lastSlot(device);
    const std::vector<int> owner = slotOwners(device, last + 1);
    std::array<int, 2> pending{0, 0}; // chunk 1, chunk 0 (or all, in [0], without split)
    auto place = [&](int slot) {
        for (int w = 0; w < 2; ++w)
            if (pending[std::size_t(w)] > 0) {
                device[std::size_t(kW1) + std::size_t(w)].push_back(slot);
                --pending[std::size_t(w)];
                return;
            }
    };
    for (int slot = 0; slot <= last; ++slot) {
        const int lane = owner[std::size_t(slot)];
        if (lane == -1)
            place(slot);
        else if (isBackward(lane))
            ++pending[split && lane == kB0 ? 1 : 0];
    }
    for (int slot = last + 1; pending[0] + pending[1] > 0; ++slot) place(slot);
}

/// Peak activation count of a device (F +1, W -1; B keeps what W frees) with W placed.
struct ExplicitMemory {
    std::vector<int> level; // after each slot
    int peak = 0;
};

ExplicitMemory explicitMemory(const DeviceSlots& device, int slots) {
    std::vector<int> delta(std::size_t(slots) + 1, 0);
    for (int lane : {kF0, kF1})
        for (int slot : device[std::size_t(lane)]) ++delta[std::size_t(slot)];
    for (int slot : device[kW]) --delta[std::size_t(slot)];
    ExplicitMemory memory;
    memory.level.resize(std::size_t(slots));
    int level = 0;
    for (int slot = 0; slot < slots; ++slot) {
        level += delta[std::size_t(slot)];
        memory.level[std::size_t(slot)] = level;
        memory.peak = std::max(memory.peak, level);
    }
    return memory;
}

/// The same with W left implicit: a W runs in each free slot while a backward waits for one.
/// Walks from `from` with the state before it and returns the peak from there on.
struct ImplicitState {
    int level = 0, pending = 0;
};

/// One slot of the implicit-W walk: a forward adds an activation, a backward leaves a W pending,
/// a free slot runs a pending W (which frees one).
void stepImplicit(ImplicitState& state, int lane) {
    if (lane == -1) {
        if (state.pending > 0) --state.level, --state.pending;
    } else if (isForward(lane)) {
        ++state.level;
    } else {
        ++state.pending;
    }
}

int implicitPeakFrom(const std::vector<int>& owner, int from, ImplicitState state) {
    int peak = state.level;
    for (std::size_t slot = std::size_t(from); slot < owner.size(); ++slot) {
        stepImplicit(state, owner[slot]);
        peak = std::max(peak, state.level);
    }
    return peak;
}

/// States before each slot (index `slot`) and the running peak up to each slot, for a device's
/// implicit-W memory.
struct ImplicitProfile {
    std::vector<ImplicitState> before;
    std::vector<int> peakBefore;
};

ImplicitProfile implicitProfile(const std::vector<int>& owner) {
    ImplicitProfile profile;
    profile.before.resize(owner.size() + 1);
    profile.peakBefore.resize(owner.size() + 1);
    ImplicitState state;
    int peak = 0;
    for (std::size_t slot = 0; slot < owner.size(); ++slot) {
        profile.before[slot] = state;
        profile.peakBefore[slot] = peak;
        stepImplicit(state, owner[slot]);
        peak = std::max(peak, state.level);
    }
    profile.before.back() = state;
    profile.peakBefore.back() = peak;
    return profile;
}

struct OpRef {
    int slot, device, lane, mb;
    bool operator<(const OpRef& o) const {
        if (slot != o.slot) return slot < o.slot;
        if (device != o.device) return device < o.device;
        return lane < o.lane;
    }
};

/// The earliest slot an op may take: after its dependencies' slots.
int earliestSlot(const std::vector<DeviceSlots>& slots, const OpRef& op, int n) {
    const auto& own = slots[std::size_t(op.device)];
    int after = -1;
    if (op.lane == kF0 || op.lane == kB1) {
        if (op.device > 0)
            after =
                std::max(after, slots[std::size_t(op.device - 1)][std::size_t(op.lane)][std::size_t(op.mb)]);
    } else if (op.lane == kF1 || op.lane == kB0) {
        if (op.device + 1 < n)
            after =
                std::max(after, slots[std::size_t(op.device) + 1][std::size_t(op.lane)][std::size_t(op.mb)]);
    }
    if (op.lane > kF0 && op.lane < kW)
        after = std::max(after, own[std::size_t(op.lane - 1)][std::size_t(op.mb)]);
    if (op.lane == kW) { // the mb-th backward of this device, in slot order
        std::vector<int> backwards(own[kB1]);
        backwards.insert(backwards.end(), own[kB0].begin(), own[kB0].end());
        std::nth_element(backwards.begin(), backwards.begin() + op.mb, backwards.end());
        after = std::max(after, backwards[std::size_t(op.mb)]);
    }
    if (op.mb > 0) after = std::max(after, own[std::size_t(op.lane)][std::size_t(op.mb - 1)]);
    return after + 1;
}

/// Move warm-up and cool-down ops (`withW`: W placed as lane kW; warm-up and cool-down) or the
/// cool-down only (W implicit) to the earliest free slot after their dependencies that keeps every
/// device within the peak memory the schedule already has. The steady part stays as the block
/// puts it.
void squeeze(std::vector<DeviceSlots>& slots, bool withW) {
    const int n = int(slots.size());
    const int lanes = withW ? kW + 1 : kComputeLanes;
    int width = 0;
    for (const DeviceSlots& d : slots) {
        width = std::max(width, lastSlot(d) + 1);
        if (withW && !d[kW].empty()) width = std::max(width, d[kW].back() + 1);
    }
    std::vector<ExplicitMemory> explicitMem;
    std::vector<std::vector<int>> owner;
    std::vector<ImplicitProfile> implicit;
    int limit = 0;
    for (const DeviceSlots& d : slots) {
        if (withW) {
            explicitMem.push_back(explicitMemory(d, width));
            limit = std::max(limit, explicitMem.back().peak);
        } else {
            owner.push_back(slotOwners(d, width));
            implicit.push_back(implicitProfile(owner.back()));
            limit = std::max(limit, implicit.back().peakBefore.back());
        }
    }

    std::vector<OpRef> ops;
    for (int d = 0; d < n; ++d)
        for (int lane = 0; lane < lanes; ++lane)
            for (int mb = 0; mb < int(slots[std::size_t(d)][std::size_t(lane)].size()); ++mb)
                ops.push_back({slots[std::size_t(d)][std::size_t(lane)][std::size_t(mb)], d, lane, mb});
    std::sort(ops.begin(), ops.end());

    // Slots taken by ops already visited, per device (ops not yet visited lie later).
    std::vector<std::vector<char>> taken(std::size_t(n), std::vector<char>(std::size_t(width), 0));
    const int lastF0 = int(slots[0][kF0].size()) - 1;
    enum { kWarmUp, kSteady, kCoolDown } phase = kWarmUp;
    for (const OpRef& op : ops) {
        if (op.lane == kB0 && op.device == 0 && phase == kWarmUp) phase = kSteady;
        auto& slot = slots[std::size_t(op.device)][std::size_t(op.lane)][std::size_t(op.mb)];
        const bool fixed = phase == kSteady || (phase == kWarmUp && !withW);
        if (phase == kSteady && op.lane == kF0 && op.device == 0 && op.mb == lastF0) phase = kCoolDown;
        if (!fixed) {
            const int from = slot;
            auto& free = taken[std::size_t(op.device)];
            for (int to = earliestSlot(slots, op, n); to < from; ++to) {
                if (free[std::size_t(to)]) continue;
                bool fits = true;
                if (withW) {
                    // Moved earlier, a forward raises the level by one on [to, from), a W lowers
                    // it there, a backward leaves it: only a forward can break the peak.
                    auto& level = explicitMem[std::size_t(op.device)].level;
                    const int step = isForward(op.lane) ? 1 : op.lane == kW ? -1 : 0;
                    fits =
                        step <= 0 || *std::max_element(level.begin() + to, level.begin() + from) + 1 <= limit;
                    if (fits)
                        for (int s = to; s < from; ++s) level[std::size_t(s)] += step;
                } else {
                    auto& own = owner[std::size_t(op.device)];
                    auto& profile = implicit[std::size_t(op.device)];
                    own[std::size_t(from)] = -1;
                    own[std::size_t(to)] = op.lane;
                    fits = std::max(profile.peakBefore[std::size_t(to)],
                                    implicitPeakFrom(own, to, profile.before[std::size_t(to)])) <= limit;
                    if (fits) {
                        profile = implicitProfile(own);
                    } else {
                        own[std::size_t(to)] = -1;
                        own[std::size_t(from)] = op.lane;
                    }
                }
                if (fits) {
                    slot = to;
                    break;
                }
            }
        }
        taken[std::size_t(op.device)][std::size_t(slot)] = 1;
    }
}

Schedule controllableV(const char* name, bool half, const ScheduleParams& params) {
    const int n = params.pp, m = params.microbatches;
    std::vector<DeviceSlots> slots(static_cast<std::size_t>(n),
                                   DeviceSlots(static_cast<std::size_t>(kLanes)));
    for (int d = 0; d < n; ++d) {
        const auto offsets = blockOffsets(half, n, d);
        for (int lane = 0; lane < kComputeLanes; ++lane)
            for (int mb = 0; mb < m; ++mb)
                slots[std::size_t(d)][std::size_t(lane)].push_back(offsets[std::size_t(lane)] + kPeriod * mb);
    }
    for (DeviceSlots& d : slots) placeW(d, false);
    squeeze(slots, true);
    for (DeviceSlots& d : slots) d.resize(kComputeLanes);
    squeeze(slots, false);
    for (DeviceSlots& d : slots) placeW(d, true);

    Schedule s = makeSchedule(name, n, m, {vShapePlacement(n)}, true);
    for (int d = 0; d < n; ++d) {
        const int down = d, up = 2 * n - 1 - d;
        struct Placed {
            int slot;
            OpKind kind;
            int stage, mb;
        };
        std::vector<Placed> placed;
        placed.reserve(6 * std::size_t(m));
        const auto& own = slots[std::size_t(d)];
        const std::array<std::pair<OpKind, int>, kLanes> what{{{OpKind::F, down},
                                                               {OpKind::F, up},
                                                               {OpKind::B, up},
                                                               {OpKind::B, down},
                                                               {OpKind::W, up},
                                                               {OpKind::W, down}}};
        for (int lane = 0; lane < kLanes; ++lane)
            for (int mb = 0; mb < m; ++mb)
                placed.push_back({own[std::size_t(lane)][std::size_t(mb)], what[std::size_t(lane)].first,
                                  what[std::size_t(lane)].second, mb});
        std::sort(placed.begin(), placed.end(),
                  [](const Placed& a, const Placed& b) { return a.slot < b.slot; });
        reserveOrder(s, d, placed.size());
        for (const Placed& op : placed) pushOp(s, d, op.kind, 0, op.stage, op.mb);
    }
    return s;
}

} // namespace

void checkZbVHalf(const ScheduleParams&) {}
void checkZbVMin(const ScheduleParams&) {}

Schedule zbVHalf(const ScheduleParams& params) {
    return controllableV("zb-v-half", true, params);
}

Schedule zbVMin(const ScheduleParams& params) {
    return controllableV("zb-v-min", false, params);
}

} // namespace stagecraft::gen
