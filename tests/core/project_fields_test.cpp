#include "error.h"
#include "project/field_labels.h"
#include "project/project_fields.h"
#include "validate/validator.h"

#include <catch2/catch.hpp>
#include <set>

using namespace stagecraft;

TEST_CASE("Every field is described once with a consistent place, default and range", "[project]") {
    const Project defaults;
    std::set<std::string_view> paths;
    for (const auto& field : projectFields()) {
        INFO("field " << field.path);
        CHECK(paths.insert(field.path).second);
        if (field.section.empty()) {
            CHECK(field.key == field.path);
        } else {
            CHECK(std::string(field.section) + "." + std::string(field.key) == field.path);
            const auto sections = projectSections();
            CHECK(std::find(sections.begin(), sections.end(), field.section) != sections.end());
        }
        CHECK_FALSE(field.help.empty());
        // The table's default text is the struct's default, and the struct's default is in range.
        CHECK(formatFieldValue(field.get(defaults)) == field.defaultText);
        CHECK_FALSE(fieldRangeProblem(field, field.get(defaults)).has_value());
        CHECK(field.min <= field.max);
        CHECK(findProjectField(field.path) == &field);
        // Setting what was read leaves the project unchanged.
        Project copy = defaults;
        field.set(copy, field.get(defaults));
        CHECK(copy == defaults);
    }
    // 32 + memory.limit_microbatches, costs.optimizer_sync, costs.fb, costs.layers, costs.note,
    // costs.timing, parallel.slices, parallel.slice_split, costs.slice_costs, model.attention
    CHECK(paths.size() == 42);
    CHECK(findProjectField("model") == nullptr);
    CHECK(findProjectField("stagecraft") == nullptr);
    CHECK(findProjectField("model.layer") == nullptr);
}

TEST_CASE("Field table rows carry the documented kinds, units and limits", "[project]") {
    const ProjectField* layers = findProjectField("model.layers");
    REQUIRE(layers);
    CHECK(layers->section == "model");
    CHECK(layers->key == "layers");
    CHECK(layers->kind == FieldKind::Int);
    CHECK(layers->min == 1);

    const ProjectField* pp = findProjectField("parallel.pp");
    REQUIRE(pp);
    CHECK(pp->max == kMaxDevices);
    CHECK(findProjectField("parallel.microbatches")->max == kMaxMicrobatches);
    CHECK(findProjectField("parallel.chunks")->min == 1);
    CHECK(findProjectField("parallel.chunks")->max == 64);
    CHECK(findProjectField("memory.zero_stage")->max == 3);
    CHECK(findProjectField("cluster.latency_us")->unit == "µs");
    CHECK(findProjectField("cluster.memory_gib")->unit == "GiB");
    CHECK(findProjectField("cluster.inter_node_gbps")->unit == "Gbit/s");
    CHECK(findProjectField("costs.stages")->kind == FieldKind::StageCosts);
    CHECK(findProjectField("schedules")->kind == FieldKind::StringList);
    CHECK(findProjectField("name")->section.empty());

    CHECK(describeFieldRange(*pp) == "1..4096");
    CHECK(describeFieldRange(*findProjectField("costs.f")) == "> 0 and <= 1000000000 µs");
    CHECK(describeFieldRange(*findProjectField("costs.efficiency")) == "> 0 and <= 1");
    CHECK(describeFieldRange(*findProjectField("model.dtype")) == "one of fp16, bf16, fp32");
    CHECK(describeFieldRange(*findProjectField("cluster.gpu")) == "1..64 characters");
    CHECK(describeFieldRange(*findProjectField("schedules")) == "0..32 entries");
}

TEST_CASE("Enum fields map every choice to its enum value", "[project]") {
    Project p;
    const ProjectField& dtype = *findProjectField("model.dtype");
    REQUIRE(dtype.choices.size() == 3);
    for (std::size_t i = 0; i < dtype.choices.size(); ++i) {
        setFieldValue(p, dtype, std::string(dtype.choices[i]));
        CHECK(p.model.dtype == static_cast<DType>(i));
        CHECK(dtypeName(p.model.dtype) == dtype.choices[i]);
    }
    const ProjectField& recompute = *findProjectField("memory.recompute");
    for (std::size_t i = 0; i < recompute.choices.size(); ++i) {
        setFieldValue(p, recompute, std::string(recompute.choices[i]));
        CHECK(recomputeName(p.memory.recompute) == recompute.choices[i]);
    }
    const ProjectField& mode = *findProjectField("costs.mode");
    for (std::size_t i = 0; i < mode.choices.size(); ++i) {
        setFieldValue(p, mode, std::string(mode.choices[i]));
        CHECK(costModeName(p.costs.mode) == mode.choices[i]);
    }
}

