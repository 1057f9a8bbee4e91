#include "overlay_format.h"

#include "error.h"
#include "io/chrome_trace.h"
#include "io/measured_run.h"
#include "ir/op_name.h"
#include "number_text.h"
#include "report_format.h"
#include "sim/overlay.h"

#include <nlohmann/json.hpp>
#include <optional>

namespace stagecraft::cli {

namespace {

using Json = nlohmann::ordered_json;

/// What both formats print, gathered once.
struct OverlayView {
    const ScheduleOutcome& outcome;
    const Timeline& predicted;
    const Timeline& measured;
    const OverlayReport& report;
    OverlayBreakdown breakdown;
    bool unitless;
};

OverlayView viewOf(const AnalysisResult& evaluated) {
    if (!evaluated.overlay || !evaluated.measured)
        throw ValidationError("overlay.mismatch", "trace", "no measured trace matched the schedule");
    const ScheduleOutcome& outcome = evaluated.outcomes.at(evaluated.overlay->outcome);
    const Timeline& predicted = outcome.prediction.timeline;
    const OverlayReport& report = evaluated.overlay->report;
    return {outcome,
            predicted,
            *evaluated.measured,
            report,
            breakdownOverlay(predicted, *evaluated.measured, report),
            outcome.prediction.report.unitless};
}

/// "iteration 3 of 0..3", or "" for a trace of one iteration.
std::string iterationText(const TraceInfo& info) {
    if (info.iterations == 0) return "";
    const std::vector<int>& ids = info.iterationIds;
    const std::string range = ids.size() == 1 ? std::to_string(ids.front())
                              : ids.back() - ids.front() + 1 == int(ids.size())
                                  ? std::to_string(ids.front()) + ".." + std::to_string(ids.back())
                                  : std::to_string(ids.size()) + " iterations";
    if (info.iteration < 0) return "median of iterations " + range; // --median
    return "iteration " + std::to_string(info.iteration) + " of " + range;
}

// ---------------------------------------------------------------------------------------------
// Text.

/// Times as the other reports print them (number_text.h): units under unit costs, otherwise µs,
/// ms or s.
struct TimeText {
    bool unitless;
    std::string operator()(double us) const { return unitless ? unitsText(us) : durationText(us); }
    std::string signedText(double us) const { return (us >= 0 ? "+" : "") + (*this)(us); }
};

std::string percent(double ratio) {
    return fixed(100 * ratio, 2) + "%";
}

std::string ratioText(const std::optional<double>& ratio) {
    return ratio ? fixed(*ratio, 3) : std::string("-");
}

std::string opName(const OverlayView& v, const OpDeviation& d) {
    return opName(v.predicted.events[d.predictedEvent].op, v.predicted.shape.splitBackward,
                  v.predicted.shape.sequenceSlices);
}

std::string summaryText(const OverlayView& v) {
    const TimeText t{v.unitless};
    const OverlayReport& r = v.report;
    std::vector<std::vector<std::string>> rows{
        {"", "predicted", "measured", "prediction error"},
        {"makespan", t(r.makespanPredicted), t(r.makespanMeasured),
         (r.makespanError >= 0 ? "+" : "") + percent(r.makespanError)},
        {"bubble", percent(r.bubblePredicted), percent(r.bubbleMeasured),
         (r.bubblePredicted >= r.bubbleMeasured ? "+" : "") +
             fixed(100 * (r.bubblePredicted - r.bubbleMeasured), 2) + " points"}};
    std::string out = textTable(rows);
    out += "op duration |error|: mean " + t(r.meanAbsDurationError) + ", max " + t(r.maxAbsDurationError);
    if (r.worstOp >= 0) out += " (" + opName(v, r.ops[std::size_t(r.worstOp)]) + ")";
    out += "\nop start |error|: mean " + t(r.meanAbsStartError) + ", max " + t(r.maxAbsStartError) + '\n';
    if (r.alignOffset != 0)
        out += "measured times moved by " + t.signedText(-r.alignOffset) + " to start with the prediction\n";
    return out;
}

std::string groupsText(const OverlayView& v) {
    const TimeText t{v.unitless};
    // Busy and idle per device, predicted and measured: whether a device's makespan error is its
    // ops' costs or its waiting.
    std::vector<std::vector<std::string>> devices{{"device", "ops", "busy predicted", "busy measured",
                                                   "idle predicted", "idle measured", "mean |duration error|",
                                                   "measured/predicted"}};
    for (std::size_t d = 0; d < v.breakdown.devices.size(); ++d) {
        const OverlayGroup& g = v.breakdown.devices[d];
        const DeviceTime& time = v.breakdown.deviceTimes[d];
        devices.push_back({"D" + std::to_string(d), std::to_string(g.ops), t(time.busyPredicted),
                           t(time.busyMeasured), t(time.idlePredicted), t(time.idleMeasured),
                           t(g.meanAbsDurationError), ratioText(g.durationRatio)});
    }
    std::vector<std::vector<std::string>> kinds{
        {"kind", "ops", "mean |duration error|", "measured/predicted"}};
    for (int k = 0; k < kOpKindCount; ++k) {
        const OverlayGroup& g = v.breakdown.kinds[std::size_t(k)];
        if (g.ops == 0) continue;
        kinds.push_back({opKindName(OpKind(k)), std::to_string(g.ops), t(g.meanAbsDurationError),
                         ratioText(g.durationRatio)});
    }
    return textTable(devices) + textTable(kinds);
}

std::string driftText(const OverlayView& v) {
    const TimeText t{v.unitless};
    std::vector<std::vector<std::string>> rows{{"drifted most", "device", "predicted", "measured",
                                                "duration: measured - predicted",
                                                "start: measured - predicted"}};
    for (const std::size_t k : v.breakdown.mostDrift) {
        const OpDeviation& d = v.report.ops[k];
        const TimelineEvent& p = v.predicted.events[d.predictedEvent];
        rows.push_back({opName(v, d), "D" + std::to_string(p.device), t(p.duration()),
                        t(v.measured.events[d.measuredEvent].duration()), t.signedText(d.durationError),
                        t.signedText(d.startError)});
    }
    return textTable(rows);
}

// ---------------------------------------------------------------------------------------------
// JSON.

Json optionalJson(const std::optional<double>& value) {
    return value ? Json(*value) : Json(nullptr);
}

Json groupJson(const OverlayGroup& g) {
    return {{"ops", g.ops},
            {"mean_abs_duration_error_us", g.meanAbsDurationError},
            {"duration_ratio", optionalJson(g.durationRatio)}};
}

Json driftJson(const OverlayView& v) {
    Json ops = Json::array();
    for (const std::size_t k : v.breakdown.mostDrift) {
        const OpDeviation& d = v.report.ops[k];
        const TimelineEvent& p = v.predicted.events[d.predictedEvent];
        ops.push_back({{"op", opName(v, d)},
                       {"kind", opKindName(p.op.kind)},
                       {"mb", p.op.mb},
                       {"stage", p.op.stage},
                       {"pipe", p.op.pipe},
                       {"chunk", p.op.chunk},
                       {"device", p.device},
                       {"predicted_duration_us", p.duration()},
                       {"measured_duration_us", v.measured.events[d.measuredEvent].duration()},
                       {"duration_error_us", d.durationError},
                       {"start_error_us", d.startError}});
    }
    return ops;
}

/// The name of one kind of torch's bookkeeping actions; Other stands for WAIT_REDUCE_GRAD (and
/// the WAIT_RECV_* of older lowerings).
const char* bookkeepingName(RangeKind kind) {
    return kind == RangeKind::Other ? "WAIT_REDUCE_GRAD" : rangeKindName(kind);
}

/// What a foreign trace adds: ranks, the clock, ops the measurement lacks, communication waits.
std::string runText(const OverlayView& v, const MeasuredTrace& trace) {
    std::string out;
    if (!v.report.unmatched.empty()) {
        out += "not in the measurement: " + std::to_string(v.report.unmatched.size()) + " op" +
               (v.report.unmatched.size() == 1 ? "" : "s") + " (";
        for (std::size_t i = 0; i < v.report.unmatched.size() && i < 4; ++i)
            out +=
                (i ? ", " : "") + opName(v.predicted.events[v.report.unmatched[i]].op,
                                         v.predicted.shape.splitBackward, v.predicted.shape.sequenceSlices);
        out += v.report.unmatched.size() > 4 ? ", ...)\n" : ")\n";
    }
    if (trace.run) {
        const MeasuredRunInfo& run = *trace.run;
        out += std::to_string(run.ranks) + " rank" + (run.ranks == 1 ? "" : "s") + ", " + run.clock +
               " clock, " +
               (run.iteration >= 0 ? "iteration " + std::to_string(run.iteration)
                                   : std::string("median over iterations")) +
               " of " + std::to_string(run.iterations) + '\n';
        if (const std::string spread = iterationSpreadText(run); !spread.empty())
            out += "makespan: " + spread + "\n";
        if (run.commTime > 0)
            out += "communication: " + durationText(run.commTime) + " measured, " +
                   percent(run.commWaitTime / run.commTime) + " of it waiting for the peer\n";
        if (run.overlapSlots > 0)
            out += "overlapped F&B slots: " + std::to_string(run.overlapSlots) + " (OVERLAP_F_B ranges, " +
                   (run.overlapsByRule == 0 ? std::string("split where the backward began")
                                            : std::to_string(run.overlapsByRule) +
                                                  " divided by the stand-alone rule: the trace does not "
                                                  "show where their backward began") +
                   ")\n";
        if (run.syncRanges > 0)
            out += "gradient syncs: torch's REDUCE_GRAD of " + std::to_string(run.syncRanges) + " stage" +
                   (run.syncRanges == 1 ? "" : "s") + '\n';
        if (!run.bookkeeping.empty()) {
            out += "runtime actions outside the schedule:";
            for (std::size_t i = 0; i < run.bookkeeping.size(); ++i) {
                const auto& b = run.bookkeeping[i];
                const char* name = bookkeepingName(b.kind);
                out += std::string(i ? "," : "") + " " + name + " " + std::to_string(b.ranges) + " (" +
                       durationText(b.time) + ")";
            }
            out += '\n';
        }
    }
    return out;
}

Json bookkeepingJson(const MeasuredRunInfo& run) {
    Json out = Json::array();
    for (const auto& b : run.bookkeeping)
        out.push_back({{"action", bookkeepingName(b.kind)}, {"ranges", b.ranges}, {"us", b.time}});
    return out;
}

} // namespace

std::string overlayAsText(const AnalysisResult& evaluated, const MeasuredTrace& trace) {
    const OverlayView v = viewOf(evaluated);
    const std::string iteration = trace.run ? std::string() : iterationText(trace.info);
    std::string out = "overlay of " + trace.path + (iteration.empty() ? "" : " (" + iteration + ")") +
                      " on " + v.outcome.name + '\n';
    out += summaryText(v) + runText(v, trace) + '\n' + groupsText(v) + '\n' + driftText(v);
    return out;
}

std::string overlayAsJson(const AnalysisResult& evaluated, const MeasuredTrace& trace) {
    const OverlayView v = viewOf(evaluated);
    const OverlayReport& r = v.report;
    Json devices = Json::array();
    for (std::size_t d = 0; d < v.breakdown.devices.size(); ++d) {
        Json entry{{"device", d}};
        entry.update(groupJson(v.breakdown.devices[d]));
        const DeviceTime& time = v.breakdown.deviceTimes[d];
        entry.update({{"busy_predicted_us", time.busyPredicted},
                      {"busy_measured_us", time.busyMeasured},
                      {"idle_predicted_us", time.idlePredicted},
                      {"idle_measured_us", time.idleMeasured}});
        devices.push_back(std::move(entry));
    }
    Json kinds = Json::array();
    for (int k = 0; k < kOpKindCount; ++k) {
        if (v.breakdown.kinds[std::size_t(k)].ops == 0) continue;
        Json entry{{"kind", opKindName(OpKind(k))}};
        entry.update(groupJson(v.breakdown.kinds[std::size_t(k)]));
        kinds.push_back(std::move(entry));
    }
    Json unmatched = Json::array();
    for (const std::size_t i : r.unmatched)
        unmatched.push_back(opName(v.predicted.events[i].op, v.predicted.shape.splitBackward,
                                   v.predicted.shape.sequenceSlices));
    Json runJson = nullptr;
    if (trace.run)
        runJson = {{"ranks", trace.run->ranks},
                   {"clock", trace.run->clock},
                   {"iterations", trace.run->iterations},
                   {"iteration_makespans_us", trace.run->iterationMakespans},
                   {"iteration", trace.run->iteration >= 0 ? Json(trace.run->iteration) : Json("median")},
                   {"clock_shift_us", trace.run->clockShift},
                   {"comm_us", trace.run->commTime},
                   {"comm_wait_us", trace.run->commWaitTime},
                   {"comm_wait_share", trace.run->commTime > 0
                                           ? Json(trace.run->commWaitTime / trace.run->commTime)
                                           : Json(nullptr)},
                   {"sync_ranges", trace.run->syncRanges},
                   {"overlap_slots", trace.run->overlapSlots},
                   {"overlaps_by_rule", trace.run->overlapsByRule},
                   {"bookkeeping", bookkeepingJson(*trace.run)}};
    const Json out{
        {"schedule", v.outcome.name},
        {"trace", trace.path},
        {"iteration", trace.info.iterations > 0 ? Json(trace.info.iteration) : Json(nullptr)},
        {"iterations", trace.info.iterationIds},
        {"unitless", v.unitless},
        {"makespan",
         {{"predicted_us", r.makespanPredicted},
          {"measured_us", r.makespanMeasured},
          {"error", r.makespanError}}},
        {"bubble", {{"predicted", r.bubblePredicted}, {"measured", r.bubbleMeasured}}},
        {"duration_error_us", {{"mean_abs", r.meanAbsDurationError}, {"max_abs", r.maxAbsDurationError}}},
        {"start_error_us", {{"mean_abs", r.meanAbsStartError}, {"max_abs", r.maxAbsStartError}}},
        {"align_offset_us", r.alignOffset},
        {"ops", r.ops.size()},
        {"unmatched", unmatched},
        {"run", runJson},
        {"devices", devices},
        {"kinds", kinds},
        {"most_drift", driftJson(v)}};
    return out.dump(2) + '\n';
}

} // namespace stagecraft::cli
