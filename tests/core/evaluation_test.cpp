// The evaluation layer every front end calls: outcomes with their kept op index, structured
// refusals (stage, id, field, message), imported schedules on their own pipeline, op estimates.
#include "eval/evaluation.h"
#include "eval/evaluation_input.h"
#include "eval/op_inspect.h"
#include "generators/registry.h"
#include "io/schedule_file.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <filesystem>

namespace {

using namespace stagecraft;

std::size_t computeOps(const Schedule& s) {
    std::size_t n = 0;
    for (const auto& device : s.order)
        for (const Op& op : device) n += isComputeKind(op.kind) ? 1 : 0;
    return n;
}

} // namespace

TEST_CASE("analyze returns an outcome with its op index for every schedule that runs", "[eval]") {
    AnalysisRequest request;
    request.project = defaultProject();
    const AnalysisResult result = analyze(request);
    REQUIRE(result.outcomes.size() == request.project.schedules.size());
    CHECK(result.refusals.empty());
    std::size_t ops = 0;
    for (const ScheduleOutcome& o : result.outcomes) {
        REQUIRE(o.index);
        CHECK(o.index == o.prediction.index); // one index, shared, not rebuilt
        CHECK(o.index->opCount() <= o.prediction.schedule.opCount());
        CHECK(o.prediction.report.iterationUs == o.prediction.timeline.makespan());
        CHECK_FALSE(o.imported);
        ops += o.prediction.schedule.opCount();
    }
    CHECK(result.opCount == ops);
}

TEST_CASE("refusals say at which step, with core's id, field and message", "[eval]") {
    AnalysisRequest request;
    request.project = defaultProject();
    request.project.parallel.pp = 3;
    request.project.model.layers = 24;
    request.project.schedules = {"1f1b", "chimera", "zb-v", "no-such"};
    const AnalysisResult result = analyze(request);
    REQUIRE(result.outcomes.size() == 2);
    CHECK(result.outcomes[0].name == "1f1b");
    CHECK(result.outcomes[1].name == "zb-v"); // 2p = 6 stages: 24 layers split
    REQUIRE(result.refusals.size() == 2);

    const ScheduleRefusal& chimera = result.refusals[0];
    CHECK(chimera.name == "chimera");
    CHECK(chimera.stage == RefusalStage::Parameters);
    CHECK(chimera.id == "generator.constraint");
    CHECK(chimera.field == "parallel.pp");
    CHECK(chimera.message ==
          "parallel.pp = 3: chimera runs two pipelines in opposite directions and needs an even pp");

    // With 25 layers zb-v's 6 stages do not split.
    CHECK(result.refusals[1].name == "no-such");
    CHECK(result.refusals[1].stage == RefusalStage::Lookup);
    CHECK(result.refusals[1].id == "schedule.unknown");
    CHECK(result.refusalOf("zb-v") == nullptr);

    request.project.model.layers = 25;
    request.project.schedules = {"zb-v"};
    const AnalysisResult fit = analyze(request);
    REQUIRE(fit.refusals.size() == 1);
    CHECK(fit.refusals[0].stage == RefusalStage::Fit);
    CHECK(fit.refusals[0].id == "project.layers");
    CHECK(fit.refusals[0].field == "model.layers");
}

TEST_CASE("availability lists every registered schedule with its first broken rule", "[eval]") {
    Project p = defaultProject();
    p.parallel.pp = 3;
    p.parallel.microbatches = 9;
    const auto availability = scheduleAvailability(p);
    REQUIRE(availability.size() == generators().size());
    for (const ScheduleAvailability& a : availability) {
        const bool bidirectional = findGenerator(a.name).pipes == 2;
        // chimera and bitpipe need an even pp, seq1f1b-i a pp its 2 slices divide
        CHECK(bool(a.refusal) == (bidirectional || a.name == "seq1f1b-i"));
        if (a.refusal) CHECK(a.refusal->stage == RefusalStage::Parameters);
    }
}

TEST_CASE("the op estimate matches what the generators produce", "[eval]") {
    // zb-v and bitpipe hold two chunks per device whatever parallel.chunks says: the estimate
    // must not read chunks for them (it once undercounted them by half).
    for (const int chunks : {1, 2, 3}) {
        for (const GeneratorInfo& info : generators()) {
            AnalysisRequest request;
            request.project = defaultProject();
            request.project.parallel = ParallelConfig{{4, 8, chunks}, 1, 1};
            if (constraintViolation(info, scheduleParams(request.project))) continue;
            request.project.schedules = {std::string(info.name)};
            const Schedule s = orderFromProject(request.project, info.name);
            INFO(info.name << " chunks " << chunks);
            CHECK(estimateOpCount(request) == computeOps(s));
        }
    }
}

