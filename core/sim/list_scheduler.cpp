#include "sim/list_scheduler.h"

#include "ir/large_array.h"
#include "ir/op_name.h"

#include <algorithm>
#include <limits>

namespace stagecraft {

OpCosts fullStageCosts(const Schedule& schedule, double f, double b, double w, double comm, double gradSync,
                       double optimizer) {
    // A chunk stage costs its share of a full stage, a sequence slice its share of a micro-batch.
    const double fraction = schedule.stageFraction() * schedule.sliceShare();
    const std::size_t slots = static_cast<std::size_t>(schedule.pipes) * schedule.stagesPerPipe;
    OpCosts costs;
    costs.comm = comm;
    const double backward = schedule.splitBackward ? b : b + w;
    // A recompute re-runs its stage's forward: it costs what the forward costs.
    const std::array<double, kOpKindCount> perKind{
        f * fraction, backward * fraction, schedule.splitBackward ? w * fraction : 0.0,
        gradSync,     optimizer,           f * fraction};
    for (int k = 0; k < kOpKindCount; ++k) costs.duration[k].assign(slots, perKind[k]);
    return costs;
}

namespace {

constexpr int kNone = -1;
constexpr std::int64_t kNoOp = -1;
constexpr int kWaitBucketBits = 12;
constexpr std::size_t kPrefetchOps = 8;

/// Bucket of a waited-for op in the small table of waited-for counts (Fibonacci hashing: ops at
/// the same position of different devices land in different buckets).
std::size_t waitBucket(std::size_t gid) {
    return std::size_t((std::uint64_t(gid) * 0x9E3779B97F4A7C15ull) >> (64 - kWaitBucketBits));
}

/// Where a run keeps each op's times: the result's OpTime array (listSchedule) or the compute
/// events of a timeline (listScheduleInto). An op has run once its end is not negative.
struct TimesSink {
    OpTime* times;
    double end(std::size_t gid) const { return times[gid].end; }
    const void* at(std::size_t gid) const { return &times[gid]; }
    void set(std::size_t gid, double start, double end) const { times[gid] = OpTime{start, end}; }
};

struct EventSink {
    TimelineEvent* events;
    double end(std::size_t gid) const { return events[gid].end; }
    const void* at(std::size_t gid) const { return &events[gid]; }
    void set(std::size_t gid, double start, double end) const {
        events[gid].start = start;
        events[gid].end = end;
    }
};

/// State of one run; kept in one place so the helpers stay small.
template <typename Sink>
struct Run {
    const Schedule& schedule;
    const OpIndex& index;
    const OpCosts& costs;
    Sink sink;
    ListScheduleResult result;
    std::array<const double*, kOpKindCount> duration{}; // costs.duration[kind].data()
    bool sliceScaled = false;                           // some slice costs other than the mean
    bool uniformComm = true;                            // every transfer takes costs.comm
    std::vector<std::size_t> head;                      // next op per device
    std::vector<double> deviceFree;                     // end of the last compute op per device
    std::vector<double> commFree;                       // end of the last collective per device
    // Devices waiting for an op, chained per hash bucket of the op (newest first): a small
    // table that stays in L1 where a per-op table would miss the cache on every completion.
    std::vector<int> bucketHead;          // [waitBucket(gid)] last device to wait on the bucket
    std::vector<int> nextWaiter;          // [device] next device in the same bucket
    std::vector<std::int64_t> waitingFor; // [device] global id, kNoOp for none or an absent op
    std::vector<int> readyStack;
    // Gradient-sync collectives: members grouped by stage; each device's sync per (pipe, stage).
    std::vector<std::vector<OpRef>> syncMembers; // [stage]
    std::vector<int> syncPosted;                 // [stage]
    std::vector<double> syncReady;               // [stage] latest post time
    std::vector<OpRef> syncOf;                   // [pipe * S + stage]
    // Overlapped slots: heads per device and the next one each device reaches.
    ScheduleSlots slots;
    std::vector<std::size_t> slotCursor; // [device] index into slots.of[device]

