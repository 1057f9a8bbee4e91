// costs.optimizer_sync = post-validation (ZB paper §4): no flush at the end of an iteration, so an
// iteration lasts the longest device span plus the rollback check. ZB-H2 and ZB-V gain exactly
// their warm-up offsets; the closed forms are the papers'.
#include "error.h"
#include "eval/chart_composition.h"
#include "eval/evaluation.h"
#include "eval/project_simulation.h"
#include "generators/registry.h"
#include "project/project.h"
#include "project/project_json.h"

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>

namespace {

using namespace stagecraft;

Project unitProject(int p, int m) {
    Project project = defaultProject();
    project.costs.mode = CostMode::Unit;
    project.parallel.pp = p;
    project.parallel.microbatches = m;
    project.parallel.dp = 1;
    project.model.layers = 4 * p;
    return project;
}

ScheduleReport report(const Project& project, const char* name) {
    return predict(project, orderFromProject(project, name)).report;
}

} // namespace

TEST_CASE("post-validation: ZB-H2 and ZB-V iterations shrink to m (F + B + W) under unit costs",
          "[post-validation]") {
    Project project = unitProject(4, 8);
    const ScheduleReport h2Flush = report(project, "zb-h2");
    const ScheduleReport vFlush = report(project, "zb-v");
    CHECK(h2Flush.iterationUs == 27);  // golden.md 2: makespan 27
    CHECK(vFlush.iterationUs == 25.5); // 51 chunk units of half a stage
    CHECK_FALSE(h2Flush.postValidation);

    project.costs.optimizerSync = OptimizerSync::PostValidation;
    const ScheduleReport h2 = report(project, "zb-h2");
    const ScheduleReport v = report(project, "zb-v");
    CHECK(h2.postValidation);
    CHECK(h2.rollbackCheckUs == 0); // unit mode: collectives take no time
    CHECK(h2.iterationUs == 8 * 3); // zero bubble: m (T_F + T_B + T_W)
    CHECK(v.iterationUs == 8 * 3);
    CHECK(h2.time.makespan == 27); // the timeline itself is unchanged
    // ZB-H1 ends every device together: device 0's span is the makespan, nothing to gain.
    CHECK(report(project, "zb-h1").iterationUs == 27);
}

TEST_CASE("post-validation: ZB-H2 with communication matches the paper's closed form", "[post-validation]") {
    for (const auto& [f, b, w, comm] :
         {std::array{1000.0, 1200.0, 600.0, 50.0}, std::array{1000.0, 1000.0, 1000.0, 30.0},
          std::array{800.0, 1100.0, 500.0, 0.0}}) {
        Project project = unitProject(4, 12);
        project.costs.mode = CostMode::Manual;
        project.costs.f = f;
        project.costs.b = b;
        project.costs.w = w;
        project.costs.comm = comm;
        project.costs.optimizerSync = OptimizerSync::PostValidation;
        const ScheduleReport r = report(project, "zb-h2");
        const int p = 4, m = 12;
        // [ZB paper Table 2, code's assertion]: span = m (F + B + W) + (p - 1)(F + B + 2 comm - 2 W)^+.
        const double closedForm = m * (f + b + w) + std::max(0.0, (p - 1) * (f + b + 2 * comm - 2 * w));
        INFO("f " << f << " b " << b << " w " << w << " comm " << comm);
        CHECK(r.iterationUs == Approx(closedForm));
        project.costs.optimizerSync = OptimizerSync::Flush;
        // A flush costs the warm-up offsets whenever device 0 is not itself the longest span.
        const double flush = report(project, "zb-h2").iterationUs;
        CHECK(flush >= r.iterationUs);
        if (f + b + 2 * comm - 2 * w <= 0) CHECK(flush > r.iterationUs);
    }
}

TEST_CASE("post-validation: the rollback check is a latency-bound flag all-reduce", "[post-validation]") {
    Project project = defaultProject(); // analytic
    project.schedules = {"zb-h2"};
    project.parallel.pp = 4;
    project.parallel.dp = 2;
    project.parallel.microbatches = 16;
    project.cluster.latencyUs = 5;
    const ScheduleReport flush = report(project, "zb-h2");
    project.costs.optimizerSync = OptimizerSync::PostValidation;
    const ScheduleReport post = report(project, "zb-h2");
    double longest = 0;
    for (const DeviceMetrics& d : post.time.devices) longest = std::max(longest, d.span());
    CHECK(post.rollbackCheckUs == 2 * (4 * 2 - 1) * 5.0);
    CHECK(post.iterationUs == Approx(longest + post.rollbackCheckUs));
    CHECK(post.iterationUs < flush.iterationUs);
    CHECK(post.samplesPerSecond > flush.samplesPerSecond);
}

TEST_CASE("costs.optimizer_sync is a project field", "[post-validation]") {
    Project project = defaultProject();
    setProjectField(project, "costs.optimizer_sync", "post-validation");
    CHECK(project.costs.optimizerSync == OptimizerSync::PostValidation);
    setProjectField(project, "costs.optimizer_sync", "flush");
    CHECK(project.costs.optimizerSync == OptimizerSync::Flush);
    CHECK_THROWS_AS(setProjectField(project, "costs.optimizer_sync", "eager"), ValidationError);
}

TEST_CASE("costs.optimizer_sync and memory.limit_microbatches are written only when set",
          "[post-validation]") {
    Project project = defaultProject();
    const std::string plain = projectToJson(project);
    CHECK(plain.find("optimizer_sync") == std::string::npos);
    CHECK(plain.find("limit_microbatches") == std::string::npos);
    setProjectField(project, "costs.optimizer_sync", "post-validation");
    setProjectField(project, "memory.limit_microbatches", "16");
    const std::string text = projectToJson(project);
    CHECK(text.find("\"optimizer_sync\": \"post-validation\"") != std::string::npos);
    CHECK(text.find("\"limit_microbatches\": 16.0") != std::string::npos);
    CHECK(parseProject(text, "round-trip") == project);
}

TEST_CASE("post-validation shows in the chart's panel subtitle", "[post-validation]") {
    AnalysisRequest request;
    request.project = unitProject(4, 8);
    request.project.schedules = {"zb-h2"};
    request.project.costs.optimizerSync = OptimizerSync::PostValidation;
    const AnalysisResult result = analyze(request);
    const auto panels = composeChart(result, ChartSettings{}).panels;
    REQUIRE(panels.size() == 1);
    CHECK(panels[0].subtitle.find("iteration 24 (post-validation)") != std::string::npos);
    request.project.costs.optimizerSync = OptimizerSync::Flush;
    CHECK(composeChart(analyze(request), ChartSettings{}).panels[0].subtitle.empty()); // the default summary
}