TEST_CASE("an order depends on the parameters alone", "[eval]") {
    Project p = defaultProject(); // 8 GPUs, dp = 2: pp = 8 does not fit the cluster
    p.parallel.pp = 8;
    p.model.layers = 25; // and 25 layers do not split into 8 stages
    const Schedule s = orderFromProject(p, "1f1b");
    CHECK(s.devices == 8);
    CHECK(computeOps(s) == 8 * 8 * 2);
    CHECK(test::errorSummary([&] { orderFromProject(p, "chimera"); }) == "accepted");
    p.parallel.pp = 7;
    CHECK(test::errorSummary([&] { orderFromProject(p, "chimera"); }) ==
          "generator.constraint [parallel.pp] | parallel.pp = 7: chimera runs two pipelines in opposite "
          "directions and needs an even pp");
}

TEST_CASE("an imported schedule is evaluated on its own pipeline", "[eval]") {
    AnalysisRequest request;
    request.project = defaultProject(); // pp = 4, m = 8
    request.project.costs.stages = {StageCostOverride{3, 1, 1, 1}};
    ImportedSchedule imported;
    imported.name = "mine.csv";
    imported.schedule = generateSchedule("zb-h1", ScheduleParams{2, 5, 1});
    request.imported.push_back(imported);
    request.imported.push_back(imported);
    request.imported.back().name = "unchecked.csv";
    request.imported.back().checked = false;
    const AnalysisResult result = analyze(request);
    REQUIRE(result.refusals.empty());
    REQUIRE(result.outcomes.size() == request.project.schedules.size() + 1);
    const ScheduleOutcome& o = result.outcomes.back();
    CHECK(o.name == "mine.csv");
    CHECK(o.imported);
    CHECK(o.prediction.report.schedule == "mine.csv");
    CHECK(o.prediction.schedule.devices == 2);
    CHECK(o.prediction.schedule.microbatches == 5);
    const Project fitted = projectForSchedule(request.project, imported.schedule);
    CHECK(fitted.parallel.pp == 2);
    CHECK(fitted.parallel.microbatches == 5);
    CHECK(fitted.costs.stages.empty()); // stage 3 does not exist on two devices
}

TEST_CASE("loadAnalysisRequest reads schedule files and projects one way", "[eval]") {
    const auto dir = std::filesystem::temp_directory_path() / "stagecraft-eval-test";
    std::filesystem::create_directories(dir);
    const auto csv = (dir / "order.csv").string();
    writeScheduleFile(generateSchedule("1f1b", ScheduleParams{64, 16, 1}), csv);

    EvaluationInput input;
    input.path = csv;
    input.sets = {"costs.mode=unit"};
    const AnalysisRequest request = loadAnalysisRequest(input);
    CHECK(request.project.schedules.empty());
    REQUIRE(request.imported.size() == 1);
    CHECK(request.imported[0].name == "order.csv");
    const AnalysisResult result = analyze(request);
    REQUIRE(result.outcomes.size() == 1);
    // 1F1B under unit costs (B = 2 F): (m + p - 1) (F + B) = (16 + 63) * 3.
    CHECK(result.outcomes[0].prediction.report.iterationUs == Approx(79 * 3));

    // Analytic costs place every GPU: 64 devices on the default 8-GPU cluster is refused, and the
    // message says how to fit it.
    input.sets.clear();
    CHECK_THAT(test::errorSummary([&] { loadAnalysisRequest(input); }),
               Catch::StartsWith(
                   "project.field [parallel.dp] | parallel.pp × parallel.dp × parallel.tp = 64 × 2 × 1") &&
                   Catch::Contains("set cluster.nodes = 16"));

    input.schedules = {"1f1b"};
    CHECK(test::errorSummary([&] { loadAnalysisRequest(input); }) ==
          "eval.input [--schedule] | --schedule with the schedule file " + csv +
              ": a schedule file is its own schedule; --schedule names registered schedules of a project");
    std::filesystem::remove_all(dir);
}

TEST_CASE("event dependencies come from the kept index, both ways", "[eval]") {
    Project project = defaultProject();
    project.costs.mode = CostMode::Unit;
    const Prediction p = predict(project, generateSchedule("1f1b", scheduleParams(project)));
    const EventDependencies deps(p);
    int f0s0 = -1, f0s1 = -1, b0s3 = -1, f0s3 = -1;
    for (std::size_t i = 0; i < p.timeline.events.size(); ++i) {
        const TimelineEvent& e = p.timeline.events[i];
        if (e.lane != Lane::Compute || e.op.mb != 0) continue;
        if (e.op.kind == OpKind::F && e.op.stage == 0) f0s0 = int(i);
        if (e.op.kind == OpKind::F && e.op.stage == 1) f0s1 = int(i);
        if (e.op.kind == OpKind::F && e.op.stage == 3) f0s3 = int(i);
        if (e.op.kind == OpKind::B && e.op.stage == 3) b0s3 = int(i);
    }
    REQUIRE((f0s0 >= 0 && f0s1 >= 0 && b0s3 >= 0 && f0s3 >= 0));
    CHECK(deps.producers(f0s1) == std::vector<int>{f0s0});
    const auto consumersOfFirstF = deps.consumers(f0s0); // F0 of stage 1 and B0 of stage 0
    CHECK(consumersOfFirstF.size() == 2);
    CHECK(std::find(consumersOfFirstF.begin(), consumersOfFirstF.end(), f0s1) != consumersOfFirstF.end());
    CHECK(deps.producers(b0s3) == std::vector<int>{f0s3});
    const auto consumersOfLastF = deps.consumers(f0s3);
    CHECK(std::find(consumersOfLastF.begin(), consumersOfLastF.end(), b0s3) != consumersOfLastF.end());
    CHECK(deps.producers(-1).empty());
    CHECK(deps.consumers(int(p.timeline.events.size())).empty());
}

