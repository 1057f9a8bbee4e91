#include "ir/op_label.h"

#include "ir/schedule.h"

#include <algorithm>
#include <cstdint>

namespace stagecraft {

ChunkShape chunkShapeOf(const Schedule& schedule) {
    return {schedule.pipes, schedule.stagesPerPipe, schedule.chunksPerDevice, schedule.sequenceSlices};
}

int chunksPerPipe(const ChunkShape& shape) {
    return std::max(1, shape.chunksPerDevice / std::max(1, shape.pipes));
}

int chunkInPipe(const ChunkShape& shape, const Op& op) {
    const int perPipe = chunksPerPipe(shape);
    if (perPipe <= 1) return 0;
    const int chunk = shape.pipes <= 1 || shape.stagesPerPipe <= 0
                          ? int(op.chunk)
                          : int(std::int64_t(op.stage) * perPipe / shape.stagesPerPipe);
    return std::clamp(chunk, 0, perPipe - 1);
}

namespace {

/// "3", or "3.1" for unit 7 of two sequence slices; the kind's letter for ops without a micro-batch.
std::string unitText(const Op& op, int slices) {
    if (op.mb < 0) return opKindLetter(op.kind);
    if (slices <= 1) return std::to_string(op.mb);
    return std::to_string(op.mb / slices) + "." + std::to_string(op.mb % slices);
}

} // namespace

std::string shortOpLabel(const ChunkShape& shape, const Op& op) {
    std::string label = unitText(op, shape.slices);
    // Past 26 chunks the letters stop at 'z' rather than run into punctuation.
    if (chunksPerPipe(shape) > 1) label += char('a' + std::min(chunkInPipe(shape, op), 25));
    if (op.pipe > 0) label += '\'';
    return label;
}

std::string cellOpLabel(const Op& op, int slices) {
    std::string label = unitText(op, slices);
    if (op.pipe > 0) label += '\'';
    return label;
}

std::string opLabel(const ChunkShape& shape, const Op& op) {
    return op.mb < 0 ? shortOpLabel(shape, op) : opKindLetter(op.kind) + shortOpLabel(shape, op);
}

std::string opLabel(const Schedule& schedule, const Op& op) {
    return opLabel(chunkShapeOf(schedule), op);
}

} // namespace stagecraft
