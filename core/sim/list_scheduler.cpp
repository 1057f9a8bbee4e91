#include "sim/list_scheduler.h"

#include <algorithm>
#include <limits>

namespace stagecraft {

OpCosts fullStageCosts(const Schedule& schedule, double f, double b, double w, double comm, double gradSync,
                       double optimizer) {
    const double fraction = schedule.stageFraction();
    const std::size_t slots = static_cast<std::size_t>(schedule.pipes) * schedule.stagesPerPipe;
    OpCosts costs;
    costs.comm = comm;
    const double backward = schedule.splitBackward ? b : b + w;
    const std::array<double, kOpKindCount> perKind{
        f * fraction, backward * fraction, schedule.splitBackward ? w * fraction : 0.0, gradSync, optimizer};
    for (int k = 0; k < kOpKindCount; ++k) costs.duration[k].assign(slots, perKind[k]);
    return costs;
}

namespace {

constexpr int kNone = -1;

/// State of one run; kept in one place so the helpers stay small.
struct Run {
    const Schedule& schedule;
    const OpIndex& index;
    const OpCosts& costs;
    ListScheduleResult result;
    std::vector<std::size_t> head;  // next op per device
    std::vector<double> deviceFree; // end of the last compute op per device
    std::vector<double> commFree;   // end of the last collective per device
    std::vector<int> firstWaiter;   // [global op] first device waiting on it
    std::vector<int> nextWaiter;    // [device] next device waiting on the same op
    std::vector<OpRef> waitingFor;  // [device]
    std::vector<int> readyStack;
    // Gradient-sync collectives: members grouped by stage; each device's sync per (pipe, stage).
    std::vector<std::vector<OpRef>> syncMembers; // [stage]
    std::vector<int> syncPosted;                 // [stage]
    std::vector<double> syncReady;               // [stage] latest post time
    std::vector<OpRef> syncOf;                   // [pipe * S + stage]

    Run(const Schedule& s, const OpIndex& i, const OpCosts& c) : schedule(s), index(i), costs(c) {
        const std::size_t devices = schedule.order.size();
        result.deviceOffset.assign(devices + 1, 0);
        for (std::size_t d = 0; d < devices; ++d)
            result.deviceOffset[d + 1] = result.deviceOffset[d] + schedule.order[d].size();
        result.times.assign(result.deviceOffset.back(), OpTime{});
        head.assign(devices, 0);
        deviceFree.assign(devices, 0.0);
        commFree.assign(devices, 0.0);
        firstWaiter.assign(result.deviceOffset.back(), kNone);
        nextWaiter.assign(devices, kNone);
        waitingFor.assign(devices, OpRef{});
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
    }

    OpTime& timeOf(OpRef ref) { return result.times[result.deviceOffset[ref.device] + ref.index]; }

    /// Record an op's times and wake every device that waited on it.
    void complete(OpRef ref, double start, double duration) {
        OpTime& t = timeOf(ref);
        t.start = start;
        t.end = start + duration;
        const std::size_t gid = result.deviceOffset[ref.device] + ref.index;
        for (int w = firstWaiter[gid]; w != kNone;) {
            const int next = nextWaiter[w];
            nextWaiter[w] = kNone;
            waitingFor[w] = OpRef{};
            readyStack.push_back(w);
            w = next;
        }
        firstWaiter[gid] = kNone;
    }

    void block(int device, OpRef dep) {
        const std::size_t gid = result.deviceOffset[dep.device] + dep.index;
        waitingFor[device] = dep;
        nextWaiter[device] = firstWaiter[gid];
        firstWaiter[gid] = device;
    }

    /// Earliest start of a compute op from its data dependencies, or block on a missing one.
    /// Returns false when the device must wait.
    bool dependenciesReady(int device, std::size_t gid, double& start) {
        const OpDeps& deps = index.depsOf(gid);
        for (const std::int32_t dep : {deps.first, deps.second}) {
            if (dep == OpDeps::kNone) continue;
            if (dep == OpDeps::kMissing) { // the validator reports it; never runnable
                waitingFor[device] = OpRef{};
                return false;
            }
            const OpTime& t = result.times[std::size_t(dep)];
            if (t.end < 0) {
                block(device, index.refOf(std::size_t(dep)));
                return false;
            }
            const bool local = std::size_t(dep) >= result.deviceOffset[device] &&
                               std::size_t(dep) < result.deviceOffset[device + 1];
            if (!local) {
                const double comm = costs.nodeOfDevice.empty()
                                        ? costs.comm
                                        : costs.commBetween(index.refOf(std::size_t(dep)).device, device);
                start = std::max(start, t.end + comm);
            } else {
                start = std::max(start, t.end);
            }
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
            if (!dep.valid() || timeOf(dep).end < 0) {
                if (dep.valid() && dep.device != device)
                    block(device, dep);
                else
                    waitingFor[device] = dep;
                return false;
            }
        }
        return true;
    }

