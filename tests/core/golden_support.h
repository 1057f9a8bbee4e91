#pragma once
// Helpers that turn a schedule into the text notation of ../reference golden examples
// ("F0a@0 F1a@1 ..."), so tests compare whole device rows with the worked examples verbatim.

#include "ir/op_index.h"
#include "passes/lower.h"
#include "sim/list_scheduler.h"

#include <functional>
#include <string>
#include <vector>

namespace stagecraft::testing {

/// Label of one op in a golden row, without the start time ("F3", "F0a", "b2", "F3'").
using Labeler = std::function<std::string(const Schedule&, const Op&)>;

/// "F3" / "B3" / "W3": kind and micro-batch only.
inline std::string plainLabel(const Schedule&, const Op& op) {
    return opKindName(op.kind) + std::to_string(op.mb);
}

struct Simulated {
    ListScheduleResult run;
    double makespan = 0;
    std::vector<double> busy;
    std::vector<double> span; ///< last end - first start per device
};

inline Simulated simulateFullStage(const Schedule& s, double f, double b, double w, double comm = 0) {
    const OpIndex index(s);
    Simulated out;
    out.run = listSchedule(s, index, fullStageCosts(s, f, b, w, comm));
    out.busy.assign(s.devices, 0);
    out.span.assign(s.devices, 0);
    for (int d = 0; d < s.devices; ++d) {
        double first = 1e300, last = 0;
        for (int i = 0; i < int(s.order[d].size()); ++i) {
            // Syncs run on the communication lane; busy time and span are the compute lane's.
            if (!isComputeKind(s.order[d][i].kind)) continue;
            const auto& t = out.run.time(d, i);
            out.busy[d] += t.end - t.start;
            first = std::min(first, t.start);
            last = std::max(last, t.end);
        }
        out.span[d] = last - first;
        out.makespan = std::max(out.makespan, last);
    }
    return out;
}

/// One device's ops as "L@start L@start ..." (starts printed as integers when integral).
inline std::string renderDevice(const Schedule& s, const Simulated& sim, int d, const Labeler& label,
                                bool withTimes = true) {
    std::string text;
    for (int i = 0; i < int(s.order[d].size()); ++i) {
        const Op& op = s.order[d][i];
        if (op.kind == OpKind::GradSync || op.kind == OpKind::Optimizer) continue;
        if (!text.empty()) text += ' ';
        text += label(s, op);
        if (withTimes) {
            const double start = sim.run.time(d, i).start;
            const long long whole = static_cast<long long>(start);
            text += '@' + (double(whole) == start ? std::to_string(whole) : std::to_string(start));
        }
    }
    return text;
}

/// Peak number of live activations per device, in the example's unit: the activation buffers the
/// lowering pass holds at once on each rank (a micro-batch's from its F, or the receive feeding
/// it, to its last backward op), times the op's chunk size `weight`.
inline std::vector<double> peakActivations(const Schedule& s, double weight) {
    const Lowered lowered = lower(s);
    std::vector<double> peaks;
    for (int buffers : lowered.peakBuffers) peaks.push_back(weight * buffers);
    return peaks;
}

} // namespace stagecraft::testing
