#pragma once
// STAGECRAFT_FUZZ_TARGET(name) { ... data, size ... } defines one fuzz harness. Built with
// STAGECRAFT_LIBFUZZER it is also the libFuzzer entry point; otherwise it registers itself for
// the Catch2 replay test (replay_test.cpp), which runs it over tests/fuzz/corpus/<name>/ and
// deterministic mutations of those seeds. A harness must never crash, hang or leak: parsers
// reject bad input by throwing stagecraft::Error, which the harness catches.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace stagecraft::fuzz {
using Harness = void (*)(const std::uint8_t* data, std::size_t size);
inline std::map<std::string, Harness>& registry() {
    static std::map<std::string, Harness> targets;
    return targets;
}
inline bool registerHarness(const char* name, Harness harness) {
    registry()[name] = harness;
    return true;
}
} // namespace stagecraft::fuzz

#ifdef STAGECRAFT_LIBFUZZER
#define STAGECRAFT_FUZZ_TARGET(name)                                                                    \
    static void stagecraftFuzz_##name(const std::uint8_t* data, std::size_t size);                     \
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {                \
        stagecraftFuzz_##name(data, size);                                                              \
        return 0;                                                                                       \
    }                                                                                                   \
    static void stagecraftFuzz_##name(const std::uint8_t* data, std::size_t size)
#else
#define STAGECRAFT_FUZZ_TARGET(name)                                                                    \
    static void stagecraftFuzz_##name(const std::uint8_t* data, std::size_t size);                     \
    [[maybe_unused]] static const bool stagecraftFuzzRegistered_##name =                               \
        stagecraft::fuzz::registerHarness(#name, stagecraftFuzz_##name);                                \
    static void stagecraftFuzz_##name(const std::uint8_t* data, std::size_t size)
#endif