    void runDevice(int device) {
        const auto& ops = schedule.order[device];
        while (head[device] < ops.size()) {
            const OpRef here{device, int(head[device])};
            const Op& op = ops[here.index];
            double start = deviceFree[device];
            if (op.kind == OpKind::GradSync) {
                if (!localBackwardDone(device, op)) return;
                ++head[device]; // posted: the device goes on while the collective runs
                post(here, op, start);
                continue;
            }
            if (op.kind == OpKind::Optimizer) {
                if (!localBackwardDone(device, op)) return;
                const OpRef sync = syncOf[std::size_t(op.pipe) * schedule.stagesPerPipe + op.stage];
                if (sync.valid() && sync.device == device) {
                    if (timeOf(sync).end < 0) {
                        block(device, sync);
                        return;
                    }
                    start = std::max(start, timeOf(sync).end);
                }
            } else if (!dependenciesReady(device, result.deviceOffset[device] + here.index, start)) {
                return;
            }
            ++head[device];
            deviceFree[device] = start + costs.of(op, schedule.stagesPerPipe);
            complete(here, start, costs.of(op, schedule.stagesPerPipe));
        }
    }

    /// A device posts its part of a stage's gradient collective; the last member to post starts
    /// it on every member's communication lane.
    void post(OpRef here, const Op& op, double postedAt) {
        const int stage = op.stage;
        syncReady[stage] = std::max(syncReady[stage], postedAt);
        if (++syncPosted[stage] < int(syncMembers[stage].size())) return;
        double start = syncReady[stage];
        for (const OpRef& member : syncMembers[stage]) start = std::max(start, commFree[member.device]);
        for (const OpRef& member : syncMembers[stage]) {
            const double duration =
                costs.of(schedule.order[member.device][member.index], schedule.stagesPerPipe);
            commFree[member.device] = start + duration;
            complete(member, start, duration);
        }
        (void)here;
    }

    void describeBlocked() {
        for (std::size_t d = 0; d < schedule.order.size(); ++d) {
            if (head[d] >= schedule.order[d].size()) continue;
            BlockedDevice b;
            b.device = int(d);
            b.at = OpRef{int(d), int(head[d])};
            const Op& op = schedule.order[d][head[d]];
            const std::string here = "device " + std::to_string(d) + " waits at position " +
                                     std::to_string(head[d]) + " (" + describeOp(op) + ")";
            if (waitingFor[d].valid()) {
                b.waitingFor = waitingFor[d];
                const Op& dep = schedule.order[b.waitingFor.device][b.waitingFor.index];
                b.reason = here + " for " + describeOp(dep) + " at position " +
                           std::to_string(b.waitingFor.index) + " of device " +
                           std::to_string(b.waitingFor.device);
                if (dep.kind == OpKind::GradSync)
                    b.reason += ", a gradient sync whose other replicas never post it";
            } else {
                b.reason = here + " for an op that the schedule does not contain";
            }
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
        findCycle();
    }

    /// Follow "waits for an op on device k" edges from the first blocked device until a device
    /// repeats: the devices on that loop wait on each other.
    void findCycle() {
        std::vector<int> next(schedule.order.size(), kNone);
        for (const auto& b : result.blocked)
            if (b.waitingFor.valid()) next[b.device] = b.waitingFor.device;
        for (const auto& b : result.blocked) {
            std::vector<int> seenAt(schedule.order.size(), kNone);
            std::vector<int> path;
            for (int d = b.device; d != kNone; d = next[d]) {
                if (seenAt[d] != kNone) {
                    result.cycle.assign(path.begin() + seenAt[d], path.end());
                    return;
                }
                seenAt[d] = int(path.size());
                path.push_back(d);
            }
        }
    }
};

} // namespace

ListScheduleResult listSchedule(const Schedule& schedule, const OpIndex& index, const OpCosts& costs) {
    Run run(schedule, index, costs);
    for (int d = int(schedule.order.size()) - 1; d >= 0; --d) run.readyStack.push_back(d);
    while (!run.readyStack.empty()) {
        const int device = run.readyStack.back();
        run.readyStack.pop_back();
        run.runDevice(device);
    }
    run.describeBlocked();
    return std::move(run.result);
}

} // namespace stagecraft
