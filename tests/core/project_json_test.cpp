#include "error.h"
#include "project/project_fields.h"
#include "project/project_json.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <filesystem>

using namespace stagecraft;

namespace {

/// The message of the ParseError that parsing `text` throws, checking its id.
std::string parseFailure(const std::string& text, const std::string& id) {
    try {
        parseProject(text, "t.json");
    } catch (const ParseError& e) {
        CHECK(e.id() == id);
        CHECK(e.source() == "t.json");
        return e.message();
    }
    FAIL("parseProject accepted: " << text);
    return "";
}

std::string withVersion(const std::string& rest) {
    return "{\"stagecraft\": " + std::to_string(kProjectFormatVersion) + rest + "}";
}

Project everyFieldChanged() {
    Project p;
    p.name = "Ünïcode \"quoted\" name\twith tab";
    p.schedules = {"1f1b", "zb-v"};
    p.model = ModelConfig{48, 6144, 48, 4096, 32000, 2, DType::FP32};
    p.cluster = ClusterConfig{"H100-SXM", 4, 16, 989.5, 79.6, 3600, 400.25, 2.5};
    p.parallel = ParallelConfig{{8, 64, 3}, 4, 2};
    p.memory = MemoryConfig{0.1, 3, Recompute::Selective};
    p.costs = CostsConfig{CostMode::Manual, 1.1, 2.2, 0.3, 12.5, 0.375, {{0, 1200, 1100, 600}, {7, 0, 0, 0}}};
    p.costs.fb = 2.75;
    p.costs.layers = {{0, 23, 1500.5, 1400, 1300}, {24, 47, 1600, 0, 1e9}};
    p.costs.note = "calibrated from r0.json, r1.json";
    return p;
}

} // namespace

TEST_CASE("The struct default project is written in a stable form", "[project]") {
    const std::string expected = R"({
  "stagecraft": 2,
  "name": "Untitled",
  "schedules": [],
  "model": {
    "layers": 24,
    "hidden": 2048,
    "heads": 16,
    "seq_len": 2048,
    "vocab": 51200,
    "micro_batch_size": 1,
    "dtype": "bf16"
  },
  "cluster": {
    "gpu": "A100-80GB",
    "gpus_per_node": 8,
    "nodes": 1,
    "peak_tflops": 312.0,
    "memory_gib": 80.0,
    "intra_node_gbps": 2400.0,
    "inter_node_gbps": 200.0,
    "latency_us": 5.0
  },
  "parallel": {
    "pp": 4,
    "dp": 1,
    "tp": 1,
    "microbatches": 8,
    "chunks": 2,
    "slices": 2
  },
  "memory": {
    "limit_gib": 80.0,
    "zero_stage": 0,
    "recompute": "none"
  },
  "costs": {
    "mode": "analytic",
    "f": 1000.0,
    "b": 1000.0,
    "w": 1000.0,
    "comm": 0.0,
    "efficiency": 0.5,
    "stages": [],
    "fb": 0.0
  }
}
)";
    CHECK(projectToJson(Project{}) == expected);
}

TEST_CASE("Projects survive a write and a read unchanged", "[project]") {
    for (const Project& p : {Project{}, defaultProject(), everyFieldChanged()}) {
        const std::string text = projectToJson(p);
        const Project back = parseProject(text, "round-trip");
        CHECK(back == p);
        CHECK(projectToJson(back) == text);
    }
    const auto path = std::filesystem::temp_directory_path() / "stagecraft_project_json_test.stagecraft.json";
    writeProject(everyFieldChanged(), path);
    CHECK(readProject(path) == everyFieldChanged());
    std::filesystem::remove(path);
}

TEST_CASE("Missing keys of a present section take the struct defaults", "[project]") {
    const std::string sections = R"(, "model": {}, "cluster": {}, "parallel": {}, "memory": {}, "costs": {})";
    CHECK(parseProject(withVersion(sections), "t.json") == Project{});
    Project expected;
    expected.model.layers = 48;
    expected.costs.efficiency = 0.25;
    CHECK(
        parseProject(withVersion(R"(, "model": {"layers": 48}, "cluster": {}, "parallel": {}, "memory": {},)"
                                 R"( "costs": {"efficiency": 0.25})"),
                     "t.json") == expected);
    // Whole-number values of number fields may be written as integers.
    CHECK(parseProject(withVersion(R"(, "model": {}, "cluster": {"peak_tflops": 989}, "parallel": {},)"
                                   R"( "memory": {}, "costs": {})"),
                       "t.json")
              .cluster.peakTflops == 989.0);
}

