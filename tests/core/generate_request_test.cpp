// Requests from a project: parameters for every generator, and costs plus a memory limit, from the
// same models the simulator uses, for generators that plan with them. A cost-aware generator is
// driven through the registry's own entry points (checkRequest, generateSchedule).
#include "error.h"
#include "generators/registry.h"
#include "project/project.h"
#include "project/project_fields.h"
#include "sim/generate_request.h"

#include <catch2/catch.hpp>

namespace {

using namespace stagecraft;

// A registered-like entry whose order depends on costs: 1F1B, recording what it was asked.
GenerateRequest g_seen;
Schedule recordingGenerate(const GenerateRequest& request) {
    g_seen = request;
    return generateSchedule("1f1b", request.params);
}
GeneratorInfo costAwareInfo() {
    GeneratorInfo info = findGenerator("1f1b");
    info.name = "cost-aware-1f1b";
    info.usesCosts = true;
    info.generate = recordingGenerate;
    return info;
}

} // namespace

TEST_CASE("requests of generators that do not use costs carry the parameters only", "[request]") {
    Project p = defaultProject();
    p.parallel.chunks = 3;
    const GenerateRequest r = generateRequest(p, findGenerator("1f1b"));
    CHECK(r.params == ScheduleParams{4, 8, 1, 1}); // chunks and slices ignored by 1F1B
    CHECK(r.stageCosts.empty());
    CHECK(r.memoryLimit == 0);
    CHECK(generateRequest(p, findGenerator("interleaved")).params == ScheduleParams{4, 8, 3, 1});
    p.parallel.slices = 4;
    CHECK(generateRequest(p, findGenerator("seq1f1b")).params == ScheduleParams{4, 8, 1, 4});
}

TEST_CASE("a cost-aware generator gets the cost model's stage costs and the memory limit", "[request]") {
    const GeneratorInfo info = costAwareInfo();
    Project p = defaultProject();
    p.costs.mode = CostMode::Manual;
    p.costs.f = 100;
    p.costs.b = 120;
    p.costs.w = 80;
    p.costs.comm = 7;
    p.costs.stages = {StageCostOverride{3, 200, 220, 180}};
    p.memory.limitGib = 0;
    GenerateRequest r = generateRequest(p, info);
    REQUIRE(r.stageCosts.size() == 4);
    CHECK(r.stageCosts[0] == StageCost{100, 120, 80});
    CHECK(r.stageCosts[3] == StageCost{200, 220, 180});
    CHECK(r.comm == 7);
    CHECK(r.memoryLimit == 0);     // no limit
    CHECK_FALSE(r.postValidation); // a flush ends the iteration
    p.costs.optimizerSync = OptimizerSync::PostValidation;
    CHECK(generateRequest(p, info).postValidation);
    p.costs.optimizerSync = OptimizerSync::Flush;

    // The generator is driven through the registry's entry point and sees exactly the request.
    const Schedule s = generateSchedule(info, r);
    CHECK(s.opCount() == 4 * 8 * 2);
    CHECK(g_seen.stageCosts == r.stageCosts);

    // Analytic costs and a limit: the limit left after static memory, in full-stage activations.
    p = defaultProject();
    p.memory.limitGib = 80;
    r = generateRequest(p, info);
    REQUIRE(r.stageCosts.size() == 4);
    CHECK(r.stageCosts[1].f > 0);
    CHECK(r.memoryLimit > 1);
    p.memory.limitGib = 0.01; // less than the weights
    CHECK_THROWS_MATCHES(generateRequest(p, info), ValidationError,
                         Catch::Predicate<ValidationError>([](const ValidationError& e) {
                             return e.id() == "generator.memory" && e.field() == "memory.limit_gib";
                         }));
}

TEST_CASE("checkRequest refuses costs a generator cannot plan with", "[request]") {
    const GeneratorInfo info = costAwareInfo();
    GenerateRequest r{ScheduleParams{4, 8, 1}, {StageCost{}, StageCost{}}, 0, 0};
    CHECK_THROWS_WITH(checkRequest(info, r),
                      Catch::Contains("has 4 stages per pipe but 2 stage costs were given"));
    r.stageCosts.assign(4, StageCost{});
    r.stageCosts[2].b = -1;
    CHECK_THROWS_WITH(checkRequest(info, r), Catch::Contains("stage 2 b = -1"));
    r.stageCosts[2].b = 1;
    r.comm = -3;
    CHECK_THROWS_WITH(checkRequest(info, r), Catch::Contains("comm = -3"));
    r.comm = 0;
    r.memoryLimit = -1;
    CHECK_THROWS_WITH(checkRequest(info, r), Catch::Contains("memory limit = -1"));
    r.memoryLimit = 4;
    CHECK_NOTHROW(checkRequest(info, r));
    CHECK(r.cost(3) == StageCost{});
}

TEST_CASE("schedule parameters are described once", "[request]") {
    // The registry's specs and the project's fields take range, default and help from one row.
    for (const GeneratorInfo& info : generators())
        for (const ParamSpec& spec : info.params) {
            INFO(info.name << " " << spec.name);
            REQUIRE(spec.param != nullptr);
            CHECK(spec.field == spec.param->path);
            CHECK(spec.max == spec.param->max);
            CHECK(spec.min >= spec.param->min);
        }
    for (const ScheduleParamField& row : scheduleParamFields()) {
        const ProjectField* field = findProjectField(row.path);
        REQUIRE(field != nullptr);
        CHECK(field->min == row.min);
        CHECK(field->max == row.max);
        CHECK(field->help == row.help);
        CHECK(field->defaultText == row.defaultText);
        // Reading and writing the project field reads and writes the parameter.
        Project p;
        setFieldValue(p, *field, FieldValue{3});
        CHECK(scheduleParams(p).*(row.member) == 3);
    }
    // Whether a schedule reads a parameter is the same asked with the row or its constant.
    const GeneratorInfo& seq = findGenerator("seq1f1b");
    const GeneratorInfo& interleaved = findGenerator("interleaved");
    for (const ScheduleParamField& row : scheduleParamFields()) {
        INFO(row.name);
        CHECK(readsParam(seq, row) == (row.member != &ScheduleParams::chunks));
        CHECK(readsParam(interleaved, row) == (row.member != &ScheduleParams::slices));
    }
}
