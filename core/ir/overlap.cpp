#include "ir/overlap.h"

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

} // namespace

void pushOverlapped(Schedule& schedule, int device, int fPipe, int fStage, int fMb, int bPipe, int bStage,
                    int bMb) {
    pushOp(schedule, device, OpKind::F, fPipe, fStage, fMb);
    const Op head = schedule.order[std::size_t(device)].back();
    pushOp(schedule, device, OpKind::B, bPipe, bStage, bMb);
    if (schedule.splitBackward) pushOp(schedule, device, OpKind::W, bPipe, bStage, bMb);
    auto& heads = schedule.overlapped;
    heads.insert(std::upper_bound(heads.begin(), heads.end(), head, byIdentity), head);
}

void sortOverlapped(Schedule& schedule) {
    std::stable_sort(schedule.overlapped.begin(), schedule.overlapped.end(), byIdentity);
}

bool OverlapSlots::empty() const {
    return std::all_of(heads.begin(), heads.end(), [](const auto& h) { return h.empty(); });
}

OverlapSlots findOverlapSlots(const Schedule& s, const OpIndex& index) {
    OverlapSlots slots;
    slots.length = overlapSlotLength(s);
    slots.heads.resize(s.order.size());
    for (const Op& head : s.overlapped) {
        const OpRef at = index.find(OpKind::F, head.pipe, head.stage, head.mb);
        if (head.kind != OpKind::F || !at.valid() || std::size_t(at.device) >= s.order.size()) {
            slots.problems.push_back({OpRef{}, "overlapped slot head " + describeOp(head) +
                                                   ": must be a forward the schedule runs"});
            continue;
        }
        const auto& ops = s.order[std::size_t(at.device)];
        const std::size_t i = std::size_t(at.index);
        const std::string where = "device " + std::to_string(at.device) + " position " + std::to_string(i) +
                                  ": overlapped slot headed by " + describeOp(head);
        if (i + std::size_t(slots.length) > ops.size() || ops[i + 1].kind != OpKind::B) {
            slots.problems.push_back({at, where + " must be followed by the backward (B) it overlaps with"});
            continue;
        }
        const Op& b = ops[i + 1];
        if (identity(b) == identity(head)) {
            slots.problems.push_back({at, where + " overlaps with its own backward " + describeOp(b) +
                                              ", which needs the forward's output first"});
            continue;
        }
        if (slots.length == 3 && !(ops[i + 2].kind == OpKind::W && identity(ops[i + 2]) == identity(b))) {
            slots.problems.push_back({at, where + ": the backward in a slot is whole, so " + describeOp(b) +
                                              " must be followed by its weight gradient W"});
            continue;
        }
        slots.heads[std::size_t(at.device)].push_back(std::int32_t(i));
    }
    for (auto& h : slots.heads) {
        std::sort(h.begin(), h.end());
        // A head listed twice names the same position twice.
        const auto dup = std::adjacent_find(h.begin(), h.end());
        if (dup != h.end()) {
            slots.problems.push_back({OpRef{}, "overlapped slot head " +
                                                   describeOp(s.order[std::size_t(&h - slots.heads.data())]
                                                                     [std::size_t(*dup)]) +
                                                   " is listed twice"});
            h.erase(std::unique(h.begin(), h.end()), h.end());
        }
    }
    return slots;
}

std::string describeSlot(const Schedule& s, int device, int position) {
    const auto& ops = s.order[std::size_t(device)];
    return "(" + describeOp(ops[std::size_t(position)]) + ";" + describeOp(ops[std::size_t(position) + 1]) +
           ")";
}

} // namespace stagecraft
