#include "ir/schedule.h"

#include "ir/large_array.h"

#include <algorithm>
#include <stdexcept>

namespace stagecraft {

std::size_t Schedule::opCount() const {
    std::size_t count = 0;
    for (const auto& ops : order) count += ops.size();
    return count;
}

std::vector<StageSlot> loopedPlacement(int devices, int stages) {
    std::vector<StageSlot> slots(static_cast<std::size_t>(stages));
    for (int s = 0; s < stages; ++s) slots[s] = {s % devices, s / devices};
    return slots;
}

std::vector<StageSlot> vShapePlacement(int devices) {
    std::vector<StageSlot> slots(static_cast<std::size_t>(2 * devices));
    for (int s = 0; s < 2 * devices; ++s)
        slots[s] = s < devices ? StageSlot{s, 0} : StageSlot{2 * devices - 1 - s, 1};
    return slots;
}

Schedule makeSchedule(std::string name, int devices, int microbatches,
                      std::vector<std::vector<StageSlot>> placement, bool splitBackward) {
    Schedule schedule;
    schedule.name = std::move(name);
    schedule.devices = devices;
    schedule.pipes = static_cast<int>(placement.size());
    schedule.stagesPerPipe = placement.empty() ? 0 : static_cast<int>(placement.front().size());
    schedule.microbatches = microbatches;
    schedule.splitBackward = splitBackward;
    int maxChunk = -1;
    for (const auto& pipe : placement)
        for (const auto& slot : pipe) maxChunk = std::max(maxChunk, slot.chunk);
    schedule.chunksPerDevice = maxChunk + 1;
    schedule.placement = std::move(placement);
    schedule.order.resize(static_cast<std::size_t>(devices));
    return schedule;
}

void pushOp(Schedule& schedule, int device, OpKind kind, int pipe, int stage, int mb) {
    const StageSlot& slot = schedule.slot(pipe, stage);
    if (slot.device != device)
        throw std::logic_error("generator placed stage " + std::to_string(stage) + " of pipe " +
                               std::to_string(pipe) + " on device " + std::to_string(device) +
                               " but the placement puts it on device " + std::to_string(slot.device));
    Op op;
    op.kind = kind;
    op.pipe = static_cast<std::uint8_t>(pipe);
    op.chunk = static_cast<std::uint16_t>(slot.chunk);
    op.stage = stage;
    op.mb = mb;
    schedule.order[device].push_back(op);
}

void reserveOrder(Schedule& schedule, int device, std::size_t ops) {
    reserveLarge(schedule.order[std::size_t(device)],
                 ops + 2 * std::size_t(std::max(schedule.chunksPerDevice, 1)));
}

} // namespace stagecraft
