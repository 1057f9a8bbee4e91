#pragma once
// Runs stagecraft-cli as a user does, for the CLI tests: the command line, its exit status and
// what it printed (stdout and stderr together).

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace stagecraft::test {

struct Run {
    int status;
    std::string out; // stdout and stderr together
};

/// `stagecraft-cli ARGS` through the shell; status -1 when it did not exit normally.
inline Run cli(const std::string& args) {
    const std::string command = std::string(STAGECRAFT_CLI) + " " + args + " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string out;
    std::array<char, 4096> buffer{};
    while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
        out.append(buffer.data(), n);
    const int raw = ::pclose(pipe);
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

} // namespace stagecraft::test
