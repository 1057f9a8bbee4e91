#include "io/chakra_trace.h"

#include "error.h"
#include "file_io.h"
#include "io/protobuf_writer.h"
#include "ir/op.h"
#include "ir/op_name.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <string_view>
#include <tuple>

namespace stagecraft {

namespace {

// Field numbers of Chakra's schema/protobuf/et_def.proto (the subset written):
//   GlobalMetadata { string version = 1; repeated AttributeProto attr = 2; }
//   Node { uint64 id = 1; string name = 2; NodeType type = 3; repeated uint64 ctrl_deps = 4;
//          repeated uint64 data_deps = 5; uint64 duration_micros = 7; repeated AttributeProto attr = 10; }
//   AttributeProto { string name = 1; int32 int32_val = 7; int64 int64_val = 9; bool bool_val = 27;
//                    string string_val = 29; }
//   NodeType COMP_NODE = 4, COMM_SEND_NODE = 5, COMM_RECV_NODE = 6, COMM_COLL_NODE = 7;
//   CollectiveCommType ALL_REDUCE = 0.
// A trace file is the messages one after the other, each preceded by its size as a varint.
enum : std::uint32_t {
    kVersion = 1,
    kMetadataAttr = 2,
    kId = 1,
    kName = 2,
    kType = 3,
    kCtrlDeps = 4,
    kDataDeps = 5,
    kDurationMicros = 7,
    kAttr = 10,
    kAttrName = 1,
    kInt32 = 7,
    kInt64 = 9,
    kBool = 27,
    kString = 29,
};
enum : std::uint64_t { kCompNode = 4, kSendNode = 5, kRecvNode = 6, kCollNode = 7, kAllReduce = 0 };
constexpr std::string_view kSchema = "1.0.2-chakra.1.0.0";

using Message = ProtobufMessage;

Message attribute(std::string_view name, std::uint32_t field, std::uint64_t value) {
    Message a;
    a.bytes(kAttrName, name);
    a.varint(field, value);
    return a;
}

Message stringAttribute(std::string_view name, std::string_view value) {
    Message a;
    a.bytes(kAttrName, name);
    a.bytes(kString, value);
    return a;
}

/// An instruction's tensor: (pipe, stage, micro-batch, direction) of the edge it crosses.
using TensorKey = std::tuple<int, int, int, int>;

} // namespace

std::vector<std::string> programsToChakra(const Lowered& programs, const Timeline& predicted) {
    // Predicted durations by op identity, per device.
    std::map<std::pair<int, std::uint64_t>, double> duration;
    for (const TimelineEvent& e : predicted.events)
        if (!e.isTransfer()) duration[{e.device, opIdentity(e.op)}] = e.duration();
    std::vector<std::string> files;
    for (const Program& program : programs.programs) {
        const int rank = program.rank;
        Message file;
        {
            Message metadata;
            metadata.bytes(kVersion, kSchema);
            metadata.message(kMetadataAttr, stringAttribute("schedule", programs.name));
            file.record(metadata);
        }
        std::uint64_t next = 0;
        std::map<TensorKey, std::uint64_t> received, produced;     // tensor -> node id
        std::map<std::pair<int, int>, std::uint64_t> lastBackward; // (pipe, stage) -> node id
        std::int64_t previousCompute = -1;
        for (const Instruction& in : program.instructions) {
            Message node;
            const std::uint64_t id = next;
            std::vector<std::uint64_t> data, ctrl;
            std::vector<Message> attrs;
            attrs.push_back(attribute("is_cpu_op", kBool, 0));
            switch (in.kind) {
            case InstrKind::Compute: {
                const Op op = programs.opOf(in);
                const auto it = duration.find({rank, opIdentity(op)});
                if (it == duration.end())
                    throw ValidationError("trace.write", "timeline",
                                          "op " + opName(op, programs.splitBackward) + " of rank " +
                                              std::to_string(rank) + " is not in the predicted timeline");
                node.varint(kType, kCompNode);
                node.bytes(kName, opName(op, programs.splitBackward));
                node.varint(kDurationMicros, std::uint64_t(std::llround(it->second)));
                // Its input: the activation for a forward, the gradient for a backward's input half;
                // W and a recompute take nothing from another rank.
                const int dir = in.op == OpKind::F ? int(Direction::F) : int(Direction::B);
                const bool transfers = in.op == OpKind::F || in.op == OpKind::B;
                if (transfers)
                    if (const auto r = received.find({in.pipe, in.stage, in.mb, dir}); r != received.end())
                        data.push_back(r->second);
                if (previousCompute >= 0) ctrl.push_back(std::uint64_t(previousCompute));
                previousCompute = std::int64_t(id);
                if (transfers) produced[{in.pipe, in.stage, in.mb, dir}] = id;
                if (in.op == OpKind::B || in.op == OpKind::W) lastBackward[{in.pipe, in.stage}] = id;
                break;
            }
            case InstrKind::Send:
            case InstrKind::Recv: {
                const bool send = in.kind == InstrKind::Send;
                node.varint(kType, send ? kSendNode : kRecvNode);
                node.bytes(kName, std::string(send ? "SEND_" : "RECV_") +
                                      (in.dir == Direction::F ? "F" : "B") + " stage " +
                                      std::to_string(in.stage) + " mb " + std::to_string(in.mb));
                attrs.push_back(attribute("comm_src", kInt32, std::uint32_t(send ? rank : in.peer)));
                attrs.push_back(attribute("comm_dst", kInt32, std::uint32_t(send ? in.peer : rank)));
                // Chakra's tag is 32 bits; ours are unique per transfer and far below that.
                attrs.push_back(attribute("comm_tag", kInt32, std::uint32_t(in.tag)));
                attrs.push_back(attribute("comm_size", kInt64, in.bytes));
                const TensorKey key{in.pipe, in.stage, in.mb, int(in.dir)};
                if (send) {
                    if (const auto p = produced.find(key); p != produced.end()) data.push_back(p->second);
                } else {
                    received[key] = id;
                }
                break;
            }
            case InstrKind::GradSync: {
                node.varint(kType, kCollNode);
                node.bytes(kName, "ALL_REDUCE stage " + std::to_string(in.stage));
                attrs.push_back(attribute("comm_type", kInt64, kAllReduce));
                attrs.push_back(attribute("comm_size", kInt64, in.bytes));
                if (const auto b = lastBackward.find({in.pipe, in.stage}); b != lastBackward.end())
                    data.push_back(b->second);
                break;
            }
            default:
                continue; // waits, the optimizer and FSDP bookkeeping: no work a network simulator times
            }
            node.varint(kId, id);
            for (const std::uint64_t d : ctrl) node.varint(kCtrlDeps, d);
            for (const std::uint64_t d : data) node.varint(kDataDeps, d);
            for (const Message& a : attrs) node.message(kAttr, a);
            file.record(node);
            ++next;
        }
        files.push_back(file.data());
    }
    return files;
}

std::vector<std::filesystem::path> writeChakraTraces(const Lowered& programs, const Timeline& predicted,
                                                     const std::string& prefix) {
    const std::vector<std::string> files = programsToChakra(programs, predicted);
    std::vector<std::filesystem::path> paths;
    for (std::size_t r = 0; r < files.size(); ++r) {
        paths.emplace_back(prefix + "." + std::to_string(r) + ".et");
        writeFileAtomically(paths.back(), files[r]);
    }
    return paths;
}

} // namespace stagecraft