TEST_CASE("A cancelled analysis stops before the next schedule", "[evaluation]") {
    AnalysisRequest request;
    request.project.schedules = {"1f1b", "zb-h1"};
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    request.cancel = cancel;
    CHECK_FALSE(analyze(request).cancelled);
    CHECK(analyze(request).outcomes.size() == 2);
    cancel->store(true);
    const AnalysisResult stopped = analyze(request);
    CHECK(stopped.cancelled);
    CHECK(stopped.outcomes.empty());
}

TEST_CASE("An analysis reports its progress by schedule effort and stops inside a schedule", "[evaluation]") {
    AnalysisRequest request;
    request.project.costs.mode = CostMode::Unit;
    request.project.model.layers = 32;
    request.project.parallel.pp = 8;
    request.project.parallel.microbatches = 64;
    request.project.memory.limitMicrobatches = 8;
    request.project.schedules = {"1f1b", "zb-auto"};
    std::vector<std::pair<double, std::string>> seen;
    request.progress = [&](double fraction, const std::string& schedule) {
        seen.emplace_back(fraction, schedule);
    };
    const AnalysisResult done = analyze(request);
    REQUIRE(done.outcomes.size() == 2);
    REQUIRE(seen.size() > 5);
    for (std::size_t i = 1; i < seen.size(); ++i) CHECK(seen[i].first >= seen[i - 1].first);
    CHECK(seen.back().first == Approx(1.0));
    CHECK(seen.front().second == "1f1b");
    CHECK(seen.back().second == "zb-auto");
    // 1F1B has 2pm ops, zb-auto 3pm, each weighted 40 for its search: 1F1B is 2 / 122 of the work.
    const auto lastOf1f1b =
        std::find_if(seen.rbegin(), seen.rend(), [](const auto& s) { return s.second == "1f1b"; });
    CHECK(lastOf1f1b->first == Approx(2.0 / 122));

    // Cancel from inside zb-auto's search (after its first candidates): no half-searched order.
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    request.cancel = cancel;
    int zbAutoReports = 0;
    request.progress = [&](double, const std::string& schedule) {
        if (schedule == "zb-auto" && ++zbAutoReports == 3) cancel->store(true);
    };
    const AnalysisResult stopped = analyze(request);
    CHECK(stopped.cancelled);
    REQUIRE(stopped.outcomes.size() == 1);
    CHECK(stopped.outcomes.front().name == "1f1b");
    CHECK(stopped.refusals.empty());
    CHECK(zbAutoReports == 3);
}

TEST_CASE("A cancel during one plain schedule's prediction stops it between its steps", "[evaluation]") {
    AnalysisRequest request;
    request.project.costs.mode = CostMode::Unit;
    request.project.schedules = {"1f1b"};
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    request.cancel = cancel;
    int reports = 0;
    request.progress = [&](double fraction, const std::string&) {
        ++reports;
        if (fraction >= 0.5) cancel->store(true);
    };
    const AnalysisResult stopped = analyze(request);
    CHECK(stopped.cancelled);
    CHECK(stopped.outcomes.empty());
    CHECK(stopped.refusals.empty());
    CHECK(reports < 6); // the remaining steps did not run
}

TEST_CASE("a stagecraft-run trace is compared with the timing its own prediction used", "[eval]") {
    AnalysisRequest request;
    request.project = defaultProject();
    request.project.schedules = {"1f1b"};
    request.project.costs.mode = CostMode::Manual;
    request.project.costs.comm = 400;
    const AnalysisResult listed = analyze(request);
    REQUIRE(listed.outcomes.size() == 1);
    MeasuredTrace trace;
    trace.path = "measured.json";
    trace.timeline = std::make_shared<const Timeline>(listed.outcomes.front().prediction.timeline);
    // Another tool's trace (no run, or a run that names no timing) changes nothing.
    request.trace = trace;
    CHECK(analyze(request).outcomes.front().prediction.report.notes.find("stagecraft-run") ==
          std::string::npos);
    trace.info.runJson = R"({"backend": "host", "prediction_timing": "stagecraft-run"})";
    request.trace = trace;
    const AnalysisResult run = analyze(request);
    REQUIRE(run.outcomes.size() == 1);
    CHECK(run.outcomes.front().prediction.report.notes.find("timed as stagecraft-run runs it") !=
          std::string::npos);
    CHECK(run.outcomes.front().prediction.report.iterationUs >=
          listed.outcomes.front().prediction.report.iterationUs);
    CHECK(request.project.costs.timing == Timing::ListScheduler); // the request itself is left alone
}
