// The sample projects in samples/ are read, validated and generated with every schedule they
// list, and they are stored in the writer's canonical form.
#include "file_io.h"
#include "generators/registry.h"
#include "project/project_fields.h"
#include "project/project_json.h"
#include "project/project_validate.h"
#include "validate/validator.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

using namespace stagecraft;

namespace {

const std::filesystem::path kSourceDir = STAGECRAFT_SOURCE_DIR;

std::vector<std::filesystem::path> sampleFiles() {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(kSourceDir / "samples")) {
        const std::string name = entry.path().filename().string();
        if (name.size() > 16 && name.ends_with(".stagecraft.json")) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

TEST_CASE("The paper samples are all there", "[project]") {
    std::vector<std::string> names;
    for (const auto& file : sampleFiles()) names.push_back(file.filename().string());
    CHECK(names == std::vector<std::string>{"bfpp-52b.stagecraft.json", "bfpp-6.6b.stagecraft.json",
                                            "bitpipe-bert.stagecraft.json", "bitpipe-gpt.stagecraft.json",
                                            "zb-1.5b.stagecraft.json", "zb-14.6b.stagecraft.json",
                                            "zb-28.3b.stagecraft.json", "zb-6.2b.stagecraft.json"});
}

TEST_CASE("Every sample round-trips, validates and generates its schedules", "[project]") {
    for (const auto& file : sampleFiles()) {
        INFO("sample " << file.filename().string());
        const Project project = readProject(file);
        CHECK(projectToJson(project) == readTextFile(file)); // stored in canonical form
        CHECK(parseProject(projectToJson(project), "again") == project);
        CHECK(findProjectProblems(project).empty());
        CHECK(project.costs.mode == CostMode::Analytic);
        REQUIRE_FALSE(project.schedules.empty());
        for (const auto& name : project.schedules) {
            INFO("schedule " << name);
            const GeneratorInfo& info = findGenerator(name);
            CHECK_NOTHROW(checkLayersFit(project, info));
            const Schedule schedule = generateSchedule(name, scheduleParams(project));
            CHECK_NOTHROW(validate(schedule));
        }
    }
}

TEST_CASE("The ZB samples carry Table 3 of the zero-bubble paper", "[project]") {
    const Project p = readProject(kSourceDir / "samples" / "zb-6.2b.stagecraft.json");
    CHECK(p.model == ModelConfig{30, 4096, 32, 1024, 50304, 3, DType::FP16});
    CHECK(p.parallel.pp == 8);
    CHECK(p.parallel.microbatches == 32);
    CHECK(p.costs.f == 29802);
    CHECK(p.schedules == std::vector<std::string>{"1f1b", "interleaved", "zb-h1", "zb-h2", "zb-v"});
}

TEST_CASE("The format reference documents every field", "[project]") {
    const std::string doc = readTextFile(kSourceDir / "docs" / "project-format.md");
    for (const auto& field : projectFields()) {
        INFO("field " << field.path);
        CHECK(doc.find("`" + std::string(field.path) + "`") != std::string::npos);
    }
}
