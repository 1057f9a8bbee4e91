#include "eval/report_files.h"

#include "number_text.h"

#include <nlohmann/json.hpp>

namespace stagecraft {

std::string reportsAsCsv(const std::vector<ScheduleReport>& reports) {
    std::string out =
        "schedule,iteration_us,bubble_ratio,span_bubble_ratio,samples_per_s,tokens_per_s,tflops_per_gpu,"
        "mfu,peak_memory_bytes,memory_limit_bytes,fits,p2p_bytes,collective_bytes,cost_mode\n";
    for (const auto& r : reports) {
        const double peak = r.memory.devices.empty() ? 0 : r.memory.devices[r.memory.worstDevice].peakBytes;
        out += r.schedule + ',' + fixedText(r.iterationUs, 3) + ',' + fixedText(r.time.bubbleRatio, 6) + ',' +
               fixedText(r.time.spanBubbleRatio, 6) + ',' +
               (r.unitless ? "" : fixedText(r.samplesPerSecond, 4)) + ',' +
               (r.unitless ? "" : fixedText(r.tokensPerSecond, 1)) + ',' +
               (r.flopsMeaningful ? fixedText(r.tflopsPerGpu, 3) : "") + ',' +
               (r.flopsMeaningful ? fixedText(r.mfu, 6) : "") + ',' + fixedText(peak, 0) + ',' +
               fixedText(r.memory.limitBytes, 0) + ',' + (r.memory.fits ? "true" : "false") + ',' +
               fixedText(r.p2pBytes, 0) + ',' + fixedText(r.collectiveBytes, 0) + ',' + r.costs.mode + '\n';
    }
    return out;
}

// A figure that does not apply (unit costs) or would mislead (MFU of costs unrelated to the
// model) is null, never a number.
static nlohmann::ordered_json orNull(bool meaningful, double value) {
    return meaningful ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
}

std::string reportsAsJson(const std::vector<ScheduleReport>& reports) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& r : reports) {
        nlohmann::ordered_json devices = nlohmann::ordered_json::array();
        for (std::size_t d = 0; d < r.time.devices.size(); ++d) {
            const auto& dm = r.time.devices[d];
            devices.push_back(
                {{"device", d},
                 {"busy", dm.busy},
                 {"idle", dm.idle},
                 {"span", dm.span()},
                 {"warmup", dm.bubbles.warmup},
                 {"cooldown", dm.bubbles.cooldown},
                 {"communication", dm.bubbles.communication},
                 {"waiting_on", dm.bubbles.waitingOn},
                 {"other", dm.bubbles.other},
                 {"peak_memory_bytes", d < r.memory.devices.size() ? r.memory.devices[d].peakBytes : 0.0}});
        }
        out.push_back({{"schedule", r.schedule},
                       {"cost_mode", r.costs.mode},
                       {"unitless", r.unitless},
                       {"iteration_us", r.iterationUs},
                       {"optimizer_sync", r.postValidation ? "post-validation" : "flush"},
                       {"rollback_check_us", r.rollbackCheckUs},
                       {"notes", r.notes},
                       {"bubble_ratio", r.time.bubbleRatio},
                       {"span_bubble_ratio", r.time.spanBubbleRatio},
                       {"samples_per_s", orNull(!r.unitless, r.samplesPerSecond)},
                       {"tokens_per_s", orNull(!r.unitless, r.tokensPerSecond)},
                       {"tflops_per_gpu", orNull(r.flopsMeaningful, r.tflopsPerGpu)},
                       {"mfu", orNull(r.flopsMeaningful, r.mfu)},
                       {"flops_note", r.flopsNote},
                       {"memory_limit_bytes", r.memory.limitBytes},
                       {"fits_memory", r.memory.fits},
                       {"memory_over_bytes", r.memory.overBytes},
                       {"p2p_bytes", r.p2pBytes},
                       {"collective_bytes", r.collectiveBytes},
                       {"costs",
                        {{"f", r.costs.f},
                         {"b", r.costs.b},
                         {"w", r.costs.w},
                         {"comm_intra", r.costs.commIntra},
                         {"comm_inter", r.costs.commInter}}},
                       {"devices", devices}});
    }
    return out.dump(2) + '\n';
}

} // namespace stagecraft
