#include "error.h"
#include "project/project_validate.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

namespace {

std::string firstProblem(const Project& p) {
    const auto problems = findProjectProblems(p);
    REQUIRE_FALSE(problems.empty());
    return problems.front().field + ": " + problems.front().message;
}

} // namespace

TEST_CASE("The default projects are valid", "[project]") {
    CHECK(findProjectProblems(Project{}).empty());
    CHECK(findProjectProblems(defaultProject()).empty());
    CHECK_NOTHROW(validateProject(defaultProject()));
}

TEST_CASE("Each rule between fields has its own message", "[project]") {
    Project p = defaultProject();
    p.model.hidden = 2050;
    CHECK(firstProblem(p) ==
          "model.heads: model.hidden = 2050 is not a multiple of model.heads = 16 (each head "
          "gets hidden / heads dimensions)");

    p = defaultProject();
    p.parallel.dp = 4;
    CHECK(firstProblem(p) ==
          "parallel.dp: parallel.pp × parallel.dp × parallel.tp = 4 × 4 × 1 = 16 GPUs, but the cluster has 8 "
          "(cluster.gpus_per_node = 8 × cluster.nodes = 1) and analytic costs place every GPU: set "
          "cluster.nodes = 2, lower parallel.dp or parallel.tp, or use costs.mode = manual or unit");
    // Manual and unit costs time any pipeline on any cluster: the cluster's size does not matter.
    p.costs.mode = CostMode::Unit;
    CHECK(findProjectProblems(p).empty());
    p.costs.mode = CostMode::Manual;
    CHECK(findProjectProblems(p).empty());
    p.costs.mode = CostMode::Analytic;
    p.cluster.nodes = 2;
    CHECK(findProjectProblems(p).empty());

    p = defaultProject();
    p.parallel.pp = 2; // 2 × 1 × 3 GPUs fit the node
    p.parallel.dp = 1;
    p.parallel.tp = 3;
    const auto tp = findProjectProblems(p);
    REQUIRE(tp.size() == 2);
    CHECK(tp[0].message ==
          "parallel.tp = 3 does not divide model.heads = 16 (tensor parallelism splits the attention heads)");
    CHECK(tp[1].message == "parallel.tp = 3 does not divide model.hidden = 2048 (tensor parallelism splits "
                           "the weight matrices)");

    p = defaultProject();
    p.parallel = ParallelConfig{{1, 8, 2}, 1, 16};
    p.cluster.nodes = 2;
    CHECK(firstProblem(p) ==
          "parallel.tp: parallel.tp = 16: tensor parallelism stays inside one node and needs tp "
          "<= cluster.gpus_per_node = 8");

    p = defaultProject();
    p.schedules = {"1f1b", "zb", "1F1B"};
    const auto schedules = findProjectProblems(p);
    REQUIRE(schedules.size() == 2);
    CHECK(schedules[0].field == "schedules");
    CHECK(schedules[0].message ==
          "schedules[1] = \"zb\": unknown schedule; valid names: gpipe, 1f1b, 1f1b-recompute, "
          "interleaved, breadth-first, chimera, "
          "bitpipe, bitpipe-figure, hanayo, zb-h1, zb-h2, zb-v, v-1f1b, zb-v-half, zb-v-min, zb-auto, "
          "interleaved-zb, dualpipe, dualpipev, seq1f1b, seq1f1b-i, terapipe");
    CHECK(schedules[1].message == "schedules[2] = \"1F1B\": listed twice (also schedules[0])");

    p = defaultProject();
    p.costs.stages = {{3, 1, 1, 1}, {4, 1, 1, 1}, {3, 2, 2, 2}};
    const auto stages = findProjectProblems(p);
    REQUIRE(stages.size() == 2);
    CHECK(stages[0].message == "costs.stages[1].stage = 4: must be in 0..3 (parallel.pp = 4)");
    CHECK(stages[1].message ==
          "costs.stages[2].stage = 3: stage 3 already has an override in costs.stages[0]");

    // Costs per range of layers describe the whole model, in order.
    p = defaultProject();
    p.costs.layers = {{0, 11, 1, 1, 1}, {12, 23, 1, 1, 1}};
    CHECK(findProjectProblems(p).empty());
    p.costs.layers = {{1, 11, 1, 1, 1}, {12, 23, 1, 1, 1}};
    CHECK(
        firstProblem(p) ==
        "costs.layers: costs.layers[0].first = 1: the ranges describe the whole model and start at layer 0");
    p.costs.layers = {{0, 11, 1, 1, 1}, {11, 23, 1, 1, 1}};
    CHECK(firstProblem(p) ==
          "costs.layers: costs.layers[1].first = 11: must be 12, the layer after "
          "costs.layers[0].last = 11 (ranges follow one another without gaps or overlaps)");
    p.costs.layers = {{0, 11, 1, 1, 1}, {12, 23, 1, 1, 1}};
    p.model.layers = 30;
    CHECK(
        firstProblem(p) ==
        "costs.layers: costs.layers[1].last = 23: the ranges end at the model's last layer, model.layers - 1 "
        "= 29; costs per layer describe one model: calibrate again after changing model.layers, or give "
        "ranges for its layers");

    p = defaultProject();
    p.version = 1; // the reader converts older formats; a project in memory is the newest
    CHECK(firstProblem(p) == "stagecraft: stagecraft = 1: this build handles format 2");
}

TEST_CASE("Ranges come from the field table", "[project]") {
    Project p = defaultProject();
    p.memory.limitGib = -1;
    CHECK(firstProblem(p) == "memory.limit_gib: memory.limit_gib = -1: must be in 0..1000000 GiB");
    p = defaultProject();
    p.costs.efficiency = 0;
    CHECK(firstProblem(p) == "costs.efficiency: costs.efficiency = 0: must be > 0 and <= 1");
    p = defaultProject();
    p.costs.f = 0;
    CHECK(firstProblem(p) == "costs.f: costs.f = 0: must be > 0 and <= 1000000000 µs");
    p = defaultProject();
    p.costs.w = -1;
    CHECK(firstProblem(p) == "costs.w: costs.w = -1: must be in 0..1000000000 µs");
    p = defaultProject();
    p.parallel.pp = 1000000000;
    CHECK(firstProblem(p) == "parallel.pp: parallel.pp = 1000000000: must be in 1..4096");
}

TEST_CASE("All problems are reported at once, and validateProject counts the rest", "[project]") {
    Project p = defaultProject();
    p.model.heads = 0;     // range; hidden % heads and heads % tp are skipped
    p.model.hidden = 2047; // hidden % tp is fine with tp = 1
    p.parallel.dp = 8;     // 32 GPUs on 8
    p.schedules = {"1f1b", "nope"};
    p.costs.comm = -5;
    const auto problems = findProjectProblems(p);
    REQUIRE(problems.size() == 4);
    CHECK(problems[0].field == "model.heads");
    CHECK(problems[0].message == "model.heads = 0: must be in 1..16384");
    CHECK(problems[1].field == "costs.comm");
    CHECK(problems[2].field == "parallel.dp");
    CHECK(problems[3].field == "schedules");
    try {
        validateProject(p);
        FAIL("no throw");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "project.field");
        CHECK(e.field() == "model.heads");
        CHECK(e.message() == "model.heads = 0: must be in 1..16384 (and 3 more problems)");
    }
}
