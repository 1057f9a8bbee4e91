// The critical path of executed programs walked back from an iteration's end: through a rank's own
// actions, across a transfer to its later post where a rank waited for it, and what each part of
// the way is.
#include "eval/action_critical_path.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

namespace {

using Part = ActionStep::Part;

constexpr double kWaited = 0.05;

} // namespace

TEST_CASE("the critical path crosses to the later post of a transfer its consumer waited for",
          "[critical_path]") {
    // Rank 0 computes 0-10 and posts its send 12-13; rank 1 posts its receive 0-1, then waits
    // inside its compute range (2-16) for the data and computes 16-26.
    const std::vector<std::vector<ActionStep>> ranks{
        {ActionStep{Part::Compute, 0, 0, 10}, ActionStep{Part::Comm, 12, 12, 13}},
        {ActionStep{Part::Comm, 0, 0, 1}, ActionStep{Part::Compute, 2, 16, 26, 0, 1}}};
    const ActionPathParts p = actionCriticalPath(ranks, 0, kWaited);
    CHECK(p.compute == Approx(20));  // rank 1's op, then rank 0's
    CHECK(p.transfers == Approx(3)); // the send's end (13) to the arrival (16)
    CHECK(p.hops == 1);
    CHECK(p.comm == Approx(1)); // the send's post
    CHECK(p.gaps == Approx(2)); // rank 0's framework time between its op and its post
    CHECK(p.waits == 0);
    CHECK(p.total() == Approx(26)); // the parts add up to the makespan

    SECTION("the receive posted later: the path stays on the waiting rank") {
        std::vector<std::vector<ActionStep>> late = ranks;
        late[1][0] = ActionStep{Part::Comm, 13.5, 13.5, 14};
        late[1][1] = ActionStep{Part::Compute, 14.2, 16, 26, 1, 0};
        const ActionPathParts q = actionCriticalPath(late, 0, kWaited);
        CHECK(q.hops == 1);
        CHECK(q.transfers == Approx(2)); // from its own receive's post (14) to the arrival
        CHECK(q.comm == Approx(0.5));
        CHECK(q.gaps == Approx(13.5)); // nothing of rank 1 before its post
        CHECK(q.compute == Approx(10));
        CHECK(q.total() == Approx(26));
    }
}

TEST_CASE("waits the critical path cannot follow are told apart from the waiting call's own time",
          "[critical_path]") {
    // A short wait is the call's own time; a long one without known posts, or whose later post
    // ends after it (another host's clock), is a wait the path does not follow.
    const std::vector<std::vector<ActionStep>> ranks{
        {ActionStep{Part::Compute, 0, 0, 10}, ActionStep{Part::Comm, 26, 26, 27}},
        {ActionStep{Part::Compute, 0, 0.02, 5}, ActionStep{Part::Compute, 5, 12, 20},
         ActionStep{Part::Compute, 20, 25, 28, 0, 1}}};
    const ActionPathParts p = actionCriticalPath(ranks, 0, kWaited);
    CHECK(p.hops == 0);
    CHECK(p.transfers == 0);
    CHECK(p.comm == Approx(0.02));
    CHECK(p.waits == Approx(12)); // 5-12 and 20-25
    CHECK(p.compute == Approx(4.98 + 8 + 3));
    CHECK(p.total() == Approx(28));
    CHECK(actionCriticalPath({}, 0, kWaited).total() == 0);
}

TEST_CASE("data posted before the waiting rank's previous action ended was late: the path stays on the rank",
          "[critical_path]") {
    // Rank 1 posts its receive (0-1), computes another op (1-10), then waits 0.2 for data whose
    // send was posted at 6: the transfer was late, not released late, and rank 1's own op is the
    // path.
    const std::vector<std::vector<ActionStep>> ranks{
        {ActionStep{Part::Compute, 0, 0, 5}, ActionStep{Part::Comm, 5, 5, 6}},
        {ActionStep{Part::Comm, 0, 0, 1}, ActionStep{Part::Compute, 1, 1, 10},
         ActionStep{Part::Compute, 10, 10.2, 20, 0, 1}}};
    const ActionPathParts p = actionCriticalPath(ranks, 0, kWaited);
    CHECK(p.hops == 0);
    CHECK(p.transfers == 0);
    CHECK(p.waits == Approx(0.2));
    CHECK(p.compute == Approx(18.8));
    CHECK(p.comm == Approx(1));
    CHECK(p.total() == Approx(20));
}

TEST_CASE("the critical path of several iterations is the median of each part", "[critical_path]") {
    ActionPathParts a, b, c;
    a.compute = 10;
    b.compute = 30;
    c.compute = 20;
    a.hops = 1;
    b.hops = 3;
    c.hops = 2;
    const ActionPathParts m = medianActionPath({a, b, c});
    CHECK(m.compute == 20);
    CHECK(m.hops == 2);
    CHECK(medianActionPath({}).total() == 0);
}
