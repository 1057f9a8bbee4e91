// The error-id table is the one place programs learn what an error means: every id the sources
// throw must be in it, docs/errors.md must list exactly its ids, and the class decides the exit
// status (no string comparisons in the shells).
#include "error_ids.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

using namespace stagecraft;
namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

// Ids passed to an error constructor, to a reader's fail helper, or to a validator Problem, where
// the literal is the first argument (possibly on the next line).
std::set<std::string> idsThrownIn(const fs::path& root) {
    static const std::regex kThrow(
        R"re((?:\b(?:Error|ParseError|ValidationError|fail|Problem)\s*[({]\s*|\bid\s*=\s*)"([a-z_]+\.[a-z_.]+)")re");
    std::set<std::string> ids;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        const auto ext = entry.path().extension();
        if (ext != ".cpp" && ext != ".h") continue;
        const std::string text = slurp(entry.path());
        for (auto it = std::sregex_iterator(text.begin(), text.end(), kThrow); it != std::sregex_iterator();
             ++it)
            ids.insert((*it)[1].str());
    }
    return ids;
}

} // namespace

TEST_CASE("every error id the sources throw is in the table", "[error_ids]") {
    const fs::path source = STAGECRAFT_SOURCE_DIR;
    std::set<std::string> thrown = idsThrownIn(source / "core");
    for (const auto& id : idsThrownIn(source / "app")) thrown.insert(id);
    for (const auto& id : idsThrownIn(source / "gpu_runtime")) thrown.insert(id);
    for (const auto& id : idsThrownIn(source / "python")) thrown.insert(id);
    REQUIRE(thrown.size() > 40); // the scan found the sources
    for (const std::string& id : thrown) {
        INFO(id);
        CHECK(findErrorId(id) != nullptr);
    }
}

TEST_CASE("docs/errors.md lists exactly the table's ids", "[error_ids]") {
    const std::string doc = slurp(fs::path(STAGECRAFT_SOURCE_DIR) / "docs" / "errors.md");
    static const std::regex kRow(R"(^\| `([a-z_]+\.[a-z_.]+)` \|)", std::regex::multiline);
    std::set<std::string> documented;
    for (auto it = std::sregex_iterator(doc.begin(), doc.end(), kRow); it != std::sregex_iterator(); ++it)
        documented.insert((*it)[1].str());
    std::set<std::string> table;
    for (const ErrorIdInfo& info : errorIds()) table.insert(std::string(info.id));
    CHECK(documented == table);
}

TEST_CASE("error classes decide input against failure", "[error_ids]") {
    CHECK(errorClassOf(Error("io.read", "x")) == ErrorClass::Input);
    CHECK(errorClassOf(Error("io.write", "x")) == ErrorClass::Failure);
    CHECK(errorClassOf(Error("no.such_id", "x")) == ErrorClass::Failure);
    // Parse and validation errors are always the input's fault, whatever their id.
    CHECK(errorClassOf(ParseError("trace.write", "f", 1, 1, "x")) == ErrorClass::Input);
    CHECK(errorClassOf(ValidationError("export.render", "f", "x")) == ErrorClass::Input);
    CHECK(findErrorId("project.field")->errorClass == ErrorClass::Input);
    CHECK(findErrorId("zzz") == nullptr);
}
