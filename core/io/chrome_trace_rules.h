#pragma once
// What the Stagecraft Chrome trace writer (chrome_trace_writer.cpp) and reader (chrome_trace.cpp)
// share: the format's bounds, the names of op kinds, categories and actions in a trace, and the
// rules an event keeps against its shape, so that whatever is written reads back. Internal to
// core/io; the public interface is chrome_trace.h.

#include "io/chrome_trace.h"
#include "ir/action.h"
#include "ir/op.h"
#include "ir/op_name.h"
#include "size_limits.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace stagecraft::chrome_trace_detail {

inline constexpr int kFormatVersion = 1;
inline constexpr std::size_t kMaxSlices = kMaxTraceSlices; // each becomes a 40-byte TimelineEvent
inline constexpr int kMaxDepth = 64;
inline constexpr std::int64_t kMaxIndex = kMaxTraceIndex;
inline constexpr int kMaxChunks = kMaxFileChunks;
inline constexpr std::int64_t kMaxPid = std::numeric_limits<std::int32_t>::max();
// Iteration ids are ints to the reader (TraceReadOptions, TraceInfo).
inline constexpr std::int64_t kMaxIteration = std::numeric_limits<std::int32_t>::max();
// otherData.run sits two levels deep in the file; the reader refuses 64 levels.
inline constexpr int kMaxRunDepth = 32;

// Kinds by ir's one table of their names (opKindName).
inline std::optional<OpKind> kindFromName(std::string_view name) {
    for (int k = 0; k < kOpKindCount; ++k)
        if (name == opKindName(static_cast<OpKind>(k))) return static_cast<OpKind>(k);
    return std::nullopt;
}

inline std::optional<CommKind> commFromName(std::string_view name) {
    if (name == "activation") return CommKind::Activation;
    if (name == "gradient") return CommKind::Gradient;
    if (name == "collective") return CommKind::Collective;
    return std::nullopt;
}

/// The categories whose X slices the reader takes for ops.
inline bool isClaimedCategory(std::string_view cat) {
    return cat == "send" || kindFromName(cat).has_value();
}

/// The compute op a slice name stands for: a torch action string or a recompute ("2R0", which
/// stagecraft-run names like torch names its actions), optionally with the "PP:" prefix torch's
/// record_function adds. The chunk is left 0.
inline std::optional<Op> opOfName(std::string_view name) {
    if (name.substr(0, 3) == "PP:") name.remove_prefix(3);
    if (isRecomputeName(name)) return parseOpName(name);
    const std::optional<Action> action = parseAction(name);
    if (!action) return std::nullopt;
    return Op{opKindOf(action->type), std::uint8_t(action->pipe), 0, action->stage, action->mb};
}

inline Lane defaultLane(CommKind comm) {
    return comm == CommKind::None ? Lane::Compute : Lane::Comm;
}

/// An op of one iteration: a timeline of several iterations holds each op once per iteration.
struct IterationOp {
    std::uint32_t iteration = 0;
    std::uint64_t op = 0;
    friend bool operator==(const IterationOp&, const IterationOp&) = default;
};
struct IterationOpHash {
    std::size_t operator()(const IterationOp& k) const {
        return std::hash<std::uint64_t>{}(k.op ^ (std::uint64_t(k.iteration) * 0x9E3779B97F4A7C15ull));
    }
};

/// The first rule an event breaks against its shape, with the names of the field in a trace
/// and in a Timeline. Writer and reader share the rules, so whatever is written reads back.
struct EventProblem {
    std::string traceField;
    std::string timelineField;
    std::string value;
    std::string rule;
};

inline std::optional<EventProblem> inRange(const char* traceField, const char* timelineField, long long value,
                                           int count, const char* what, const char* shapeField) {
    if (value >= 0 && value < count) return std::nullopt;
    return EventProblem{traceField, timelineField, std::to_string(value),
                        std::string("a ") + what + " must be in [0, " + std::to_string(count) + ") (" +
                            shapeField + " = " + std::to_string(count) + ")"};
}

inline std::optional<EventProblem> checkEvent(const TimelineEvent& e, const TimelineShape& shape) {
    if (auto p = inRange("pid", "device", e.device, shape.devices, "device", "devices")) return p;
    if (e.isTransfer() || e.peer != -1)
        if (auto p = inRange("args.peer", "peer", e.peer, shape.devices, "peer device", "devices")) return p;
    if (isComputeKind(e.op.kind)) {
        if (auto p = inRange("args.mb", "op.mb", e.op.mb, shape.microbatches, "micro-batch", "microbatches"))
            return p;
    } else if (e.op.mb != -1) {
        return EventProblem{"args.mb", "op.mb", std::to_string(e.op.mb),
                            std::string(opKindName(e.op.kind)) + " is not per micro-batch; mb must be -1"};
    }
    if (auto p =
            inRange("args.stage", "op.stage", e.op.stage, shape.stagesPerPipe, "stage", "stages_per_pipe"))
        return p;
    if (auto p = inRange("args.pipe", "op.pipe", e.op.pipe, shape.pipes, "pipe", "pipes")) return p;
    if (auto p = inRange("args.chunk", "op.chunk", e.op.chunk, shape.chunksPerDevice, "chunk",
                         "chunks_per_device"))
        return p;
    return std::nullopt;
}

} // namespace stagecraft::chrome_trace_detail
