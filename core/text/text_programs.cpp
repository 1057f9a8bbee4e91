#include "text/text_programs.h"

#include "ir/op_label.h"

#include <algorithm>

namespace stagecraft {

namespace {

ChunkShape shapeOf(const Lowered& l) {
    int chunks = 1;
    for (const auto& pipe : l.placement)
        for (const StageSlot& slot : pipe) chunks = std::max(chunks, slot.chunk + 1);
    return {l.pipes, l.stagesPerPipe, chunks};
}

std::size_t transferCount(const Lowered& l) {
    std::size_t count = 0;
    for (const Program& p : l.programs)
        count += std::size_t(std::count_if(p.instructions.begin(), p.instructions.end(),
                                           [](const Instruction& in) { return in.kind == InstrKind::Send; }));
    return count;
}

/// The op-like label of an instruction's tensor or op: "F3", "B0b", "W2'", "S", "O".
std::string cellLabel(const Lowered& l, const ChunkShape& shape, const Instruction& in) {
    Op op;
    op.pipe = in.pipe;
    op.stage = in.stage;
    op.mb = in.mb;
    op.chunk = std::uint16_t(l.placement[in.pipe][std::size_t(in.stage)].chunk);
    switch (in.kind) {
    case InstrKind::Compute:
        op.kind = in.op;
        return opLabel(shape, op);
    case InstrKind::Send:
    case InstrKind::Recv:
    case InstrKind::Wait:
        op.kind = in.dir == Direction::F ? OpKind::F : OpKind::B;
        break;
    case InstrKind::GradSync:
        op.kind = OpKind::GradSync;
        return opLabel(shape, op);
    case InstrKind::Optimizer:
        op.kind = OpKind::Optimizer;
        return opLabel(shape, op);
    case InstrKind::Unshard:
        return "U";
    case InstrKind::Reshard:
        return "R";
    }
    const std::string tensor = in.mb >= 0 ? opLabel(shape, op) : opLabel(shape, op) + "?";
    if (in.kind == InstrKind::Send) return tensor + ">r" + std::to_string(in.peer);
    if (in.kind == InstrKind::Recv) return "r" + std::to_string(in.peer) + ">" + tensor;
    return "w(" + (in.waits == InstrKind::Send || in.waits == InstrKind::Recv ? tensor : "S") + ")";
}

} // namespace

std::string formatPrograms(const Lowered& l) {
    std::string out = "# " + l.name + ": " + std::to_string(l.ranks) + " ranks, " + std::to_string(l.pipes) +
                      (l.pipes == 1 ? " pipe, " : " pipes, ") + std::to_string(l.stagesPerPipe) +
                      " stages/pipe, " + std::to_string(l.microbatches) + " micro-batches, " +
                      std::to_string(l.instructionCount()) + " instructions, " +
                      std::to_string(transferCount(l)) + " transfers\n";
    out += "# activation buffers per stage:";
    for (int pipe = 0; pipe < l.pipes; ++pipe)
        for (int stage = 0; stage < l.stagesPerPipe; ++stage) {
            const std::size_t slot = std::size_t(pipe) * std::size_t(l.stagesPerPipe) + std::size_t(stage);
            if (slot < l.buffers.size())
                out +=
                    (slot == 0 ? " " : ", ") + stageName(pipe, stage) + " " + std::to_string(l.buffers[slot]);
        }
    out += "\n# most buffers held at once per rank:";
    for (std::size_t r = 0; r < l.peakBuffers.size(); ++r)
        out += (r == 0 ? " r" : ", r") + std::to_string(r) + " " + std::to_string(l.peakBuffers[r]);
    out += '\n';
    for (const Program& p : l.programs)
        for (const Instruction& in : p.instructions)
            out += "r" + std::to_string(p.rank) + ": " + describeInstruction(l, in) + '\n';
    return out;
}

std::string formatCommView(const Lowered& l, const CommViewOptions& options) {
    const ChunkShape shape = shapeOf(l);
    std::size_t width = 0;
    std::vector<std::vector<std::string>> rows;
    for (const Program& p : l.programs) {
        std::vector<std::string> cells;
        const auto& ins = p.instructions;
        std::size_t limit = ins.size();
        if (options.maxInstructions > 0) limit = std::min(limit, std::size_t(options.maxInstructions));
        for (std::size_t i = 0; i < limit; ++i) {
            std::string cell = cellLabel(l, shape, ins[i]);
            const bool opens = ins[i].group >= 0 && (i == 0 || ins[i - 1].group != ins[i].group);
            const bool closes =
                ins[i].group >= 0 && (i + 1 == ins.size() || ins[i + 1].group != ins[i].group);
            if (opens) cell = "[" + cell;
            if (closes) cell += "]";
            cells.push_back(std::move(cell));
        }
        if (limit < ins.size()) cells.push_back("...");
        rows.push_back(std::move(cells));
    }
    for (const auto& row : rows)
        for (const auto& cell : row) width = std::max(width, cell.size());
    const std::string rankWidth = std::to_string(std::max(l.ranks - 1, 0));
    std::string out = l.name + ": per-rank programs, " + std::to_string(transferCount(l)) + " transfers\n";
    for (std::size_t r = 0; r < rows.size(); ++r) {
        std::string name = "r" + std::to_string(r);
        name.resize(rankWidth.size() + 1, ' ');
        out += name + " |";
        for (std::size_t c = 0; c < rows[r].size(); ++c) {
            std::string cell = rows[r][c];
            if (c + 1 < rows[r].size()) cell.resize(width, ' ');
            out += (c == 0 ? "" : " ") + cell;
        }
        out += "\n";
    }
    out += "F3>r1 send to rank 1, r0>F3 receive from rank 0, [...] posted together, S gradient sync, O "
           "optimizer\n";
    return out;
}

} // namespace stagecraft
