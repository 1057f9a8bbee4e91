#include "gui/models/analysis.h"

#include "error.h"
#include "generators/registry.h"

#include <exception>

namespace stagecraft::gui {
namespace {

std::string messageOf(const std::exception& e) {
    if (const auto* error = dynamic_cast<const Error*>(&e)) return error->message();
    return e.what();
}

// Why a registered schedule cannot run with this project, if it cannot.
std::optional<std::string> problemOf(const Project& project, const GeneratorInfo& info) {
    if (auto violation = constraintViolation(info, scheduleParams(project))) return violation;
    try {
        checkLayersFit(project, info);
    } catch (const Error& e) {
        return e.message();
    }
    return std::nullopt;
}

} // namespace

std::vector<ScheduleAvailability> scheduleAvailability(const Project& project) {
    std::vector<ScheduleAvailability> out;
    for (const GeneratorInfo& info : generators())
        out.push_back({std::string(info.name), problemOf(project, info)});
    return out;
}

std::size_t estimateOpCount(const AnalysisRequest& request) {
    const ParallelConfig& par = request.project.parallel;
    // F, B and W of every micro-batch on every stage of every chunk: an upper bound for each
    // registered schedule, exact enough to tell a 100-op chart from a million-op one.
    const std::size_t perSchedule = 3 * std::size_t(std::max(par.pp, 1)) *
                                    std::size_t(std::max(par.microbatches, 1)) *
                                    std::size_t(std::max(par.chunks, 1));
    std::size_t total = perSchedule * request.project.schedules.size();
    for (const ImportedSchedule& s : request.imported)
        if (s.checked) total += s.schedule.opCount();
    return total;
}

AnalysisResult analyze(const AnalysisRequest& request) {
    AnalysisResult result;
    const Project& project = request.project;
    auto run = [&](const std::string& name, const std::string& title, auto&& makeSchedule) {
        try {
            Schedule schedule = makeSchedule();
            ScheduleOutcome outcome{name, title, predict(project, schedule)};
            result.opCount += outcome.prediction.schedule.opCount();
            result.outcomes.push_back(std::move(outcome));
        } catch (const std::exception& e) {
            // A schedule core refuses (constraint, deadlock, memory inputs...) is reported
            // next to it; the other schedules still show.
            result.failures.push_back({name, messageOf(e)});
        }
    };
    for (const std::string& name : project.schedules) {
        const GeneratorInfo* info = nullptr;
        try {
            info = &findGenerator(name);
        } catch (const Error& e) {
            result.failures.push_back({name, e.message()});
            continue;
        }
        if (auto problem = problemOf(project, *info)) {
            result.failures.push_back({name, *problem});
            continue;
        }
        run(std::string(info->name), std::string(info->title),
            [&] { return generateSchedule(info->name, scheduleParams(project)); });
    }
    for (const ImportedSchedule& imported : request.imported)
        if (imported.checked) run(imported.name, imported.name, [&] { return imported.schedule; });

    if (request.trace) {
        const Timeline& measured = *request.trace->timeline;
        const std::string& wanted = measured.shape.schedule;
        std::optional<std::size_t> match;
        for (std::size_t i = 0; i < result.outcomes.size() && !match; ++i)
            if (result.outcomes[i].name == wanted || result.outcomes[i].prediction.schedule.name == wanted)
                match = i;
        if (!match) {
            result.overlayError = "the trace is of schedule '" + wanted +
                                  "', which is not among the schedules shown: check it in the picker";
        } else {
            try {
                result.overlay = OverlayOutcome{
                    *match, compareTimelines(result.outcomes[*match].prediction.timeline, measured)};
                result.measured = request.trace->timeline;
                result.measuredPath = request.trace->path;
            } catch (const std::exception& e) {
                result.overlayError = messageOf(e);
            }
        }
    }
    return result;
}

} // namespace stagecraft::gui
