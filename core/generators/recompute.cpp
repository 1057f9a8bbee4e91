// Full recompute as scheduled ops (docs/recompute.md): every (stage, micro-batch) keeps only its
// stage input after its forward, and an R re-runs that forward right before the backward needs the
// activations, which is where Megatron's full checkpointing recomputes (inside the backward) and
// where the zero-bubble scheduler's recomputation pass puts its R nodes (schedules-next §1.2).
#include "generators/generators.h"

#include <stdexcept>

namespace stagecraft::gen {

Schedule recomputeBeforeBackward(Schedule schedule) {
    if (!schedule.overlapped.empty() || !schedule.wholeBackward.empty())
        throw std::logic_error("recomputeBeforeBackward: schedule '" + schedule.name +
                               "' has F&B or whole-backward slots, which an R cannot enter");
    for (std::vector<Op>& ops : schedule.order) {
        std::vector<Op> with;
        with.reserve(ops.size() + ops.size() / 2);
        for (const Op& op : ops) {
            if (op.kind == OpKind::B) with.push_back(Op{OpKind::R, op.pipe, op.chunk, op.stage, op.mb});
            with.push_back(op);
        }
        ops = std::move(with);
    }
    return schedule;
}

void check1f1bRecompute(const ScheduleParams& params) {
    check1f1b(params);
}

Schedule oneFOneBRecompute(const ScheduleParams& params) {
    Schedule s = recomputeBeforeBackward(oneFOneB(params));
    s.name = "1f1b-recompute";
    return s;
}

} // namespace stagecraft::gen
