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
    std::vector<double> deviceFree; // end of the last op per device
    std::vector<int> firstWaiter;   // [global op] first device waiting on it
    std::vector<int> nextWaiter;    // [device] next device waiting on the same op
    std::vector<OpRef> waitingFor;  // [device]
    std::vector<int> readyStack;
    // Gradient-sync collectives: members grouped by stage.
    std::vector<std::vector<OpRef>> syncMembers; // [stage]
    std::vector<int> syncArrived;                // [stage]
    std::vector<double> syncReady;               // [stage] latest arrival time
    std::vector<char> arrived;                   // [device] waiting at a collective

    Run(const Schedule& s, const OpIndex& i, const OpCosts& c) : schedule(s), index(i), costs(c) {
        const std::size_t devices = schedule.order.size();
        result.deviceOffset.assign(devices + 1, 0);
        for (std::size_t d = 0; d < devices; ++d)
            result.deviceOffset[d + 1] = result.deviceOffset[d] + schedule.order[d].size();
        result.times.assign(result.deviceOffset.back(), OpTime{});
        head.assign(devices, 0);
        deviceFree.assign(devices, 0.0);
        firstWaiter.assign(result.deviceOffset.back(), kNone);
        nextWaiter.assign(devices, kNone);
        waitingFor.assign(devices, OpRef{});
        arrived.assign(devices, 0);
        syncMembers.resize(static_cast<std::size_t>(std::max(schedule.stagesPerPipe, 0)));
        for (std::size_t d = 0; d < devices; ++d)
            for (std::size_t i = 0; i < schedule.order[d].size(); ++i) {
                const Op& op = schedule.order[d][i];
                if (op.kind == OpKind::GradSync && op.stage >= 0 && op.stage < schedule.stagesPerPipe)
                    syncMembers[op.stage].push_back({int(d), int(i)});
            }
        syncArrived.assign(syncMembers.size(), 0);
        syncReady.assign(syncMembers.size(), 0.0);
    }

    OpTime& timeOf(OpRef ref) { return result.times[result.deviceOffset[ref.device] + ref.index]; }

    void finish(int device, double start, double duration) {
        const OpRef here{device, int(head[device])};
        OpTime& t = timeOf(here);
        t.start = start;
        t.end = start + duration;
        deviceFree[device] = t.end;
        ++head[device];
        // Wake every device that waited on this op.
        const std::size_t gid = result.deviceOffset[device] + here.index;
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
    bool dependenciesReady(int device, const Op& op, double& start) {
        bool ready = true;
        forEachDependency(schedule, index, op, [&](OpRef dep) {
            if (!ready) return;
            if (!dep.valid()) { // missing producer: the validator reports it; never runnable
                ready = false;
                waitingFor[device] = OpRef{};
                return;
            }
            const OpTime& t = timeOf(dep);
            if (t.end < 0) {
                ready = false;
                block(device, dep);
                return;
            }
            start = std::max(start, t.end + (dep.device != device ? costs.comm : 0.0));
        });
        return ready;
    }

    /// Local dependencies of a GradSync/Optimizer: the stage's backward for every micro-batch
    /// of its pipe; all on this device, so they must already have run.
    bool localBackwardDone(int device, const Op& op) {
        const OpKind last = schedule.splitBackward ? OpKind::W : OpKind::B;
        for (int mb = 0; mb < schedule.microbatches; ++mb) {
            if (index.pipeOf(mb) != op.pipe) continue;
            const OpRef dep = index.find(last, op.pipe, op.stage, mb);
            if (!dep.valid() || timeOf(dep).end < 0) {
                waitingFor[device] = dep;
                return false;
            }
        }
        return true;
    }

    void runDevice(int device) {
        const auto& ops = schedule.order[device];
        while (head[device] < ops.size() && !arrived[device]) {
            const Op& op = ops[head[device]];
            double start = deviceFree[device];
            if (op.kind == OpKind::GradSync) {
                if (!localBackwardDone(device, op)) return;
                arriveAtSync(device, op, start);
                continue;
            }
            if (op.kind == OpKind::Optimizer) {
                if (!localBackwardDone(device, op)) return;
            } else if (!dependenciesReady(device, op, start)) {
                return;
            }
            finish(device, start, costs.of(op, schedule.stagesPerPipe));
        }
    }

    void arriveAtSync(int device, const Op& op, double ready) {
        const int stage = op.stage;
        arrived[device] = 1;
        syncReady[stage] = std::max(syncReady[stage], ready);
        if (++syncArrived[stage] < int(syncMembers[stage].size())) return;
        const double start = syncReady[stage];
        for (const OpRef& member : syncMembers[stage]) {
            arrived[member.device] = 0;
            const Op& memberOp = schedule.order[member.device][member.index];
            finish(member.device, start, costs.of(memberOp, schedule.stagesPerPipe));
            if (member.device != device) readyStack.push_back(member.device);
        }
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
            if (arrived[d]) {
                b.reason = here + " for the other replicas of stage " + std::to_string(op.stage) +
                           " to reach their gradient sync";
            } else if (waitingFor[d].valid()) {
                b.waitingFor = waitingFor[d];
                const Op& dep = schedule.order[b.waitingFor.device][b.waitingFor.index];
                b.reason = here + " for " + describeOp(dep) + " at position " +
                           std::to_string(b.waitingFor.index) + " of device " +
                           std::to_string(b.waitingFor.device);
            } else {
                b.reason = here + " for an op that the schedule does not contain";
            }
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