TEST_CASE("setFieldValue checks kind and range", "[project]") {
    Project p;
    const ProjectField& peak = *findProjectField("cluster.peak_tflops");
    setFieldValue(p, peak, 989); // an int is accepted by a number field
    CHECK(p.cluster.peakTflops == 989.0);

    try {
        setFieldValue(p, *findProjectField("parallel.pp"), std::string("8"));
        FAIL("no throw");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "project.type");
        CHECK(e.field() == "parallel.pp");
        CHECK(e.message() == "parallel.pp = 8: must be of kind int");
    }
    try {
        setFieldValue(p, *findProjectField("parallel.chunks"), 65);
        FAIL("no throw");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "project.field");
        CHECK(e.message() == "parallel.chunks = 65: must be in 1..64");
    }
    CHECK(p.parallel.chunks == 2);

    const ProjectField& stages = *findProjectField("costs.stages");
    CHECK(fieldRangeProblem(stages, std::vector<StageCostOverride>{{0, 1, 2, 3}, {1, 1, -2, 3}}) ==
          "costs.stages[1].b = -2: must be in 0..1000000000 µs");
    CHECK(fieldRangeProblem(stages, std::vector<StageCostOverride>{{-1, 1, 2, 3}}) ==
          "costs.stages[0].stage = -1: must be in 0..4095");
    const ProjectField& schedules = *findProjectField("schedules");
    CHECK(fieldRangeProblem(schedules, std::vector<std::string>{"1f1b", ""}) ==
          "schedules[1] = \"\": must not be empty");
    CHECK(fieldRangeProblem(*findProjectField("costs.efficiency"), 0.0) ==
          "costs.efficiency = 0: must be > 0 and <= 1");
    CHECK(fieldRangeProblem(*findProjectField("model.dtype"), std::string("fp8")) ==
          "model.dtype = \"fp8\": must be one of fp16, bf16, fp32");
    CHECK(fieldRangeProblem(*findProjectField("cluster.gpu"), std::string()) ==
          "cluster.gpu = \"\": must have 1..64 characters");
}

TEST_CASE("formatFieldValue writes what --set reads", "[project]") {
    CHECK(formatFieldValue(24) == "24");
    CHECK(formatFieldValue(0.5) == "0.5");
    CHECK(formatFieldValue(1e9) == "1000000000");
    CHECK(formatFieldValue(312.0) == "312");
    CHECK(formatFieldValue(std::vector<std::string>{"1f1b", "zb-v"}) == "1f1b,zb-v");
    CHECK(formatFieldValue(std::vector<StageCostOverride>{{0, 1200, 1100, 600}, {3, 900.5, 900, 450}}) ==
          "0:1200:1100:600,3:900.5:900:450");
}

TEST_CASE("Every project field has words a person reads", "[project][labels]") {
    for (const ProjectField& field : projectFields()) {
        INFO(field.path);
        CHECK(hasFieldLabel(field.path));
        CHECK(fieldLabel(field).find('_') == std::string::npos);
        CHECK(fieldLabel(field).find('.') == std::string::npos);
    }
    CHECK(fieldLabel(*findProjectField("parallel.pp")) == "Pipeline stages (pp)");
    CHECK(fieldLabel(*findProjectField("memory.limit_gib")) == "Memory limit (GiB)");
}

TEST_CASE("Cost fields the cost model ignores say why", "[project][labels]") {
    Project project;
    project.costs.mode = CostMode::Analytic;
    const auto reason = fieldIgnoredReason(*findProjectField("costs.f"), project);
    REQUIRE(reason);
    CHECK(*reason == "costs.f is read only by the manual cost model; costs.mode is analytic");
    CHECK_FALSE(fieldIgnoredReason(*findProjectField("costs.efficiency"), project));
    CHECK_FALSE(fieldIgnoredReason(*findProjectField("model.layers"), project));
    project.costs.mode = CostMode::Manual;
    CHECK_FALSE(fieldIgnoredReason(*findProjectField("costs.f"), project));
    CHECK(fieldIgnoredReason(*findProjectField("costs.efficiency"), project));
    project.costs.mode = CostMode::Unit;
    CHECK(fieldIgnoredReason(*findProjectField("costs.stages"), project));
}

TEST_CASE("A rule's message in the form's words", "[project][labels]") {
    CHECK(
        withFieldLabels("parallel.pp × parallel.dp × parallel.tp = 4 × 4 × 1 = 16 GPUs (cluster.nodes = 1); "
                        "set cluster.nodes.") ==
        "Pipeline stages (pp) × Data parallel (dp) × Tensor parallel (tp) = 4 × 4 × 1 = 16 GPUs (Nodes = 1); "
        "set Nodes.");
    // The longest path wins, and a path with an index or a sub-key stays as written.
    CHECK(withFieldLabels("memory.limit_microbatches, memory.limit_gib") ==
          "Activation limit (micro-batches), Memory limit (GiB)");
    CHECK(withFieldLabels("costs.stages[0].stage = 9, xparallel.pp, parallel.ppx") ==
          "costs.stages[0].stage = 9, xparallel.pp, parallel.ppx");
}