    Run(const Schedule& s, const OpIndex& i, const OpCosts& c, Sink k)
        : schedule(s), index(i), costs(c), sink(k) {
        const std::size_t devices = schedule.order.size();
        result.deviceOffset.assign(devices + 1, 0);
        for (std::size_t d = 0; d < devices; ++d)
            result.deviceOffset[d + 1] = result.deviceOffset[d] + schedule.order[d].size();
        for (int k = 0; k < kOpKindCount; ++k) {
            duration[k] = costs.duration[k].data();
            sliceScaled |= !costs.sliceScale[k].empty();
        }
        uniformComm = costs.uniformComm();
        head.assign(devices, 0);
        deviceFree.assign(devices, 0.0);
        commFree.assign(devices, 0.0);
        bucketHead.assign(std::size_t(1) << kWaitBucketBits, kNone);
        nextWaiter.assign(devices, kNone);
        waitingFor.assign(devices, kNoOp);
        const int stages = std::max(schedule.stagesPerPipe, 0);
        syncMembers.resize(std::size_t(stages));
        syncOf.assign(std::size_t(std::max(schedule.pipes, 0)) * stages, OpRef{});
        for (std::size_t d = 0; d < devices; ++d)
            for (std::size_t i = 0; i < schedule.order[d].size(); ++i) {
                const Op& op = schedule.order[d][i];
                if (op.kind != OpKind::GradSync || op.stage < 0 || op.stage >= stages ||
                    op.pipe >= schedule.pipes)
                    continue;
                syncMembers[op.stage].push_back({int(d), int(i)});
                syncOf[std::size_t(op.pipe) * stages + op.stage] = {int(d), int(i)};
            }
        syncPosted.assign(syncMembers.size(), 0);
        syncReady.assign(syncMembers.size(), 0.0);
        if (!schedule.overlapped.empty() || !schedule.wholeBackward.empty())
            slots = findSlots(schedule, index);
        slots.of.resize(devices);
        slotCursor.assign(devices, 0);
    }

    /// Try to run `slot` of `device`: every external input of its ops must have arrived. Returns
    /// false when the device must wait.
    bool runSlot(int device, const Slot& slot, std::size_t begin, std::size_t end, double& free) {
        const Op* ops = schedule.order[device].data();
        const std::size_t i = std::size_t(slot.position);
        const std::size_t gid = begin + i, length = std::size_t(slot.length);
        double start = free, cost = 0;
        for (std::size_t k = 0; k < length; ++k) {
            const OpDeps producers = index.depsOf(gid + k);
            for (const std::int32_t dep : {producers.first, producers.second}) {
                if (dep == OpDeps::kNone || (dep >= 0 && std::size_t(dep) - gid < length)) continue;
                if (!arrived(device, ops[i + k].mb, dep, begin, end, start)) return false;
            }
            cost += costOf(ops[i + k]);
        }
        if (slot.overlapped) cost *= costs.overlap;
        for (std::size_t k = 0; k < length; ++k) complete(gid + k, start, cost);
        free = start + cost;
        return true;
    }

    std::size_t gidOf(OpRef ref) const { return result.deviceOffset[ref.device] + ref.index; }
    double costOf(const Op& op) const {
        if (sliceScaled) return costs.of(op, schedule.stagesPerPipe);
        return duration[static_cast<int>(op.kind)]
                       [std::size_t(op.pipe) * std::size_t(schedule.stagesPerPipe) + std::size_t(op.stage)];
    }

    /// Record an op's times and wake every device that waited on it.
    void complete(std::size_t gid, double start, double duration) {
        sink.set(gid, start, start + duration);
        int* head = &bucketHead[waitBucket(gid)];
        if (*head != kNone) wake(gid, head);
    }

    /// Make the devices waiting on `gid` ready, the one that started waiting last first.
    void wake(std::size_t gid, int* link) {
        while (*link != kNone) {
            const int w = *link;
            if (waitingFor[w] != std::int64_t(gid)) {
                link = &nextWaiter[w];
                continue;
            }
            *link = nextWaiter[w];
            nextWaiter[w] = kNone;
            waitingFor[w] = kNoOp;
            readyStack.push_back(w);
        }
    }

    void block(int device, std::size_t gid) {
        int& head = bucketHead[waitBucket(gid)];
        waitingFor[device] = std::int64_t(gid);
        nextWaiter[device] = head;
        head = device;
    }

    /// Device and position of global id `gid`.
    OpRef refOf(std::size_t gid) const {
        const auto& offsets = result.deviceOffset;
        const auto device = std::upper_bound(offsets.begin(), offsets.end(), gid) - offsets.begin() - 1;
        return {std::int32_t(device), std::int32_t(gid - offsets[std::size_t(device)])};
    }

    /// Fold the arrival of producer `dep` of an op of micro-batch (slice unit) `mb` into `start`,
    /// or block on it. Returns false when the device must wait. `begin`..`end` are the global ids
    /// of the device's own ops.
    bool arrived(int device, int mb, std::int32_t dep, std::size_t begin, std::size_t end, double& start) {
        if (dep == OpDeps::kMissing) { // the validator reports it; never runnable
            waitingFor[device] = kNoOp;
            return false;
        }
        const double depEnd = sink.end(std::size_t(dep));
        if (depEnd < 0) {
            block(device, std::size_t(dep));
            return false;
        }
        if (std::size_t(dep) - begin < end - begin) {
            start = std::max(start, depEnd);
        } else {
            const double comm = uniformComm
                                    ? costs.comm
                                    : costs.commBetween(index.refOf(std::size_t(dep)).device, device, mb);
            start = std::max(start, depEnd + comm);
        }
        return true;
    }