TEST_CASE("A missing section is refused by name, never filled with defaults", "[project]") {
    CHECK(test::errorSummary([] { parseProject("{\"stagecraft\": 1}", "t.json"); }) ==
          "project.section 0:0 | t.json: missing section \"model\": a project needs model, cluster, "
          "parallel, memory and costs (only parallel and costs when costs.mode is \"unit\"); "
          "`stagecraft-cli generate` and the app write every section");
    CHECK_THAT(test::errorSummary([] {
                   parseProject(withVersion(R"(, "model": {}, "parallel": {}, "memory": {}, "costs": {})"),
                                "t.json");
               }),
               Catch::StartsWith("project.section 0:0 | t.json: missing section \"cluster\""));
    // Unit costs read only the pipeline.
    const Project unit =
        parseProject(withVersion(R"(, "parallel": {"pp": 8}, "costs": {"mode": "unit"})"), "t.json");
    CHECK(unit.parallel.pp == 8);
    CHECK(unit.costs.mode == CostMode::Unit);
    CHECK_THAT(
        test::errorSummary([] { parseProject(withVersion(R"(, "costs": {"mode": "unit"})"), "t.json"); }),
        Catch::Contains("missing section \"parallel\""));
}

TEST_CASE("Malformed JSON is reported with line and column", "[project]") {
    try {
        parseProject("{\n  \"stagecraft\": 1,\n  \"name\" \"x\"\n}", "t.json");
        FAIL("no throw");
    } catch (const ParseError& e) {
        CHECK(e.id() == "project.json");
        CHECK(e.line() == 3);
        CHECK(e.column() == 12);
        CHECK(std::string(e.what()) == "[project.json] t.json line 3, column 12: malformed JSON: syntax "
                                       "error while parsing object separator - "
                                       "unexpected string literal; expected ':'");
    }
    CHECK(parseFailure("", "project.json") == "t.json line 1, column 1: malformed JSON: syntax error while "
                                              "parsing value - unexpected end of input; "
                                              "expected '[', '{', or a literal");
    CHECK(parseFailure("{\"stagecraft\": 1,}", "project.json") ==
          "t.json line 1, column 18: malformed JSON: syntax error while parsing object key - unexpected '}'; "
          "expected string literal");
    CHECK(parseFailure(withVersion(R"(, "costs": {"f": 1e400})"), "project.json") ==
          "t.json line 1, column 38: malformed JSON: number overflow parsing '1e400'");
    CHECK(parseFailure(withVersion(R"(, "model": {"layers": 3}, "model": {})"), "project.json") ==
          "t.json: duplicate key \"model\"");
    CHECK(parseFailure(withVersion(R"(, "costs": {"stages": [{"stage": 0}, {"f": 1, "f": 2}]})"),
                       "project.json") == "t.json: duplicate key \"costs.stages[1].f\"");
    CHECK(parseFailure(std::string(40, '[') + std::string(40, ']'), "project.json") ==
          "t.json: malformed project: nested deeper than 32 levels");
    CHECK(parseFailure(std::string(kMaxProjectBytes + 1, ' '), "project.json") ==
          "t.json: the text has 4194305 bytes; a project is at most 4194304");
}

TEST_CASE("The format version is checked first", "[project]") {
    CHECK(parseFailure(R"({"name": "x"})", "project.version") ==
          "t.json: missing key \"stagecraft\" (the format version): a Stagecraft project starts with "
          "{\"stagecraft\": 2, ...}");
    CHECK(parseFailure(R"({"stagecraft": 3, "future_key": true})", "project.version") ==
          "t.json: written by a newer Stagecraft (format 3); this build reads formats 1..2");
    CHECK(parseFailure(R"({"stagecraft": 0})", "project.version") ==
          "t.json: unknown format 0; this build reads formats 1..2");
    CHECK(parseFailure(R"({"stagecraft": -5})", "project.version") ==
          "t.json: unknown format -5; this build reads formats 1..2");
    CHECK(parseFailure(R"({"stagecraft": "1"})", "project.type") ==
          "t.json: stagecraft = \"1\": the format version must be an integer");
    CHECK(parseFailure("[1, 2]", "project.type") ==
          "t.json: the top level must be an object {\"stagecraft\": 2, ...}, not [1,2]");
}

