#include "io/programs_json.h"

#include <nlohmann/json.hpp>

namespace stagecraft {

namespace {

nlohmann::json instructionJson(const Instruction& in) {
    nlohmann::json j;
    j["kind"] = instrKindName(in.kind);
    j["stage"] = in.stage;
    if (in.pipe != 0) j["pipe"] = in.pipe;
    switch (in.kind) {
    case InstrKind::Compute:
        j["op"] = opKindName(in.op);
        j["mb"] = in.mb;
        j["slot"] = in.slot;
        if (in.wholeBackward) j["whole_backward"] = true;
        break;
    case InstrKind::Send:
    case InstrKind::Recv:
        j["kind"] = transferName(in.kind, in.dir);
        j["mb"] = in.mb;
        j["peer"] = in.peer;
        j["peer_stage"] = peerStage(in);
        j["tag"] = in.tag;
        j["slot"] = in.slot;
        j["bytes"] = in.bytes;
        if (in.group >= 0) j["group"] = in.group;
        break;
    case InstrKind::GradSync:
        j["collective"] = in.ref;
        break;
    case InstrKind::Wait:
        j["waits"] = in.waits == InstrKind::Send || in.waits == InstrKind::Recv
                         ? transferName(in.waits, in.dir)
                         : instrKindName(in.waits);
        j["at"] = in.ref;
        if (in.mb >= 0) j["mb"] = in.mb;
        break;
    case InstrKind::Optimizer:
    case InstrKind::Unshard:
    case InstrKind::Reshard:
        break;
    }
    return j;
}

} // namespace

std::string programsToJson(const Lowered& l) {
    nlohmann::json j;
    j["stagecraft_programs"] = kProgramsJsonVersion;
    j["name"] = l.name;
    j["ranks"] = l.ranks;
    j["pipes"] = l.pipes;
    j["stages_per_pipe"] = l.stagesPerPipe;
    j["microbatches"] = l.microbatches;
    j["split_backward"] = l.splitBackward;
    auto& placement = j["placement"] = nlohmann::json::array();
    for (const auto& pipe : l.placement) {
        auto row = nlohmann::json::array();
        for (const StageSlot& slot : pipe) row.push_back({{"device", slot.device}, {"chunk", slot.chunk}});
        placement.push_back(std::move(row));
    }
    j["buffers"] = l.buffers;
    j["peak_buffers"] = l.peakBuffers;
    auto& collectives = j["collectives"] = nlohmann::json::array();
    for (const Collective& c : l.collectives) collectives.push_back({{"stage", c.stage}, {"ranks", c.ranks}});
    auto& matches = j["matches"] = nlohmann::json::array();
    for (const Match& m : l.matches) matches.push_back({m.sendRank, m.sendIndex, m.recvRank, m.recvIndex});
    auto& programs = j["programs"] = nlohmann::json::array();
    for (const Program& p : l.programs) {
        auto instructions = nlohmann::json::array();
        for (const Instruction& in : p.instructions) instructions.push_back(instructionJson(in));
        programs.push_back({{"rank", p.rank}, {"instructions", std::move(instructions)}});
    }
    return j.dump(1) + "\n";
}

} // namespace stagecraft