    /// Local dependencies of a GradSync/Optimizer: the stage's backward for every micro-batch
    /// of its pipe; all on this device, so they must already have run.
    bool localBackwardDone(int device, const Op& op) {
        const OpKind last = schedule.splitBackward ? OpKind::W : OpKind::B;
        for (int mb = 0; mb < schedule.microbatches; ++mb) {
            if (index.pipeOf(mb) != op.pipe) continue;
            const OpRef dep = index.find(last, op.pipe, op.stage, mb);
            if (!dep.valid() || sink.end(gidOf(dep)) < 0) {
                if (dep.valid() && dep.device != device)
                    block(device, gidOf(dep));
                else
                    waitingFor[device] = dep.valid() ? std::int64_t(gidOf(dep)) : kNoOp;
                return false;
            }
        }
        return true;
    }

    /// Run device `device` from its head until it must wait or is done. The common case, a
    /// compute op, reads its two resolved producers and nothing else; the head and the device's
    /// free time live in registers until the device stops.
    void runDevice(int device) {
        const Op* ops = schedule.order[device].data();
        const std::size_t count = schedule.order[device].size();
        const std::size_t begin = result.deviceOffset[device];
        const std::size_t end = begin + count;
        const OpDeps* deps = count > 0 ? &index.depsOf(begin) : nullptr;
        std::size_t i = head[device];
        double free = deviceFree[device];
        const std::vector<Slot>& deviceSlots = slots.of[device];
        std::size_t& cursor = slotCursor[device];
        std::size_t nextSlot =
            cursor < deviceSlots.size() ? std::size_t(deviceSlots[cursor].position) : count;
        for (; i < count; ++i) {
            const Op& op = ops[i];
            const std::size_t gid = begin + i;
            if (i == nextSlot) [[unlikely]] {
                if (!runSlot(device, deviceSlots[cursor], begin, end, free)) break;
                i += std::size_t(deviceSlots[cursor].length) - 1;
                ++cursor;
                nextSlot = cursor < deviceSlots.size() ? std::size_t(deviceSlots[cursor].position) : count;
                continue;
            }
            // Every device walks its own stretch of each per-op array, a few ops per visit:
            // more streams than the hardware prefetcher follows, so fetch the next ones here.
            if (i + kPrefetchOps < count) {
                __builtin_prefetch(&ops[i + kPrefetchOps]);
                __builtin_prefetch(&deps[i + kPrefetchOps]);
                __builtin_prefetch(sink.at(gid + kPrefetchOps), 1);
            }
            double start = free;
            if (isComputeKind(op.kind)) [[likely]] {
                const OpDeps producers = deps[i];
                if (producers.first != OpDeps::kNone &&
                    !arrived(device, op.mb, producers.first, begin, end, start))
                    break;
                if (producers.second != OpDeps::kNone &&
                    !arrived(device, op.mb, producers.second, begin, end, start))
                    break;
            } else {
                if (!localBackwardDone(device, op)) break;
                if (op.kind == OpKind::GradSync) {
                    // Posted: the device goes on while the collective runs.
                    head[device] = i + 1;
                    deviceFree[device] = free;
                    post(op, start);
                    continue;
                }
                if (op.kind == OpKind::Optimizer) {
                    const OpRef sync = syncOf[std::size_t(op.pipe) * schedule.stagesPerPipe + op.stage];
                    if (sync.valid() && sync.device == device) {
                        const double syncEnd = sink.end(gidOf(sync));
                        if (syncEnd < 0) {
                            block(device, gidOf(sync));
                            break;
                        }
                        start = std::max(start, syncEnd);
                    }
                }
            }
            const double cost = costOf(op);
            free = start + cost;
            complete(gid, start, cost);
        }
        head[device] = i;
        deviceFree[device] = free;
    }

    /// A device posts its part of a stage's gradient collective; the last member to post starts
    /// it on every member's communication lane.
    void post(const Op& op, double postedAt) {
        const int stage = op.stage;
        syncReady[stage] = std::max(syncReady[stage], postedAt);
        if (++syncPosted[stage] < int(syncMembers[stage].size())) return;
        double start = syncReady[stage];
        for (const OpRef& member : syncMembers[stage]) start = std::max(start, commFree[member.device]);
        for (const OpRef& member : syncMembers[stage]) {
            const double duration = costOf(schedule.order[member.device][member.index]);
            commFree[member.device] = start + duration;
            complete(gidOf(member), start, duration);
        }
    }

    void runAll() {
        for (int d = int(schedule.order.size()) - 1; d >= 0; --d) readyStack.push_back(d);
        while (!readyStack.empty()) {
            const int device = readyStack.back();
            readyStack.pop_back();
            runDevice(device);
        }
        describeBlocked();
    }