TEST_CASE("Wrong types name the JSON path and the value", "[project]") {
    CHECK(parseFailure(withVersion(R"(, "model": {"layers": "abc"})"), "project.type") ==
          "t.json: model.layers = \"abc\": must be an integer");
    CHECK(parseFailure(withVersion(R"(, "model": {"layers": 24.5})"), "project.type") ==
          "t.json: model.layers = 24.5: must be an integer");
    CHECK(parseFailure(withVersion(R"(, "cluster": {"peak_tflops": null})"), "project.type") ==
          "t.json: cluster.peak_tflops = null: must be a number");
    CHECK(parseFailure(withVersion(R"(, "model": {"dtype": 3})"), "project.type") ==
          "t.json: model.dtype = 3: must be one of fp16, bf16, fp32");
    CHECK(parseFailure(withVersion(R"(, "name": ["a"])"), "project.type") ==
          "t.json: name = [\"a\"]: must be a string");
    CHECK(parseFailure(withVersion(R"(, "schedules": ["1f1b", 7])"), "project.type") ==
          "t.json: schedules[1] = 7: must be a string");
    CHECK(parseFailure(withVersion(R"(, "schedules": "1f1b")"), "project.type") ==
          "t.json: schedules = \"1f1b\": must be a list of names [\"1f1b\", ...]");
    CHECK(parseFailure(withVersion(R"(, "model": 5)"), "project.type") ==
          "t.json: model = 5: must be an object {...}");
    CHECK(parseFailure(withVersion(R"(, "costs": {"stages": [{"stage": "0", "f": 1, "b": 1, "w": 1}]})"),
                       "project.type") == "t.json: costs.stages[0].stage = \"0\": must be an integer");
    CHECK(parseFailure(withVersion(R"(, "costs": {"stages": [5]})"), "project.type") ==
          "t.json: costs.stages[0] = 5: must be an object {\"stage\", \"f\", \"b\", \"w\"}");
}

TEST_CASE("Unknown and missing keys are refused with the valid ones", "[project]") {
    CHECK(parseFailure(withVersion(R"(, "model": {"layer": 24})"), "project.key") ==
          "t.json: unknown key \"model.layer\"; valid keys of model: layers, hidden, heads, seq_len, vocab, "
          "micro_batch_size, dtype, attention");
    CHECK(parseFailure(withVersion(R"(, "modle": {})"), "project.key") ==
          "t.json: unknown key \"modle\"; valid keys: stagecraft, name, schedules, model, cluster, parallel, "
          "memory, costs, runtime_fit");
    CHECK(parseFailure(withVersion(R"(, "costs": {"stages": [{"stage": 0, "f": 1, "b": 1, "W": 1}]})"),
                       "project.key") ==
          "t.json: unknown key \"costs.stages[0].W\"; valid keys: stage, f, b, w");
    CHECK(parseFailure(withVersion(R"(, "costs": {"stages": [{"stage": 0, "f": 1, "b": 1}]})"),
                       "project.key") ==
          "t.json: costs.stages[0]: missing key \"w\"; each entry needs stage, f, b, w");
}

TEST_CASE("Values outside a field's range are refused while reading", "[project]") {
    CHECK(parseFailure(withVersion(R"(, "parallel": {"pp": 1000000000})"), "project.range") ==
          "t.json: parallel.pp = 1000000000: must be in 1..4096");
    CHECK(parseFailure(withVersion(R"(, "parallel": {"microbatches": 10000000000})"), "project.range") ==
          "t.json: parallel.microbatches = 10000000000: must be in 1..1048576");
    CHECK(parseFailure(withVersion(R"(, "parallel": {"pp": -3000000000})"), "project.range") ==
          "t.json: parallel.pp = -3000000000: must be in 1..4096");
    CHECK(parseFailure(withVersion(R"(, "parallel": {"chunks": 65})"), "project.range") ==
          "t.json: parallel.chunks = 65: must be in 1..64");
    CHECK(parseFailure(withVersion(R"(, "costs": {"efficiency": 1.5})"), "project.range") ==
          "t.json: costs.efficiency = 1.5: must be > 0 and <= 1");
    CHECK(parseFailure(withVersion(R"(, "memory": {"recompute": "some"})"), "project.range") ==
          "t.json: memory.recompute = \"some\": must be one of none, selective, full");
    CHECK(parseFailure(withVersion(R"(, "costs": {"stages": [{"stage": 0, "f": -1, "b": 1, "w": 1}]})"),
                       "project.range") == "t.json: costs.stages[0].f = -1: must be in 0..1000000000 µs");
}

