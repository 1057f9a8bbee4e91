// Runs every fuzz harness over its seed corpus and over deterministic mutations of each seed
// (byte flips, truncations, insertions of structural characters), so that CI exercises the
// harnesses with any compiler. Coverage-guided fuzzing runs with clang and STAGECRAFT_FUZZ=ON.
#include "fuzz_entry.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

namespace {

std::vector<std::string> seeds(const std::string& name) {
    std::vector<std::string> out;
    const auto dir = std::filesystem::path(STAGECRAFT_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / name;
    if (!std::filesystem::is_directory(dir)) return out;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        std::ifstream in(entry.path(), std::ios::binary);
        std::stringstream buffer;
        buffer << in.rdbuf();
        out.push_back(buffer.str());
    }
    return out;
}

std::string mutate(const std::string& seed, std::mt19937& rng) {
    static const std::string structural = ",;()\n\"{}[]:-0123456789FBIWe.";
    std::string s = seed;
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
        const std::size_t at = s.empty() ? 0 : rng() % (s.size() + 1);
        switch (rng() % 4) {
        case 0:
            if (at < s.size()) s[at] = char(rng() % 256);
            break;
        case 1:
            s.insert(s.begin() + std::ptrdiff_t(at), structural[rng() % structural.size()]);
            break;
        case 2:
            if (at < s.size()) s.erase(at, 1 + rng() % 8);
            break;
        case 3:
            s.resize(at);
            break;
        }
    }
    return s;
}

} // namespace

TEST_CASE("Fuzz harnesses survive their corpus and its mutations", "[fuzz]") {
    const auto& targets = stagecraft::fuzz::registry();
    REQUIRE_FALSE(targets.empty());
    for (const auto& [name, harness] : targets) {
        INFO("harness " << name);
        const auto corpus = seeds(name);
        CHECK_FALSE(corpus.empty());
        std::mt19937 rng(12345);
        for (const auto& seed : corpus) {
            harness(reinterpret_cast<const std::uint8_t*>(seed.data()), seed.size());
            for (int i = 0; i < 500; ++i) {
                const std::string input = mutate(seed, rng);
                harness(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
            }
        }
    }
}
