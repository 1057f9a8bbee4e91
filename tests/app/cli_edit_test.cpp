// stagecraft-cli edit: the acceptance path of issue 24 through the command line (the sample edit
// list turns 1F1B into ZB-H1's order at 27 units, written as torch's CSV), the same edits given
// as flags and saved as a list that replays to the same file, and broken edits named with exit 2.
#include "cli_run.h"
#include "file_io.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>

namespace {

using stagecraft::test::cli;
using stagecraft::test::Run;

const std::string kSource = STAGECRAFT_SOURCE_DIR;
const std::string kList = kSource + "/samples/edits/1f1b-to-zb-h1.edits.json";

struct TempDir {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("stagecraft-edit-test-" + std::to_string(::getpid()));
    TempDir() { std::filesystem::create_directories(path); }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::string operator/(const std::string& name) const { return (path / name).string(); }
};

} // namespace

TEST_CASE("edit replays the sample list from 1F1B to ZB-H1's order and 27 units", "[cli][edit]") {
    const TempDir dir;
    const Run edited = cli("edit --edits " + kList + " -o " + (dir / "edited.csv"));
    INFO(edited.out);
    REQUIRE(edited.status == 0);
    CHECK_THAT(edited.out, Catch::Contains("1f1b: makespan 33 units"));
    CHECK_THAT(edited.out, Catch::Contains("  1. split all: makespan 33 -> 30 (-3)"));
    CHECK_THAT(edited.out, Catch::Contains("1f1b after 25 edit(s): makespan 33 -> 27 (-6)"));
    const Run generated =
        cli("generate -s zb-h1 --set parallel.pp=4 --set parallel.microbatches=8 -o " + (dir / "zb-h1.csv"));
    REQUIRE(generated.status == 0);
    CHECK(stagecraft::readTextFile(dir / "edited.csv") == stagecraft::readTextFile(dir / "zb-h1.csv"));
    // The CSV is a schedule every command reads.
    const Run valid = cli("validate " + (dir / "edited.csv"));
    CHECK(valid.status == 0);
}

TEST_CASE("edit flags apply in order and save a list that replays to the same schedule", "[cli][edit]") {
    const TempDir dir;
    const Run flags =
        cli("edit -s zb-h1 --set parallel.pp=4 --set parallel.microbatches=8 --unit --shift 3W7:-1 "
            "-e 'swap 3W6 3W7' --move 3W7:after:3I7 --merge 3B7 --split 3B7 -o " +
            (dir / "a.json") + " --save-edits " + (dir / "list.json"));
    INFO(flags.out);
    REQUIRE(flags.status == 0);
    CHECK_THAT(flags.out, Catch::Contains("  1. shift 3W7 -1:"));
    CHECK_THAT(flags.out, Catch::Contains("  2. swap 3W6 3W7:"));
    CHECK_THAT(flags.out, Catch::Contains("  3. move 3W7 after 3I7:"));
    CHECK_THAT(flags.out, Catch::Contains("  4. merge 3B7:"));
    CHECK_THAT(flags.out, Catch::Contains("  5. split 3B7:"));
    const Run replay = cli("edit --edits " + (dir / "list.json") + " -o " + (dir / "b.json"));
    INFO(replay.out);
    REQUIRE(replay.status == 0);
    CHECK(stagecraft::readTextFile(dir / "a.json") == stagecraft::readTextFile(dir / "b.json"));
}

TEST_CASE("edit names the ring of a deadlock and a broken dependency, exit 2", "[cli][edit]") {
    const Run ring =
        cli("edit -s 1f1b --set parallel.pp=4 --set parallel.microbatches=8 --move 0B0:before:0F2");
    CHECK(ring.status == 2);
    CHECK_THAT(ring.out,
               Catch::Contains("edit 1 (move 0B0 before 0F2) breaks the schedule: deadlock: devices wait "
                               "on each other in a ring: device 0 waits at position 2 (0B0) for 1B0 at "
                               "position 3 of device 1; device 1 waits at position 2 (1F2) for 0F2 at "
                               "position 3 of device 0"));
    const Run dependency =
        cli("edit -s zb-h1 --set parallel.pp=4 --set parallel.microbatches=8 --move 1W3:before:1I3");
    CHECK(dependency.status == 2);
    CHECK_THAT(dependency.out,
               Catch::Contains("1W3 runs before its dependency 1I3 at position 12 of the same device"));
    const Run syntax = cli("edit -s 1f1b --move 1W3:beside:1F5");
    CHECK(syntax.status == 2);
    CHECK_THAT(syntax.out, Catch::Contains("'beside': a move goes 'after', 'before' or 'to'"));
}

