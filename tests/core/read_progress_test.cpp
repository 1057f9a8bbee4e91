// The read progress of a thread: a trace read from a file reports its blocks up to the file's
// size, a callback that says stop cancels the read, and nothing is reported without one.
#include "error.h"
#include "generators/registry.h"
#include "io/chrome_trace.h"
#include "io/read_progress.h"
#include "sim/simulator.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <unistd.h>

using namespace stagecraft;

TEST_CASE("A trace read from a file reports its blocks to the thread's progress", "[io][progress]") {
    const Schedule s = generateSchedule("1f1b", ScheduleParams{4, 2048, 1});
    const Timeline t = simulate(s, fullStageCosts(s, 1, 2, 0, 0.5));
    const auto path = std::filesystem::temp_directory_path() /
                      ("stagecraft_read_progress_" + std::to_string(::getpid()) + ".json");
    writeChromeTrace(t, path);
    const std::uint64_t size = std::filesystem::file_size(path);
    REQUIRE(size > (std::uint64_t(1) << 20)); // more than one block

    std::uint64_t last = 0, reports = 0;
    {
        const ReadProgress progress([&](std::uint64_t read, std::uint64_t total) {
            CHECK(total == size);
            CHECK(read > last);
            last = read;
            ++reports;
            return true;
        });
        CHECK(readChromeTrace(path).events.size() == t.events.size());
    }
    CHECK(reports > 1);
    CHECK(last == size);

    {
        const ReadProgress stop([](std::uint64_t, std::uint64_t) { return false; });
        CHECK_THROWS_WITH(readChromeTrace(path), Catch::Contains("[work.cancelled]"));
    }
    // Uninstalled: the read runs as before.
    CHECK(readChromeTrace(path).events.size() == t.events.size());
    std::filesystem::remove(path);
}
