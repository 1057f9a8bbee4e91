#include "ir/overlap.h"

#include "ir/op_name.h"

#include <algorithm>
#include <tuple>

namespace stagecraft {

namespace {

auto identity(const Op& op) {
    return std::tuple(op.pipe, op.stage, op.mb);
}

bool byIdentity(const Op& a, const Op& b) {
    return identity(a) < identity(b);
}

void insertSorted(std::vector<Op>& heads, const Op& head) {
    heads.insert(std::upper_bound(heads.begin(), heads.end(), head, byIdentity), head);
}

std::string at(OpRef ref) {
    return "device " + std::to_string(ref.device) + " position " + std::to_string(ref.index);
}

} // namespace

void pushOverlapped(Schedule& schedule, int device, int fPipe, int fStage, int fMb, int bPipe, int bStage,
                    int bMb) {
    pushOp(schedule, device, OpKind::F, fPipe, fStage, fMb);
    const Op head = schedule.order[std::size_t(device)].back();
    pushOp(schedule, device, OpKind::B, bPipe, bStage, bMb);
    if (schedule.splitBackward) pushOp(schedule, device, OpKind::W, bPipe, bStage, bMb);
    insertSorted(schedule.overlapped, head);
}

void pushWholeBackward(Schedule& schedule, int device, int pipe, int stage, int mb) {
    pushOp(schedule, device, OpKind::B, pipe, stage, mb);
    if (!schedule.splitBackward) return;
    const Op head = schedule.order[std::size_t(device)].back();
    pushOp(schedule, device, OpKind::W, pipe, stage, mb);
    insertSorted(schedule.wholeBackward, head);
}

void sortSlotHeads(Schedule& schedule) {
    std::stable_sort(schedule.overlapped.begin(), schedule.overlapped.end(), byIdentity);
    std::stable_sort(schedule.wholeBackward.begin(), schedule.wholeBackward.end(), byIdentity);
}

bool ScheduleSlots::empty() const {
    return std::all_of(of.begin(), of.end(), [](const auto& slots) { return slots.empty(); });
}

ScheduleSlots findSlots(const Schedule& s, const OpIndex& index) {
    ScheduleSlots result;
    result.of.resize(s.order.size());
    const auto isW = [](const Op& op, const Op& b) {
        return op.kind == OpKind::W && identity(op) == identity(b);
    };
    for (const Op& head : s.overlapped) {
        const OpRef ref = index.find(OpKind::F, head.pipe, head.stage, head.mb);
        if (head.kind != OpKind::F || !ref.valid() || std::size_t(ref.device) >= s.order.size()) {
            result.problems.push_back({OpRef{}, "overlapped slot head " +
                                                    opName(head, s.splitBackward, s.sequenceSlices) +
                                                    ": must be a forward the schedule runs"});
            continue;
        }
        const auto& ops = s.order[std::size_t(ref.device)];
        const std::size_t i = std::size_t(ref.index), length = std::size_t(overlapSlotLength(s));
        const std::string where =
            at(ref) + ": overlapped slot headed by " + opName(head, s.splitBackward, s.sequenceSlices);
        if (i + length > ops.size() || ops[i + 1].kind != OpKind::B) {
            result.problems.push_back(
                {ref, where + " must be followed by the backward (B) it overlaps with"});
            continue;
        }
        const Op& b = ops[i + 1];
        if (identity(b) == identity(head)) {
            result.problems.push_back({ref, where + " overlaps with its own backward " +
                                                opName(b, s.splitBackward, s.sequenceSlices) +
                                                ", which needs the forward's output first"});
            continue;
        }
        if (length == 3 && !isW(ops[i + 2], b)) {
            result.problems.push_back({ref, where + ": the backward in a slot is whole, so " +
                                                opName(b, s.splitBackward, s.sequenceSlices) +
                                                " must be followed by its weight gradient W"});
            continue;
        }
        result.of[std::size_t(ref.device)].push_back({ref.index, std::int32_t(length), true});
    }
    for (const Op& head : s.wholeBackward) {
        const OpRef ref = index.find(OpKind::B, head.pipe, head.stage, head.mb);
        if (head.kind != OpKind::B || !s.splitBackward || !ref.valid() ||
            std::size_t(ref.device) >= s.order.size()) {
            result.problems.push_back({OpRef{}, "whole backward " +
                                                    opName(head, s.splitBackward, s.sequenceSlices) +
                                                    ": must be a backward (B) of a schedule that splits the "
                                                    "backward"});
            continue;
        }
        const auto& ops = s.order[std::size_t(ref.device)];
        const std::size_t i = std::size_t(ref.index);
        if (i + 2 > ops.size() || !isW(ops[i + 1], head)) {
            result.problems.push_back({ref, at(ref) + ": whole backward " +
                                                opName(head, s.splitBackward, s.sequenceSlices) +
                                                " must be followed at once by its weight gradient W"});
            continue;
        }
        if (i > 0 && ops[i - 1].kind == OpKind::F &&
            std::binary_search(s.overlapped.begin(), s.overlapped.end(), ops[i - 1], byIdentity)) {
            result.problems.push_back({ref, at(ref) + ": whole backward " +
                                                opName(head, s.splitBackward, s.sequenceSlices) +
                                                " is the backward of an overlapped slot already"});
            continue;
        }
        result.of[std::size_t(ref.device)].push_back({ref.index, 2, false});
    }
    for (std::size_t d = 0; d < result.of.size(); ++d) {
        auto& slots = result.of[d];
        std::sort(slots.begin(), slots.end(),
                  [](const Slot& a, const Slot& b) { return a.position < b.position; });
        // A head listed twice gives the same position twice.
        const auto dup = std::adjacent_find(slots.begin(), slots.end(), [](const Slot& a, const Slot& b) {
            return a.position == b.position;
        });
        if (dup != slots.end()) {
            const OpRef ref{std::int32_t(d), dup->position};
            result.problems.push_back(
                {ref, at(ref) + ": slot head " +
                          opName(s.order[d][std::size_t(dup->position)], s.splitBackward, s.sequenceSlices) +
                          " is listed twice"});
            slots.erase(std::unique(slots.begin(), slots.end(),
                                    [](const Slot& a, const Slot& b) { return a.position == b.position; }),
                        slots.end());
        }
    }
    return result;
}

SlotLookup::SlotLookup(const Schedule& s, const OpIndex& index) {
    if (s.overlapped.empty() && s.wholeBackward.empty()) return;
    m_first.assign(index.opCount(), -1);
    m_last.assign(index.opCount(), -1);
    const ScheduleSlots slots = findSlots(s, index);
    for (std::size_t d = 0; d < slots.of.size(); ++d)
        for (const Slot& slot : slots.of[d]) {
            const auto first = std::int32_t(index.globalId(OpRef{std::int32_t(d), slot.position}));
            for (std::int32_t k = 0; k < slot.length; ++k) {
                m_first[std::size_t(first + k)] = first;
                m_last[std::size_t(first + k)] = first + slot.length - 1;
            }
        }
}

} // namespace stagecraft
