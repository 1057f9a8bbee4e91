#include "passes/lower.h"

#include "error.h"
#include "ir/op_index.h"
#include "passes/iteration_tail.h"
#include "sim/list_scheduler.h"
#include "validate/validator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace stagecraft {

namespace {

/// One transfer: the producer's and the consumer's global op ids.
struct Transfer {
    std::int32_t producer;
    std::int32_t consumer;
    Direction dir;
};

/// Every op takes one step and transfers take none. The steps of this run place the transfers
/// (see orderTransfers): integer keys, and every op strictly after the ops it depends on.
ListScheduleResult unitStepRun(const Schedule& s, const OpIndex& index) {
    OpCosts costs;
    const std::size_t slots = std::size_t(s.pipes) * std::size_t(s.stagesPerPipe);
    for (auto& d : costs.duration) d.assign(slots, 1.0);
    ListScheduleResult run = listSchedule(s, index, costs);
    if (!run.complete()) throw std::logic_error("lower: a validated schedule did not run to the end");
    return run;
}

/// Stable counting sort of `items` by `keys` (small non-negative integers): linear.
template <typename T>
void sortByKey(std::vector<T>& items, std::vector<std::uint32_t>& keys) {
    std::uint32_t maxKey = 0;
    for (std::uint32_t key : keys) maxKey = std::max(maxKey, key);
    std::vector<std::uint32_t> start(std::size_t(maxKey) + 2, 0);
    for (std::uint32_t key : keys) ++start[key + 1];
    for (std::size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
    std::vector<T> sorted(items.size());
    std::vector<std::uint32_t> sortedKeys(keys.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::uint32_t at = start[keys[i]]++;
        sorted[at] = items[i];
        sortedKeys[at] = keys[i];
    }
    items = std::move(sorted);
    keys = std::move(sortedKeys);
}

/// The gradient syncs of each rank in one global order (by the step their collective starts, then
/// by stage): collectives run one after the other on a rank's collective lane and NCCL matches
/// collectives in issue order, so two ranks that post the syncs they share in different orders
/// wait on each other (BitPipe's eager syncs, as generated, do). A sync only moves later, which
/// keeps it after the backward ops it reduces; it stays a post, so nothing else waits longer.
Schedule orderSyncs(const Schedule& s) {
    const OpIndex index(s);
    const ListScheduleResult run = unitStepRun(s, index);
    Schedule out = s;
    for (int d = 0; d < s.devices; ++d) {
        const std::vector<Op>& ops = s.order[std::size_t(d)];
        std::vector<std::size_t> syncs; // positions
        for (std::size_t i = 0; i < ops.size(); ++i)
            if (ops[i].kind == OpKind::GradSync) syncs.push_back(i);
        auto key = [&](std::size_t i) { return std::pair(run.time(d, int(i)).start, ops[i].stage); };
        if (std::is_sorted(syncs.begin(), syncs.end(),
                           [&](std::size_t a, std::size_t b) { return key(a) < key(b); }))
            continue;
        std::vector<std::size_t> wanted = syncs;
        std::stable_sort(wanted.begin(), wanted.end(),
                         [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
        // The k-th sync in global order is posted after its own position and after the (k-1)-th.
        std::vector<std::vector<std::size_t>> after(ops.size());
        std::size_t target = 0;
        for (std::size_t position : wanted) {
            target = std::max(target, position);
            after[target].push_back(position);
        }
        std::vector<Op>& rebuilt = out.order[std::size_t(d)];
        rebuilt.clear();
        for (std::size_t i = 0; i < ops.size(); ++i) {
            if (ops[i].kind != OpKind::GradSync) rebuilt.push_back(ops[i]);
            for (std::size_t position : after[i]) rebuilt.push_back(ops[position]);
        }
    }
    return out;
}

/// All cross-rank dependencies, in the one global order every rank posts them in: by the step at
/// which their consumer starts. If a rank consumes transfer X no later than it produces transfer
/// Y, X's consumer starts strictly before Y's (every op takes a step and follows its inputs), so
/// this order never asks a rank to post Y before X when its own order needs X first. Ties go by
/// the step the producer ends, then by the consumers' order. Radix sort on integer steps: linear.
std::vector<Transfer> orderTransfers(const Schedule& s, const OpIndex& index, const ListScheduleResult& run) {
    std::vector<Transfer> transfers;
    transfers.reserve(index.crossDeviceDependencies());
    for (std::size_t gid = 0; gid < index.opCount(); ++gid) {
        const OpDeps& deps = index.depsOf(gid);
        const int device = index.deviceOf(gid);
        for (std::int32_t dep : {deps.first, deps.second}) {
            if (dep < 0 || index.deviceOf(std::size_t(dep)) == device) continue;
            const OpRef producer = index.refOf(std::size_t(dep));
            const Op& op = s.order[std::size_t(producer.device)][std::size_t(producer.index)];
            transfers.push_back({dep, std::int32_t(gid), op.kind == OpKind::F ? Direction::F : Direction::B});
        }
    }
    std::vector<std::uint32_t> keys(transfers.size());
    for (std::size_t i = 0; i < transfers.size(); ++i)
        keys[i] = std::uint32_t(run.times[std::size_t(transfers[i].producer)].end);
    sortByKey(transfers, keys);
    for (std::size_t i = 0; i < transfers.size(); ++i)
        keys[i] = std::uint32_t(run.times[std::size_t(transfers[i].consumer)].start);
    sortByKey(transfers, keys);
    return transfers;
}

/// When device `d` reaches each position of its order in the unit-step run: the start of a compute
/// or optimizer op, the end of the op before for a sync (a post takes no time). Non-decreasing.
std::vector<double> reachTimes(const Schedule& s, const ListScheduleResult& run, int d) {
    const std::vector<Op>& ops = s.order[std::size_t(d)];
    std::vector<double> reach(ops.size());
    double free = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const OpTime& t = run.time(d, int(i));
        if (ops[i].kind == OpKind::GradSync) {
            reach[i] = free;
        } else {
            reach[i] = t.start;
            free = t.end;
        }
    }
    return reach;
}

Instruction computeInstruction(const Op& op) {
    Instruction in;
    in.kind = op.kind == OpKind::GradSync    ? InstrKind::GradSync
              : op.kind == OpKind::Optimizer ? InstrKind::Optimizer
                                             : InstrKind::Compute;
    in.op = op.kind;
    in.pipe = op.pipe;
    in.stage = op.stage;
    in.mb = isComputeKind(op.kind) ? op.mb : -1;
    return in;
}

Instruction transferInstruction(bool send, const Op& local, Direction dir) {
    Instruction in;
    in.kind = send ? InstrKind::Send : InstrKind::Recv;
    in.dir = dir;
    in.pipe = local.pipe;
    in.stage = local.stage;
    in.mb = local.mb;
    return in;
}

/// One Send or Recv of a rank, in global order, with the transfer it belongs to.
struct Pending {
    std::int32_t transfer;
    bool send;
};

} // namespace

LowerOptions boundaryBytesOf(const Schedule& schedule, double bytesPerTransfer,
                             const std::vector<double>& gradientBytes,
                             const std::vector<double>& sliceShares) {
    LowerOptions options;
    options.sliceShares = sliceShares;
    for (const double bytes : gradientBytes)
        options.gradientBytes.push_back(std::uint64_t(std::max(0.0, bytes)));
    if (bytesPerTransfer >= 1)
        options.boundaryBytes.assign(std::size_t(std::max(0, schedule.stagesPerPipe - 1)),
                                     std::uint64_t(bytesPerTransfer));
    return options;
}

void checkBoundaryBytes(const LowerOptions& options, int stagesPerPipe, int sequenceSlices) {
    if (!options.sliceShares.empty() &&
        options.sliceShares.size() != std::size_t(std::max(sequenceSlices, 1)))
        throw ValidationError("lower.bytes", "sliceShares",
                              "transfer shares are given for " + std::to_string(options.sliceShares.size()) +
                                  " sequence slices, the schedule cuts each micro-batch into " +
                                  std::to_string(sequenceSlices));
    for (std::size_t q = 0; q < options.sliceShares.size(); ++q)
        if (!(options.sliceShares[q] > 0) || !std::isfinite(options.sliceShares[q]))
            throw ValidationError("lower.bytes", "sliceShares",
                                  "slice " + std::to_string(q) + "'s transfer share is " +
                                      std::to_string(options.sliceShares[q]) +
                                      ": it must be a positive number");
    if (!options.gradientBytes.empty() &&
        options.gradientBytes.size() != std::size_t(std::max(stagesPerPipe, 0)))
        throw ValidationError("lower.bytes", "gradientBytes",
                              "gradient bytes are given for " + std::to_string(options.gradientBytes.size()) +
                                  " stages, the schedule has " + std::to_string(stagesPerPipe) + " per pipe");
    if (options.boundaryBytes.empty()) return;
    const std::size_t boundaries = std::size_t(std::max(stagesPerPipe - 1, 0));
    if (options.boundaryBytes.size() != boundaries)
        throw ValidationError("lower.bytes", "boundaryBytes",
                              "bytes are given for " + std::to_string(options.boundaryBytes.size()) +
                                  " stage boundaries, the schedule has " + std::to_string(boundaries) +
                                  " (stages per pipe - 1)");
    for (std::size_t b = 0; b < boundaries; ++b)
        if (options.boundaryBytes[b] == 0)
            throw ValidationError("lower.bytes", "boundaryBytes",
                                  "boundary s" + std::to_string(b) + "->s" + std::to_string(b + 1) +
                                      " carries 0 bytes: every transfer carries at least one byte");
}

Lowered lower(const Schedule& input, const LowerOptions& options) {
    validate(input);
    checkBoundaryBytes(options, input.stagesPerPipe, input.sequenceSlices);
    // A rank runs an overlapped slot's ops one after the other (the forward, then the backward),
    // as torch's runtime does: lowered, the slot is its ops in order, each with its own transfers.
    Schedule s = orderSyncs(input);
    s.overlapped.clear();
    s.wholeBackward.clear();
    const OpIndex index(s);
    const ListScheduleResult run = unitStepRun(s, index);
    const std::vector<Transfer> transfers = orderTransfers(s, index, run);

    std::vector<std::vector<Pending>> pending(std::size_t(s.devices));
    for (std::size_t t = 0; t < transfers.size(); ++t) {
        pending[std::size_t(index.deviceOf(std::size_t(transfers[t].producer)))].push_back(
            {std::int32_t(t), true});
        pending[std::size_t(index.deviceOf(std::size_t(transfers[t].consumer)))].push_back(
            {std::int32_t(t), false});
    }

    Lowered out = loweredShell(s);
    out.matches.resize(transfers.size());
    for (int d = 0; d < s.devices; ++d) {
        const std::vector<Op>& ops = s.order[std::size_t(d)];
        const std::vector<double> reach = reachTimes(s, run, d);
        Program& program = out.programs[std::size_t(d)];
        program.rank = d;
        program.instructions.reserve(ops.size() + pending[std::size_t(d)].size());
        // Both ends of a transfer are posted when their ranks reach the step its consumer starts:
        // the receive right before the consumer, the send before the first op the sender starts
        // at that step or later (after its producer, which ended by then). Sender and receiver
        // thus meet at the same point of the run, which is what NCCL's blocking rendezvous wants,
        // and a buffer is taken no earlier than its micro-batch's first op needs it.
        std::size_t op = 0;
        for (const Pending& p : pending[std::size_t(d)]) {
            const Transfer& t = transfers[std::size_t(p.transfer)];
            const double step = run.times[std::size_t(t.consumer)].start;
            while (op < ops.size() && reach[op] < step)
                program.instructions.push_back(computeInstruction(ops[op++]));
            const OpRef local = index.refOf(std::size_t(p.send ? t.producer : t.consumer));
            if (p.send ? std::size_t(local.index) >= op : std::size_t(local.index) < op)
                throw std::logic_error("lower: a transfer would be posted on the wrong side of its op");
            Match& match = out.matches[std::size_t(p.transfer)];
            (p.send ? match.sendRank : match.recvRank) = d;
            (p.send ? match.sendIndex : match.recvIndex) = int(program.instructions.size());
            program.instructions.push_back(transferInstruction(p.send, ops[std::size_t(local.index)], t.dir));
        }
        while (op < ops.size()) program.instructions.push_back(computeInstruction(ops[op++]));
    }
    annotatePrograms(out, options);
    return out;
}

Lowered lowerIteration(const Schedule& schedule, const LowerOptions& options) {
    return lower(addIterationTail(schedule, IterationTailOptions{}), options);
}

} // namespace stagecraft