TEST_CASE("edit --fill-bubbles lists the W moves it makes and saves them", "[cli][edit]") {
    const TempDir dir;
    // 1F1B split with device 3's W at the end of its order: its cool-down is idle again.
    std::string moves;
    for (int mb = 0; mb < 8; ++mb) moves += " --move 3W" + std::to_string(mb) + ":to:23";
    const Run run =
        cli("edit -s 1f1b --set parallel.pp=4 --set parallel.microbatches=8 --split all" + moves +
            " --fill-bubbles --compact --save-edits " + (dir / "list.json") + " -o " + (dir / "a.csv"));
    INFO(run.out);
    REQUIRE(run.status == 0);
    CHECK_THAT(run.out, Catch::Contains("fill bubbles: "));
    CHECK_THAT(run.out, Catch::Contains("compact: "));
    CHECK_THAT(run.out, Catch::Contains(". move 3W"));
    const Run replay = cli("edit --edits " + (dir / "list.json") + " -o " + (dir / "b.csv"));
    REQUIRE(replay.status == 0);
    CHECK(stagecraft::readTextFile(dir / "a.csv") == stagecraft::readTextFile(dir / "b.csv"));
}

TEST_CASE("edit --repair lists the moves that mend a broken order, and the result replays", "[cli][edit]") {
    const TempDir dir;
    const Run run =
        cli("edit -s 1f1b --set parallel.pp=4 --set parallel.microbatches=8 --move 0B0:before:0F2 "
            "--repair --save-edits " +
            (dir / "list.json") + " -o " + (dir / "a.csv"));
    INFO(run.out);
    REQUIRE(run.status == 0);
    CHECK_THAT(run.out,
               Catch::Contains("  1. move 0B0 before 0F2: breaks the schedule: deadlock: devices wait"));
    CHECK_THAT(run.out, Catch::Contains(
                            "repair: 1 move(s), the fewest\n  2. move 1B0 before 1F2  (device 0 is stuck at "
                            "position 2: 0B0 waits for 1B0"));
    CHECK_THAT(run.out, Catch::Contains("1f1b after 2 edit(s): makespan 33 -> "));
    const Run valid = cli("validate " + (dir / "a.csv"));
    CHECK(valid.status == 0);
    // The saved list holds the breaking edit and the repair: it replays to the same order.
    const Run replay = cli("edit --edits " + (dir / "list.json") + " --repair -o " + (dir / "b.csv"));
    INFO(replay.out);
    REQUIRE(replay.status == 0);
    CHECK(stagecraft::readTextFile(dir / "a.csv") == stagecraft::readTextFile(dir / "b.csv"));
    // A valid order: repair says so and moves nothing.
    const Run none = cli("edit -s 1f1b --set parallel.pp=4 --set parallel.microbatches=8 --repair");
    CHECK(none.status == 0);
    CHECK_THAT(none.out, Catch::Contains("repair: 0 move(s): the order runs"));
    // Where the greedy needs two moves, the search finds one and says so.
    const Run fewer =
        cli("edit -s 1f1b --set parallel.pp=4 --set parallel.microbatches=8 -e 'move 0B3 to 0' --repair");
    INFO(fewer.out);
    CHECK(fewer.status == 0);
    CHECK_THAT(fewer.out, Catch::Contains("repair: 1 move(s), the fewest (searched; the greedy made 2)\n"
                                          "  2. move 0B3 after 0F7  (0B3 moved after 0F7: this one move"));
}

TEST_CASE("edit moves a micro-batch to the other pipe of Chimera, its eager syncs following", "[cli][edit]") {
    const TempDir dir;
    REQUIRE(cli("generate -s chimera --set parallel.pp=4 --set parallel.microbatches=8 -o " +
                (dir / "chimera.json"))
                .status == 0);
    // The registered Chimera, gradient syncs and all: micro-batch 7 ends on pipe 0, so pipe 0's
    // syncs move after its last backwards (the file then validates: each sync after its backwards).
    const Run last = cli("edit " + (dir / "chimera.json") + " -e 'pipe 7 to 0' -o " + (dir / "last.json"));
    INFO(last.out);
    REQUIRE(last.status == 0);
    CHECK_THAT(last.out, Catch::Contains("  1. pipe 7 to 0: makespan 30 -> 33 (+3)"));
    REQUIRE(cli("validate " + (dir / "last.json")).status == 0);
    const Run moved = cli("edit " + (dir / "chimera.json") + " -e 'pipe 1 to 1' -o " + (dir / "moved.json") +
                          " --save-edits " + (dir / "list.json"));
    INFO(moved.out);
    REQUIRE(moved.status == 0);
    CHECK_THAT(moved.out, Catch::Contains("  1. pipe 1 to 1: makespan 30 -> 32 (+2)"));
    CHECK_THAT(stagecraft::readTextFile(dir / "moved.json"), Catch::Contains("\"p1:0F1\""));
    CHECK_THAT(stagecraft::readTextFile(dir / "list.json"), Catch::Contains("\"pipe 1 to 1\""));
    // The saved list replays to the same file.
    const Run replay = cli("edit --edits " + (dir / "list.json") + " -o " + (dir / "replayed.json"));
    REQUIRE(replay.status == 0);
    CHECK(stagecraft::readTextFile(dir / "replayed.json") == stagecraft::readTextFile(dir / "moved.json"));
    const Run again = cli("edit " + (dir / "chimera.json") + " -e 'pipe 1 to 0'");
    CHECK(again.status != 0);
    CHECK_THAT(again.out, Catch::Contains("pipe 1 to 0: micro-batch 1 runs on pipe 0 already"));
}