    void describeBlocked() {
        for (std::size_t d = 0; d < schedule.order.size(); ++d) {
            if (head[d] >= schedule.order[d].size()) continue;
            BlockedDevice b;
            b.device = int(d);
            b.at = OpRef{int(d), int(head[d])};
            if (waitingFor[d] != kNoOp) b.waitingFor = refOf(std::size_t(waitingFor[d]));
            b.reason = waitReason(schedule, b.at, b.waitingFor);
            result.blocked.push_back(std::move(b));
        }
        // Collectives that never started: some replica did not reach its sync.
        for (std::size_t stage = 0; stage < syncMembers.size(); ++stage)
            if (syncPosted[stage] > 0 && syncPosted[stage] < int(syncMembers[stage].size()) &&
                result.blocked.empty()) {
                BlockedDevice b;
                b.device = syncMembers[stage].front().device;
                b.at = syncMembers[stage].front();
                b.reason = "the gradient sync of stage " + std::to_string(stage) + " never starts: only " +
                           std::to_string(syncPosted[stage]) + " of its " +
                           std::to_string(syncMembers[stage].size()) + " replicas post it";
                result.blocked.push_back(std::move(b));
            }
        result.cycle = findWaitRing(result.blocked, schedule.order.size());
    }
};

} // namespace

std::string waitReason(const Schedule& schedule, OpRef at, OpRef waitingFor) {
    const Op& op = schedule.order[std::size_t(at.device)][std::size_t(at.index)];
    const std::string here = "device " + std::to_string(at.device) + " waits at position " +
                             std::to_string(at.index) + " (" +
                             opName(op, schedule.splitBackward, schedule.sequenceSlices) + ")";
    if (!waitingFor.valid()) return here + " for an op that the schedule does not contain";
    const Op& dep = schedule.order[std::size_t(waitingFor.device)][std::size_t(waitingFor.index)];
    std::string reason = here + " for " + opName(dep, schedule.splitBackward, schedule.sequenceSlices) +
                         " at position " + std::to_string(waitingFor.index) + " of device " +
                         std::to_string(waitingFor.device);
    if (dep.kind == OpKind::GradSync) reason += ", a gradient sync whose other replicas never post it";
    return reason;
}

std::vector<int> findWaitRing(std::span<const BlockedDevice> blocked, std::size_t devices) {
    constexpr int kNoDevice = -1;
    std::vector<int> next(devices, kNoDevice);
    for (const auto& b : blocked)
        if (b.waitingFor.valid()) next[std::size_t(b.device)] = b.waitingFor.device;
    for (const auto& b : blocked) {
        std::vector<int> seenAt(devices, kNoDevice);
        std::vector<int> path;
        for (int d = b.device; d != kNoDevice; d = next[std::size_t(d)]) {
            if (seenAt[std::size_t(d)] != kNoDevice)
                return std::vector<int>(path.begin() + seenAt[std::size_t(d)], path.end());
            seenAt[std::size_t(d)] = int(path.size());
            path.push_back(d);
        }
    }
    return {};
}

void splitSlots(const Schedule& schedule, const ScheduleSlots& slots, const OpCosts& costs,
                std::span<TimelineEvent> events) {
    std::size_t begin = 0;
    for (std::size_t d = 0; d < schedule.order.size() && d < slots.of.size(); ++d) {
        for (const Slot& slot : slots.of[d]) {
            const std::size_t gid = begin + std::size_t(slot.position);
            const int length = slot.length;
            const double start = events[gid].start, end = events[gid].end;
            if (end < 0) continue; // never ran
            double total = 0;
            for (int k = 0; k < length; ++k) total += costs.of(events[gid + k].op, schedule.stagesPerPipe);
            double at = start;
            for (int k = 0; k < length; ++k) {
                const double share =
                    total > 0 ? costs.of(events[gid + k].op, schedule.stagesPerPipe) / total : 0.0;
                const double next = k + 1 == length ? end : at + (end - start) * share;
                events[gid + k].start = at;
                events[gid + k].end = next;
                at = next;
            }
        }
        begin += schedule.order[d].size();
    }
}

ListScheduleResult listSchedule(const Schedule& schedule, const OpIndex& index, const OpCosts& costs) {
    std::vector<OpTime> times;
    assignLarge(times, schedule.opCount(), OpTime{});
    Run<TimesSink> run(schedule, index, costs, TimesSink{times.data()});
    run.runAll();
    run.result.times = std::move(times);
    return std::move(run.result);
}

ListScheduleResult listScheduleInto(const Schedule& schedule, const OpIndex& index, const OpCosts& costs,
                                    std::span<TimelineEvent> events) {
    Run<EventSink> run(schedule, index, costs, EventSink{events.data()});
    run.runAll();
    return std::move(run.result);
}

} // namespace stagecraft