TEST_CASE("Overrides with --set change one field", "[project]") {
    Project p;
    setProjectField(p, "parallel.pp", "8");
    setProjectField(p, "cluster.peak_tflops", " 989.5 ");
    setProjectField(p, "model.dtype", "fp32");
    setProjectField(p, "name", "GPT 3 on 64 GPUs");
    setProjectField(p, "schedules", "1f1b, zb-v");
    setProjectField(p, "costs.stages", "0:1200:1100:600,3:900.5:900:450");
    applyProjectOverride(p, "memory.recompute=full");
    applyProjectOverride(p, "cluster.gpu=H100=SXM"); // only the first '=' splits
    CHECK(p.parallel.pp == 8);
    CHECK(p.cluster.peakTflops == 989.5);
    CHECK(p.model.dtype == DType::FP32);
    CHECK(p.name == "GPT 3 on 64 GPUs");
    CHECK(p.schedules == std::vector<std::string>{"1f1b", "zb-v"});
    CHECK(p.costs.stages == std::vector<StageCostOverride>{{0, 1200, 1100, 600}, {3, 900.5, 900, 450}});
    CHECK(p.memory.recompute == Recompute::Full);
    CHECK(p.cluster.gpu == "H100=SXM");
    setProjectField(p, "schedules", "");
    setProjectField(p, "costs.stages", "");
    CHECK(p.schedules.empty());
    CHECK(p.costs.stages.empty());
}

TEST_CASE("Errors of --set name the path, the value and the rule", "[project]") {
    const auto failure = [](std::string_view path, std::string_view value, const std::string& id) {
        Project p;
        try {
            setProjectField(p, path, value);
        } catch (const ValidationError& e) {
            CHECK(e.id() == id);
            CHECK(p == Project{}); // nothing changed
            return e.message();
        }
        FAIL("accepted " << path << "=" << value);
        return std::string();
    };
    CHECK(failure("model.layer", "24", "project.key") ==
          "unknown field \"model.layer\"; fields of model: model.layers, model.hidden, model.heads, "
          "model.seq_len, "
          "model.vocab, model.micro_batch_size, model.dtype, model.attention");
    CHECK(failure("modle.layers", "24", "project.key") ==
          "unknown field \"modle.layers\"; top-level fields: name, schedules; sections: model, cluster, "
          "parallel, "
          "memory, costs (set section.field)");
    CHECK(failure("parallel", "4", "project.key") ==
          "parallel is a section; set one of its fields: parallel.pp, parallel.dp, parallel.tp, "
          "parallel.microbatches, parallel.chunks, parallel.slices, parallel.slice_split");
    CHECK(failure("stagecraft", "2", "project.key") ==
          "stagecraft is the file's format version and cannot be set");
    CHECK(failure("model.layers", "abc", "project.type") == "model.layers = \"abc\": must be an integer");
    CHECK(failure("model.layers", "24.5", "project.type") == "model.layers = \"24.5\": must be an integer");
    CHECK(failure("model.layers", "0", "project.field") == "model.layers = 0: must be in 1..16384");
    CHECK(failure("parallel.pp", "99999999999", "project.field") ==
          "parallel.pp = 99999999999: must be in 1..4096");
    CHECK(failure("costs.f", "1e400", "project.type") == "costs.f = \"1e400\": must be a finite number");
    CHECK(failure("costs.f", "nan", "project.field") == "costs.f = nan: must be a finite number");
    CHECK(failure("costs.f", "0", "project.field") == "costs.f = 0: must be > 0 and <= 1000000000 µs");
    CHECK(failure("model.dtype", "fp8", "project.field") ==
          "model.dtype = \"fp8\": must be one of fp16, bf16, fp32");
    CHECK(failure("schedules", "1f1b,,zb-v", "project.field") == "schedules[1] = \"\": must not be empty");
    CHECK(failure("costs.stages", "0:1:2", "project.type") ==
          "costs.stages = \"0:1:2\": each entry must be stage:f:b:w with times in µs "
          "(0:1200:1100:600,3:900:900:450)");
    CHECK(failure("name", std::string_view("\xff", 1), "project.type") ==
          "name = \"\\xff\": must be UTF-8 text");

    Project p;
    try {
        applyProjectOverride(p, "parallel.pp");
        FAIL("no throw");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "project.set");
        CHECK(e.message() == "--set expects path=value (e.g. parallel.pp=8), got \"parallel.pp\"");
    }
}