TEST_CASE("edit adds, moves and drops a gradient sync, and names one placed before its backward",
          "[cli][edit]") {
    const TempDir dir;
    const std::string base = "edit -s 1f1b --set parallel.pp=4 --set parallel.microbatches=8 --unit ";
    // An eager sync of stage 3 right after its last backward, then one place later.
    const Run added = cli(base + "-e 'add 3SYNC after 3B7' -e 'shift 3SYNC -1' -o " + (dir / "a.json") +
                          " --save-edits " + (dir / "list.json"));
    INFO(added.out);
    REQUIRE(added.status != 0);
    CHECK_THAT(added.out,
               Catch::Contains("edit 2 (shift 3SYNC -1) breaks the schedule: device 3 position 15: "
                               "3SYNC runs before its dependency 3B7 at position 16 of the same "
                               "device"));
    const Run kept = cli(base + "-e 'add 3SYNC after 3B7' -o " + (dir / "a.json") + " --save-edits " +
                         (dir / "list.json"));
    INFO(kept.out);
    REQUIRE(kept.status == 0);
    CHECK_THAT(kept.out, Catch::Contains("  1. add 3SYNC after 3B7: makespan"));
    CHECK_THAT(stagecraft::readTextFile(dir / "a.json"), Catch::Contains("\"3SYNC\""));
    const Run replay = cli("edit --edits " + (dir / "list.json") + " -e 'drop 3SYNC' -o " + (dir / "b.json"));
    INFO(replay.out);
    REQUIRE(replay.status == 0);
    CHECK_THAT(stagecraft::readTextFile(dir / "b.json"), !Catch::Contains("SYNC"));
    const Run twice = cli(base + "-e 'add 3SYNC after 3B7' -e 'add 3SYNC to 0'");
    CHECK(twice.status != 0);
    CHECK_THAT(twice.out, Catch::Contains("add 3SYNC to 0: device 3 runs it already, at position 16"));
}

TEST_CASE("edit names sequence slices, saves them and refuses an op without its slice", "[cli][edit]") {
    const TempDir dir;
    const std::string shape = "edit -s seq1f1b --set parallel.pp=4 --set parallel.microbatches=4 "
                              "--set parallel.slices=2 --set parallel.chunks=1 --unit ";
    const Run edited = cli(shape + "--split all --move 3W3.1:after:3I3.0 -o " + (dir / "a.json") +
                           " --save-edits " + (dir / "list.json"));
    INFO(edited.out);
    REQUIRE(edited.status == 0);
    // Seq1F1B at unit costs: (m k + p - 1) (F + B) / k = 11 x 3 / 2.
    CHECK_THAT(edited.out, Catch::Contains("seq1f1b: makespan 16.5 units"));
    CHECK_THAT(edited.out, Catch::Contains("  2. move 3W3.1 after 3I3.0:"));
    const nlohmann::json list = nlohmann::json::parse(stagecraft::readTextFile(dir / "list.json"));
    CHECK(list["base"]["params"]["slices"] == 2);
    CHECK(list["edits"][1] == "move 3W3.1 after 3I3.0");
    const Run replayed = cli("edit --edits " + (dir / "list.json") + " -o " + (dir / "b.json"));
    REQUIRE(replayed.status == 0);
    CHECK(stagecraft::readTextFile(dir / "a.json") == stagecraft::readTextFile(dir / "b.json"));
    // The edited file is a sliced schedule the editor opens and edits again.
    const Run again = cli("edit " + (dir / "a.json") + " --unit -e 'shift 3W3.1 -1'");
    CHECK(again.status == 0);

    const Run whole = cli(shape + "--move 3F3:after:3B2.0");
    CHECK(whole.status == 2);
    CHECK_THAT(whole.out, Catch::Contains("'3F3': the schedule cuts each micro-batch into 2 sequence slices, "
                                          "so an edit names one: 3F3.0 .. 3F3.1"));
}
