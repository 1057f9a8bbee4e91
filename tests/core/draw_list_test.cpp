// Draw lists for interactive views: exact items on a small row, and on a million-event row the
// same items as a plain linear fold, for many windows, with counts bounded by the pixels.
#include "error.h"
#include "layout/draw_list.h"

#include <catch2/catch.hpp>
#include <cstdint>

using namespace stagecraft;

namespace {

TimelineEvent event(double start, double end) {
    TimelineEvent e;
    e.start = start;
    e.end = end;
    return e;
}

/// The obvious O(events) fold, written independently as the reference.
std::vector<DrawItem> linearFold(const std::vector<TimelineEvent>& row, const DrawWindow& w) {
    std::vector<DrawItem> items;
    const double minUs = w.minPx / w.pxPerUs;
    for (std::size_t i = 0; i < row.size(); ++i) {
        const TimelineEvent& e = row[i];
        if (e.end <= w.t0 || e.start >= w.t1) continue;
        if (e.end - e.start >= minUs) {
            items.push_back({DrawItem::Type::Event, e.start, e.end, i, 1});
        } else if (!items.empty() && items.back().type == DrawItem::Type::Folded &&
                   items.back().first + items.back().count == i && e.start < items.back().end + minUs) {
            items.back().end = e.end;
            ++items.back().count;
        } else {
            items.push_back({DrawItem::Type::Folded, e.start, e.end, i, 1});
        }
    }
    return items;
}

bool sameItems(const std::vector<DrawItem>& a, const std::vector<DrawItem>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].type != b[i].type || a[i].start != b[i].start || a[i].end != b[i].end ||
            a[i].first != b[i].first || a[i].count != b[i].count)
            return false;
    return true;
}

/// A million events: mostly narrow (0.05..1 µs) with a wide one (5..50 µs) every so often, and
/// gaps of 0..3 µs with an occasional long one. Deterministic (64-bit LCG).
std::vector<TimelineEvent> millionEvents() {
    std::vector<TimelineEvent> row;
    row.reserve(1'000'000);
    std::uint64_t state = 42;
    auto uniform = [&state] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return double(state >> 11) / double(1ULL << 53);
    };
    double t = 0;
    for (int i = 0; i < 1'000'000; ++i) {
        const double r = uniform();
        const double width = r < 0.05 ? 5 + 45 * uniform() : 0.05 + 0.95 * uniform();
        row.push_back(event(t, t + width));
        t += width + (uniform() < 0.01 ? 20 + 100 * uniform() : 3 * uniform());
    }
    return row;
}

} // namespace

TEST_CASE("Draw list of a small row: wide events as they are, narrow runs folded", "[layout]") {
    // 1 px per µs, minPx 3: widths 1, 1, 1 (gaps 1) fold; 10 is drawn; 1 after a gap of 5 stands
    // alone as a fold of one; 1, 1 with a gap of 2 fold.
    const std::vector<TimelineEvent> row = {event(0, 1),   event(2, 3),   event(4, 5),   event(5, 15),
                                            event(20, 21), event(30, 31), event(33, 34), event(40, 50)};
    const std::vector<DrawItem> all = buildDrawList(row, {0, 100, 1, 3});
    REQUIRE(all.size() == 5);
    CHECK((all[0].type == DrawItem::Type::Folded && all[0].first == 0 && all[0].count == 3));
    CHECK((all[0].start == 0 && all[0].end == 5));
    CHECK(
        (all[1].type == DrawItem::Type::Event && all[1].first == 3 && all[1].start == 5 && all[1].end == 15));
    CHECK((all[2].type == DrawItem::Type::Folded && all[2].first == 4 && all[2].count == 1));
    CHECK((all[3].type == DrawItem::Type::Folded && all[3].first == 5 && all[3].count == 2 &&
           all[3].end == 34));
    CHECK((all[4].type == DrawItem::Type::Event && all[4].first == 7));
    CHECK(sameItems(all, linearFold(row, {0, 100, 1, 3})));

    // Zoomed in 10x: everything is wide enough.
    const std::vector<DrawItem> zoomed = buildDrawList(row, {0, 100, 10, 3});
    CHECK(zoomed.size() == row.size());
    // A window: only events that intersect it, an event cut by the edge included.
    const std::vector<DrawItem> window = buildDrawList(row, {10, 31, 10, 3});
    REQUIRE(window.size() == 3);
    CHECK(window[0].first == 3);
    CHECK(window[2].first == 5);
    CHECK(buildDrawList(row, {51, 60, 1, 3}).empty());
    CHECK(buildDrawList(row, {30, 30, 1, 3}).empty());
    CHECK(buildDrawList({}, {0, 10, 1, 3}).empty());

    CHECK_THROWS_WITH(
        buildDrawList(row, {0, 10, 0, 3}),
        "[drawlist.window] a draw window needs finite t0 and t1 and positive, finite pxPerUs and "
        "minPx");
    CHECK_THROWS_AS(buildDrawList(row, {0, std::numeric_limits<double>::infinity(), 1, 3}), ValidationError);
    CHECK_THROWS_AS(buildDrawList(row, {0, 10, 1, -1}), ValidationError);
}