TEST_CASE("Costs per range of layers are read, written and set with their rules", "[project]") {
    const Project p = parseProject(
        withVersion(R"(, "model": {"layers": 8}, "cluster": {}, "parallel": {}, "memory": {},)"
                    R"( "costs": {"layers": [{"first": 0, "last": 3, "f": 10, "b": 8, "w": 6},)"
                    R"( {"first": 4, "last": 7, "f": 12, "b": 9, "w": 7}], "note": "measured"})"),
        "t.json");
    CHECK(p.costs.layers == std::vector<LayerRangeCost>{{0, 3, 10, 8, 6}, {4, 7, 12, 9, 7}});
    CHECK(p.costs.note == "measured");
    CHECK(projectToJson(p).find("\"layers\": [\n      {\n        \"first\": 0,") != std::string::npos);
    // Left out of the file while empty, as a file of before them was written.
    CHECK(projectToJson(Project{}).find("\"layers\": [") == std::string::npos);
    CHECK(projectToJson(Project{}).find("\"note\"") == std::string::npos);

    CHECK(parseFailure(withVersion(R"(, "costs": {"layers": [{"first": 0, "last": 3, "f": 1, "b": 1}]})"),
                       "project.key") ==
          "t.json: costs.layers[0]: missing key \"w\"; each entry needs first, last, f, b, w");
    CHECK(parseFailure(withVersion(R"(, "costs": {"layers": [{"first": 0, "last": 3, "f": 1, "b": 1, "w": 1,)"
                                   R"( "stage": 0}]})"),
                       "project.key") ==
          "t.json: unknown key \"costs.layers[0].stage\"; valid keys: first, last, f, b, w");
    CHECK(parseFailure(withVersion(R"(, "costs": {"layers": {"first": 0}})"), "project.type") ==
          "t.json: costs.layers = {\"first\":0}: must be a list of {\"first\": 0, \"last\": ..., \"f\": ..., "
          "\"b\": ..., \"w\": ...}");
    CHECK(parseFailure(
              withVersion(R"(, "costs": {"layers": [{"first": 4, "last": 3, "f": 1, "b": 1, "w": 1}]})"),
              "project.range") ==
          "t.json: costs.layers[0].last = 3: must be >= first = 4 (a range holds layers first..last)");
    CHECK(parseFailure(
              withVersion(R"(, "costs": {"layers": [{"first": 0, "last": 3, "f": 0, "b": 1, "w": 1}]})"),
              "project.range") == "t.json: costs.layers[0].f = 0: must be > 0 and <= 1000000000 µs");
    CHECK(parseFailure(
              withVersion(R"(, "costs": {"layers": [{"first": 0, "last": 3, "f": 1, "b": 1, "w": -2}]})"),
              "project.range") == "t.json: costs.layers[0].w = -2: must be in 0..1000000000 µs");

    Project set;
    setProjectField(set, "costs.layers", "0-11:3000:2900:2800, 12-23:3100:3000:2900");
    CHECK(set.costs.layers ==
          std::vector<LayerRangeCost>{{0, 11, 3000, 2900, 2800}, {12, 23, 3100, 3000, 2900}});
    CHECK(formatFieldValue(findProjectField("costs.layers")->get(set)) ==
          "0-11:3000:2900:2800,12-23:3100:3000:2900");
    try {
        setProjectField(set, "costs.layers", "0:3000:2900:2800");
        FAIL("a layer range without its last layer was accepted");
    } catch (const ValidationError& e) {
        CHECK(e.message() ==
              "costs.layers = \"0:3000:2900:2800\": each entry must be first-last:f:b:w, layers "
              "0-based and inclusive, times in µs (0-11:3000:2900:2800,12-23:3100:3000:2900)");
    }
}

