#include "report_format.h"

#include "number_text.h"

namespace stagecraft::cli {

std::string fixed(double value, int decimals) {
    return fixedText(value, decimals);
}

namespace {

std::string gib(double bytes) {
    return fixed(bytes / double(1ull << 30), 2);
}

std::string pad(std::string text, std::size_t width, bool right = false) {
    if (text.size() >= width) return text;
    return right ? std::string(width - text.size(), ' ') + text
                 : text + std::string(width - text.size(), ' ');
}

struct Column {
    const char* title;
    std::string (*value)(const ScheduleReport&);
};

const Column kColumns[] = {
    {"schedule", [](const ScheduleReport& r) { return r.schedule; }},
    {"iteration",
     [](const ScheduleReport& r) {
         return r.unitless ? unitsText(r.iterationUs) : durationText(r.iterationUs);
     }},
    {"bubble", [](const ScheduleReport& r) { return fixed(100 * r.time.bubbleRatio, 2) + "%"; }},
    {"span bubble", [](const ScheduleReport& r) { return fixed(100 * r.time.spanBubbleRatio, 2) + "%"; }},
    {"samples/s",
     [](const ScheduleReport& r) { return r.unitless ? std::string("-") : fixed(r.samplesPerSecond, 2); }},
    {"tokens/s",
     [](const ScheduleReport& r) { return r.unitless ? std::string("-") : fixed(r.tokensPerSecond, 0); }},
    {"TFLOP/s/GPU",
     [](const ScheduleReport& r) { return r.flopsMeaningful ? fixed(r.tflopsPerGpu, 1) : std::string("-"); }},
    {"MFU",
     [](const ScheduleReport& r) {
         return r.flopsMeaningful ? fixed(100 * r.mfu, 1) + "%" : std::string("-");
     }},
    {"peak memory",
     [](const ScheduleReport& r) {
         const double peak = r.memory.devices.empty() ? 0 : r.memory.devices[r.memory.worstDevice].peakBytes;
         return r.unitless ? fixed(peak, 2) + " M_a" : gib(peak) + " GiB";
     }},
    {"fits",
     [](const ScheduleReport& r) {
         if (r.unitless || r.memory.limitBytes <= 0) return std::string("-");
         return r.memory.fits ? std::string("yes") : "no (+" + gib(r.memory.overBytes) + " GiB)";
     }},
};

} // namespace

std::string textTable(const std::vector<std::vector<std::string>>& rows, LastColumn last) {
    std::vector<std::size_t> widths;
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size(); ++i) {
            if (i == widths.size()) widths.push_back(0);
            widths[i] = std::max(widths[i], row[i].size());
        }
    std::string out;
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            const bool text = last == LastColumn::Text && i + 1 == widths.size();
            line += (text ? row[i] : pad(row[i], widths[i], i > 0)) + "  ";
        }
        line.erase(line.find_last_not_of(' ') + 1);
        out += line + '\n';
    }
    return out;
}

std::string reportsAsTable(const std::vector<ScheduleReport>& reports) {
    std::vector<std::vector<std::string>> rows(1);
    for (const Column& c : kColumns) rows.front().push_back(c.title);
    for (const auto& r : reports) {
        rows.emplace_back();
        for (const Column& c : kColumns) rows.back().push_back(c.value(r));
    }
    std::string out = textTable(rows);
    if (!reports.empty()) out += "costs: " + reports.front().costs.text + '\n';
    // Why a figure is blank when it is not obvious (unit costs explain themselves).
    for (const auto& r : reports)
        if (!r.unitless && !r.flopsMeaningful) {
            out += "TFLOP/s and MFU: " + r.flopsNote + '\n';
            break;
        }
    for (const auto& r : reports) {
        if (r.postValidation)
            out += r.schedule + ": post-validation: iteration = longest device span + rollback check " +
                   (r.unitless ? unitsText(r.rollbackCheckUs) : durationText(r.rollbackCheckUs)) +
                   " (flush would take " +
                   (r.unitless ? unitsText(r.time.makespan) : durationText(r.time.makespan)) + ")\n";
        if (!r.notes.empty()) out += r.schedule + ": " + r.notes + '\n';
    }
    return out;
}

std::string deviceBreakdown(const ScheduleReport& r) {
    // Unit costs print as they are; microseconds as milliseconds, the scale of a pipeline stage.
    auto t = [&](double value) { return r.unitless ? formatSignificant(value) : millisecondsText(value); };
    std::string out =
        std::string("device times in ") + (r.unitless ? "units" : "ms") +
        ": busy, idle = warm-up + cool-down + comm + waiting (on device) + other; peak memory\n";
    for (std::size_t d = 0; d < r.time.devices.size(); ++d) {
        const auto& dm = r.time.devices[d];
        std::string waiting;
        double waitingTotal = 0;
        for (std::size_t k = 0; k < dm.bubbles.waitingOn.size(); ++k)
            if (dm.bubbles.waitingOn[k] > 0) {
                waiting +=
                    (waiting.empty() ? "" : ", ") + t(dm.bubbles.waitingOn[k]) + " on D" + std::to_string(k);
                waitingTotal += dm.bubbles.waitingOn[k];
            }
        const double peak = d < r.memory.devices.size() ? r.memory.devices[d].peakBytes : 0;
        out += "D" + std::to_string(d) + "  busy " + t(dm.busy) + ", idle " + t(dm.idle) + " = " +
               t(dm.bubbles.warmup) + " + " + t(dm.bubbles.cooldown) + " + " + t(dm.bubbles.communication) +
               " + " + t(waitingTotal) + (waiting.empty() ? "" : " (" + waiting + ")") + " + " +
               t(dm.bubbles.other) + "; peak " + (r.unitless ? fixed(peak, 2) + " M_a" : gib(peak) + " GiB") +
               '\n';
    }
    return out;
}

} // namespace stagecraft::cli