TEST_CASE("Draw lists of a million-event row match a linear fold and stay small", "[layout]") {
    const std::vector<TimelineEvent> row = millionEvents();
    const double total = row.back().end;
    struct Case {
        double t0, t1, widthPx;
    };
    const std::vector<Case> cases = {
        {0, total, 1000},                     // everything on a 1000 px view
        {0, total, 4000},                     // a wide screen
        {total * 0.25, total * 0.2501, 1500}, // deep zoom: events as they are
        {total * 0.5, total * 0.52, 1200},    // medium zoom
        {-100, 200, 800},                     // a window sticking out on the left
        {total - 50, total + 1e6, 800},       // and on the right
    };
    for (const Case& c : cases) {
        INFO("window " << c.t0 << " .. " << c.t1);
        const DrawWindow w{c.t0, c.t1, c.widthPx / (c.t1 - c.t0), 3};
        const std::vector<DrawItem> items = buildDrawList(row, w);
        CHECK(sameItems(items, linearFold(row, w)));

        // Coverage: consecutive items cover consecutive events, every folded event is narrow,
        // and each fold spans exactly the union of its events.
        const double minUs = w.minPx / w.pxPerUs;
        for (std::size_t i = 0; i < items.size(); ++i) {
            const DrawItem& item = items[i];
            if (i > 0) REQUIRE(item.first == items[i - 1].first + items[i - 1].count);
            REQUIRE(item.start == row[item.first].start);
            REQUIRE(item.end == row[item.first + item.count - 1].end);
            if (item.type == DrawItem::Type::Event) {
                REQUIRE(item.count == 1);
                REQUIRE(item.end - item.start >= minUs);
            } else {
                for (std::size_t k = item.first; k < item.first + item.count; ++k) {
                    REQUIRE(row[k].end - row[k].start < minUs);
                    if (k > item.first) REQUIRE(row[k].start - row[k - 1].end < minUs);
                }
            }
        }
        // Wide events and folds each own at least minPx of screen (a fold is followed by a
        // visible gap or a wide event), so the count is bounded by the pixels, not the events.
        CHECK(items.size() <= std::size_t(3 * c.widthPx / w.minPx) + 4);
    }
    // The whole row on 1000 px: a million events, a few hundred items.
    const std::vector<DrawItem> overview = buildDrawList(row, {0, total, 1000 / total, 3});
    std::size_t covered = 0;
    for (const DrawItem& item : overview) covered += item.count;
    CHECK(covered == row.size());
    CHECK(overview.size() < 1000);
}

TEST_CASE("Draw lists over start and end arrays are the same fold", "[layout]") {
    const std::vector<TimelineEvent> row = millionEvents();
    std::vector<double> starts, ends;
    for (const TimelineEvent& e : row) starts.push_back(e.start), ends.push_back(e.end);
    const double total = row.back().end;
    for (const DrawWindow& w : {DrawWindow{0, total, 1000 / total, 3},
                                DrawWindow{total * 0.3, total * 0.31, 0.5, 3}, DrawWindow{-5, 40, 20, 3}}) {
        std::vector<DrawItem> items{{DrawItem::Type::Event, -1, -1, 99, 1}}; // appended after this
        appendDrawList(starts, ends, w, items);
        const std::vector<DrawItem> expected = buildDrawList(row, w);
        REQUIRE(items.size() == expected.size() + 1);
        CHECK(items.front().first == 99);
        CHECK(sameItems(std::vector<DrawItem>(items.begin() + 1, items.end()), expected));
    }
    std::vector<DrawItem> out;
    CHECK_THROWS_WITH(appendDrawList(starts, std::span<const double>(ends.data(), 3), {0, 10, 1, 3}, out),
                      "[drawlist.window] a draw row needs as many ends (3) as starts (1000000)");
    CHECK_THROWS_AS(appendDrawList(starts, ends, {0, 10, 1, 0}, out), ValidationError);
}
