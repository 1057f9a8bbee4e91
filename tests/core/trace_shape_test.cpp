// "Apply the trace's shape" (eval/trace_shape.h): the project a measured run of another pipeline
// asks for, and the registered schedules an overlay of that run can match. A run with overlapped
// F&B slots (torch's DualPipeV) is DualPipeV's even though ZB-V has its placement and split.
#include "eval/trace_shape.h"
#include "generators/registry.h"
#include "project/project.h"
#include "sim/list_scheduler.h"
#include "sim/simulator.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace stagecraft;

namespace {

Timeline runOf(const std::string& schedule, const ScheduleParams& params) {
    const Schedule s = generateSchedule(schedule, params);
    Timeline t = simulate(s, fullStageCosts(s, 1000, 1000, 1000, 100));
    t.shape.schedule.clear(); // another tool's run names no schedule
    t.origin = "measured";
    return t;
}

bool lists(const TraceShapeFit& fit, const std::string& name) {
    return std::find(fit.schedules.begin(), fit.schedules.end(), name) != fit.schedules.end();
}

} // namespace

TEST_CASE("a run's shape gives the project its pipeline and the schedules that can match it",
          "[trace_shape]") {
    const Project project = defaultProject(); // not a 2-rank pipeline of 8 micro-batches

    const TraceShapeFit dualpipe = fitTraceShape(project, runOf("dualpipev", {2, 8, 2}));
    CHECK(dualpipe.project.parallel.pp == 2);
    CHECK(dualpipe.project.parallel.microbatches == 8);
    CHECK(dualpipe.project.parallel.chunks == 2);
    CHECK(lists(dualpipe, "dualpipev"));
    CHECK_FALSE(lists(dualpipe, "zb-v")); // the same placement and split, no overlapped slots

    const TraceShapeFit zbv = fitTraceShape(project, runOf("zb-v", {2, 8, 2}));
    CHECK(lists(zbv, "zb-v"));
    CHECK_FALSE(lists(zbv, "dualpipev"));
    CHECK_FALSE(lists(zbv, "interleaved-zb")); // loop placement

    const TraceShapeFit interleaved = fitTraceShape(project, runOf("interleaved", {2, 8, 2}));
    CHECK(lists(interleaved, "interleaved"));
    CHECK_FALSE(lists(interleaved, "zb-v"));
}
