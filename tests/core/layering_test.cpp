// core/ is layered: a module includes only modules below it (and the base headers at core/'s root:
// error, error ids, size limits, file I/O, numbers as text). An upward include is how a second copy of logic
// starts, so this test reads every source of core/ and refuses one.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

namespace {

// Bottom to top. `eval` is the one entry point front ends call; `text` and `layout` draw;
// `search` evaluates many configurations through `eval`. `edit` (hand edits of an order) checks
// its base with `validate` and re-times with `sim`'s list-scheduling rules and ring finder, and
// knows no file: `io` reads and writes edit list files above it, and front ends reach it directly.
constexpr std::array<const char*, 12> kLayers{"ir",   "generators", "project", "sim",  "validate", "passes",
                                              "edit", "io",         "layout",  "text", "eval",     "search"};

int layerOf(const std::string& module) {
    const auto it = std::find(kLayers.begin(), kLayers.end(), module);
    return it == kLayers.end() ? -1 : int(it - kLayers.begin());
}

} // namespace

TEST_CASE("core/ modules include only modules below them", "[layering]") {
    namespace fs = std::filesystem;
    const fs::path core = fs::path(STAGECRAFT_SOURCE_DIR) / "core";
    const std::regex include(R"re(^\s*#\s*include\s+"([a-z_]+)/[^"]+")re");
    int files = 0;
    for (const auto& entry : fs::recursive_directory_iterator(core)) {
        const auto ext = entry.path().extension();
        if (ext != ".h" && ext != ".cpp") continue;
        const fs::path relative = fs::relative(entry.path(), core);
        if (relative.begin() == relative.end() || std::next(relative.begin()) == relative.end())
            continue; // a base header at core/'s root may be included by every module
        const std::string module = relative.begin()->string();
        INFO(relative.string());
        REQUIRE(layerOf(module) >= 0); // a new module must be placed in kLayers
        std::ifstream in(entry.path());
        std::string line;
        while (std::getline(in, line)) {
            std::smatch match;
            if (!std::regex_search(line, match, include)) continue;
            INFO(line);
            CHECK(layerOf(match[1]) >= 0);
            CHECK(layerOf(match[1]) <= layerOf(module));
        }
        ++files;
    }
    CHECK(files > 50);
}