TEST_CASE("Format 1's per-stage calibration is read as costs per range of layers", "[project]") {
    // As calibrate wrote it from a trace whose backward was whole: 4 stages of interleaved on 2
    // devices, w = 0, and their sums per full stage.
    const std::string v1 = R"({"stagecraft": 1, "name": "calibrated", "model": {"layers": 30}, "cluster": {},
      "parallel": {"pp": 2, "microbatches": 4}, "memory": {},
      "costs": {"mode": "manual", "f": 20, "b": 30, "w": 0,
                "stages": [{"stage": 0, "f": 25, "b": 34, "w": 0}, {"stage": 1, "f": 15, "b": 26, "w": 0}],
                "chunk_stages": [{"stage": 0, "f": 10, "b": 14, "w": 0}, {"stage": 1, "f": 15, "b": 20, "w": 0},
                                 {"stage": 3, "f": 7, "b": 12, "w": 0}, {"stage": 2, "f": 8, "b": 14, "w": 0}]}})";
    const Project p = parseProject(v1, "v1.json");
    CHECK(p.version == kProjectFormatVersion);
    // 30 layers in 4 stages: 7, 8, 8, 7 (one fewer on the ends); the whole backward split in halves.
    CHECK(p.costs.layers == std::vector<LayerRangeCost>{
                                {0, 6, 10, 7, 7}, {7, 14, 15, 10, 10}, {15, 22, 8, 7, 7}, {23, 29, 7, 6, 6}});
    CHECK(p.costs.stages.empty());
    CHECK(p.costs.note == "converted from format 1's costs.chunk_stages (4 stages); the backward was timed "
                          "whole (no I/W split): B = 50% and W = 50% of it");
    // Written back as format 2, it reads as the same project.
    const std::string v2 = projectToJson(p);
    CHECK(v2.starts_with("{\n  \"stagecraft\": 2,"));
    CHECK(v2.find("\"chunk_stages\":") == std::string::npos);
    CHECK(parseProject(v2, "v2.json") == p);

    // A split backward keeps its W; only a list naming every stage once converts.
    const std::string split =
        R"({"stagecraft": 1, "model": {"layers": 4}, "cluster": {}, "parallel": {}, "memory": {},
      "costs": {"chunk_stages": [{"stage": 1, "f": 2, "b": 1, "w": 1}, {"stage": 0, "f": 3, "b": 2, "w": 1}]}})";
    CHECK(parseProject(split, "s.json").costs.layers ==
          std::vector<LayerRangeCost>{{0, 1, 3, 2, 1}, {2, 3, 2, 1, 1}});
    CHECK(
        parseFailure(R"({"stagecraft": 1, "model": {}, "cluster": {}, "parallel": {}, "memory": {},
      "costs": {"chunk_stages": [{"stage": 3, "f": 2, "b": 1, "w": 1}]}})",
                     "project.field") ==
        "t.json: costs.chunk_stages[0].stage = 3: format 1's per-stage costs convert only as calibrate wrote "
        "them, one entry for each stage 0..0; write the costs per range of layers as costs.layers instead "
        "(docs/project-format.md), or calibrate again");
    CHECK(
        parseFailure(R"({"stagecraft": 1, "model": {"layers": 5}, "cluster": {}, "parallel": {}, "memory": {},
      "costs": {"chunk_stages": [{"stage": 0, "f": 2, "b": 1, "w": 1}, {"stage": 1, "f": 2, "b": 1, "w": 1}]}})",
                     "project.field")
            .starts_with(
                "t.json: costs.chunk_stages gives 2 stages, and model.layers = 5: its schedule has 2 "
                "stages per pipe"));
    // Format 2 has no such key.
    CHECK(parseFailure(withVersion(R"(, "costs": {"chunk_stages": []})"), "project.key")
              .starts_with("t.json: unknown key \"costs.chunk_stages\"; valid keys of costs:"));
}
