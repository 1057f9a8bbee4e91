// Posts that stall (eval/post_stalls.h): counted by hand on made-up iterations, and on the
// recorded torch runs, where gloo's I/O thread makes a post near the peer's post on the same pair
// stall far more often than any other (docs/fidelity.md).
#include "eval/post_stalls.h"
#include "eval/runtime_fit.h"
#include "torch_runs.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

using namespace stagecraft;

namespace {

/// One iteration of two ranks posting to each other: ten receives and ten sends each, 50 and
/// 100 µs, every millisecond, rank 0's at 0 and 300 µs, rank 1's at 600 and 700 µs, except rank
/// 1's third send, which begins 30 µs after rank 0's third receive (a near pair).
std::vector<PostRecord> iteration() {
    std::vector<PostRecord> posts;
    for (int i = 0; i < 10; ++i) {
        const double t = 1000.0 * i;
        posts.push_back({0, 1, false, t, 50});
        posts.push_back({0, 1, true, t + 300, 100});
        posts.push_back({1, 0, false, t + 600, 50});
        posts.push_back({1, 0, true, i == 2 ? t + 30 : t + 700, 100});
    }
    return posts;
}

} // namespace

TEST_CASE("a post over ten times its kind's median stalled, counted near the peer's post or not",
          "[post_stalls]") {
    std::vector<std::vector<PostRecord>> run{iteration(), iteration()};
    // The near pair's receive stalls in the first iteration, a far send in the second; a send of
    // 900 µs is nine times its median, not a stall.
    run[0][8].duration = 3050;
    run[1][1].duration = 2100;
    run[1][5].duration = 900;
    const PostStallCount c = countPostStalls(run);
    CHECK(c.iterations == 2);
    CHECK(c.window == Approx(200)); // twice the sends' median
    CHECK(c.nearPosts == 4);        // both posts of the pair, in both iterations
    CHECK(c.nearStalls == 1);
    CHECK(c.otherPosts == 76);
    CHECK(c.otherStalls == 1);
    CHECK(c.stalls() == 2);
    CHECK(c.stalledUs == Approx((3050 - 50) + (2100 - 100)));
    const std::string note = postStallNote(c);
    CHECK(note.find("2 posts stalled") != std::string::npos);
    CHECK(note.find("1 an iteration") != std::string::npos);
    CHECK(note.find("25.0 % of the posts that began within 200 µs") != std::string::npos);
    CHECK(note.find("1.3 % of the others") != std::string::npos);
    // One stall near the peer's post is not yet a pattern.
    CHECK(note.find("gloo's I/O thread") == std::string::npos);
}

TEST_CASE("posts whose peer is not known are never near, and a run without stalls has no note",
          "[post_stalls]") {
    std::vector<PostRecord> posts = iteration();
    for (PostRecord& p : posts) p.peer = -1;
    const PostStallCount c = countPostStalls({posts});
    CHECK(c.nearPosts == 0);
    CHECK(c.otherPosts == posts.size());
    CHECK(c.stalls() == 0);
    CHECK(postStallNote(c).empty());
    CHECK(postStallNote(countPostStalls({})).empty());
}

TEST_CASE("in the recorded torch runs, posts near the peer's post stall far more often",
          "[post_stalls][torch_runs]") {
    // Two ranks, one core each: the I/O thread shares the core its rank's post holds.
    const auto files = test::torchRunFiles("pp2_h512", "Interleaved1F1B");
    REQUIRE(std::filesystem::exists(files.front()));
    const RuntimeFit fit = fitRuntime(readTorchRun(files), "Interleaved1F1B");
    const PostStallCount& c = fit.postStalls;
    CHECK(c.iterations == std::size_t(fit.iterations));
    CHECK(c.nearStalls >= 40);
    const double nearRate = double(c.nearStalls) / double(c.nearPosts);
    const double otherRate = double(c.otherStalls) / double(c.otherPosts);
    CHECK(nearRate > 0.05);
    CHECK(nearRate > 30 * otherRate);
    bool noted = false;
    for (const std::string& n : fit.notes) noted = noted || n.find("gloo's I/O thread") != std::string::npos;
    CHECK(noted);
    // Four ranks on two cores: posts stall either way, waiting for a processor.
    const RuntimeFit four =
        fitRuntime(readTorchRun(test::torchRunFiles("pp4_h512", "LoopedBFS")), "LoopedBFS");
    const PostStallCount& f = four.postStalls;
    const double fourNear = double(f.nearStalls) / double(f.nearPosts);
    const double fourOther = double(f.otherStalls) / double(f.otherPosts);
    CHECK(fourOther > 0.1);
    CHECK(fourNear < 2 * fourOther);
}
