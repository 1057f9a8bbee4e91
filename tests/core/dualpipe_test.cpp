// DualPipe and DualPipeV: the reference's worked orders and timed goldens, its README bubble
// formula where it holds, the torch artifact read with its overlapped slots, and every pass over
// overlapped slots (validator, simulator, memory, CSV, schedule JSON, Chrome trace, chart, text
// Gantt, lowering).
#include "error.h"
#include "file_io.h"
#include "generators/registry.h"
#include "io/chrome_trace.h"
#include "io/schedule_json.h"
#include "io/torch_csv.h"
#include "ir/overlap.h"
#include "layout/chart_frame.h"
#include "layout/gantt_layout.h"
#include "layout/palette.h"
#include "passes/lower.h"
#include "sim/memory_model.h"
#include "sim/metrics.h"
#include "sim/simulator.h"
#include "text/text_gantt.h"
#include "validate/validator.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>

using namespace stagecraft;

namespace {

std::string artifact(const std::string& name) {
    return readTextFile(std::filesystem::path(STAGECRAFT_REFERENCE_DIR) / "torch-csv" / name);
}

Schedule generate(const char* name, int p, int m) {
    return generateSchedule(name, ScheduleParams{p, m, 1});
}

/// The reference's notation for DualPipeV rows ("0F0,7I0,(0F7;7B3)"), read as a torch CSV.
Schedule fromVRows(const std::vector<std::string>& rows) {
    std::string csv;
    for (const std::string& row : rows) {
        std::string line;
        std::size_t at = 0;
        while (at < row.size()) {
            const std::size_t close = row[at] == '(' ? row.find(')', at) + 1 : row.find(',', at);
            const std::size_t end = close == std::string::npos ? row.size() : close;
            line += row.substr(at, end - at) + (row[at] == '(' ? "OVERLAP_F_B" : "");
            at = end;
            if (at < row.size() && row[at] == ',') line += ',', ++at;
        }
        csv += line + "\n";
    }
    TorchCsvOptions options;
    options.name = "dualpipev";
    return parseTorchCsv(csv, "reference", options);
}

/// One op of the reference's DualPipe notation: "D0F3" (down pipe, stage 0, micro-batch 3),
/// "U3B5" (up pipe; B whole), "U3I4" (input part), "U3W4".
void pushToken(Schedule& s, int device, const std::string& token) {
    const int pipe = token[0] == 'U' ? 1 : 0;
    std::size_t kindAt = 1;
    while (std::isdigit(static_cast<unsigned char>(token[kindAt]))) ++kindAt;
    const int stage = std::stoi(token.substr(1, kindAt - 1));
    const int mb = std::stoi(token.substr(kindAt + 1));
    switch (token[kindAt]) {
    case 'F':
        pushOp(s, device, OpKind::F, pipe, stage, mb);
        break;
    case 'I':
        pushOp(s, device, OpKind::B, pipe, stage, mb);
        break;
    case 'W':
        pushOp(s, device, OpKind::W, pipe, stage, mb);
        break;
    default: // whole backward
        pushWholeBackward(s, device, pipe, stage, mb);
    }
}

Schedule fromDualRows(int p, int m, const std::vector<std::string>& rows) {
    Schedule expected = generate("dualpipe", p, m);
    for (auto& order : expected.order) order.clear();
    expected.overlapped.clear();
    expected.wholeBackward.clear();
    for (int d = 0; d < p; ++d) {
        std::stringstream in(rows[std::size_t(d)]);
        std::string cell;
        while (std::getline(in, cell, ',')) {
            if (cell.front() == '(') { // "(D0F3;U3B5)": a slot
                const std::size_t semi = cell.find(';');
                const std::string f = cell.substr(1, semi - 1),
                                  b = cell.substr(semi + 1, cell.size() - semi - 2);
                const auto pipeOf = [](const std::string& t) { return t[0] == 'U' ? 1 : 0; };
                const auto stageOf = [](const std::string& t) { return std::stoi(t.substr(1, 1)); };
                const auto mbOf = [](const std::string& t) { return std::stoi(t.substr(3)); };
                pushOverlapped(expected, d, pipeOf(f), stageOf(f), mbOf(f), pipeOf(b), stageOf(b), mbOf(b));
            } else {
                pushToken(expected, d, cell);
            }
        }
    }
    return expected;
}

/// Per-chunk costs: F, B (whole: I + W), W, and an overlapped slot of F&B.
OpCosts chunkCosts(const Schedule& s, double f, double b, double w, double fb) {
    const double fraction = s.stageFraction();
    OpCosts costs = fullStageCosts(s, f / fraction, (b - w) / fraction, w / fraction);
    costs.overlap = fb / (f + b);
    return costs;
}

/// Idle time of every device: makespan less its compute time.
std::vector<double> idlePerDevice(const Schedule& s, const Timeline& t) {
    std::vector<double> busy(std::size_t(s.devices), 0.0);
    for (const TimelineEvent& e : t.events)
        if (e.lane == Lane::Compute) busy[std::size_t(e.device)] += e.duration();
    std::vector<double> idle;
    for (double b : busy) idle.push_back(t.makespan() - b);
    return idle;
}

/// Peak of chunk activations in flight per device: F done, its B not yet (W holds nothing).
std::vector<double> peakInFlight(const Schedule& s, const Timeline& t) {
    MemoryInputs inputs;
    inputs.stages.assign(std::size_t(s.pipes) * s.stagesPerPipe, StageMemory{0.0, 1.0, 0.0});
    std::vector<double> peaks;
    for (const DeviceMemory& d : computeMemory(s, t, inputs).devices) peaks.push_back(d.peakBytes);
    return peaks;
}

} // namespace

TEST_CASE("DualPipeV reproduces the reference order and torch's artifact, overlapped slots included",
          "[dualpipe]") {
    const Schedule s = generate("dualpipev", 4, 10);
    REQUIRE(findProblems(s).empty());
    const Schedule reference = fromVRows({
        "0F0,0F1,0F2,0F3,0F4,0F5,0F6,7F0,7I0,7W0,7F1,7I1,7W1,7F2,7I2,7W2,7F3,(0F7;7B3),(7F4;0B0),(0F8;7B4),"
        "(7F5;0B1),(0F9;7B5),(7F6;0B2),7B6,(7F7;0B3),7B7,(7F8;0B4),7B8,(7F9;0B5),7B9,0I6,0W6,0I7,0W7,0I8,0W8,"
        "0I9,0W9",
        "1F0,1F1,1F2,1F3,1F4,6F0,1F5,6F1,6I0,6W0,6F2,6I1,6W1,6F3,(1F6;6B2),(6F4;1B0),(1F7;6B3),(6F5;1B1),"
        "(1F8;6B4),(6F6;1B2),(1F9;6B5),(6F7;1B3),6B6,(6F8;1B4),6B7,(6F9;1B5),6B8,1B6,6I9,1I7,6W9,1I8,1W7,1I9,"
        "1W8,1W9",
        "2F0,2F1,2F2,5F0,2F3,5F1,2F4,5F2,5I0,5W0,5F3,(2F5;5B1),(5F4;2B0),(2F6;5B2),(5F5;2B1),(2F7;5B3),"
        "(5F6;2B2),(2F8;5B4),(5F7;2B3),(2F9;5B5),(5F8;2B4),5B6,(5F9;2B5),5B7,2B6,5B8,2I7,5I9,2I8,2W7,2I9,5W9,"
        "2W8,2W9",
        "3F0,4F0,3F1,4F1,3F2,4F2,3F3,4F3,3F4,4B0,(4F4;3B0),(3F5;4B1),(4F5;3B1),(3F6;4B2),(4F6;3B2),(3F7;4B3),"
        "(4F7;3B3),(3F8;4B4),(4F8;3B4),(3F9;4B5),(4F9;3B5),4B6,3B6,4B7,3B7,4I8,3I8,4I9,3I9,4W8,3W8,4W9,3W9",
    });
    CHECK(s == reference);
    // Overlapped slots per rank: 9 / 10 / 11 / 11 (2m - 3P + r + 1 - [last]).
    const ScheduleSlots slots = findSlots(s, OpIndex(s));
    CHECK(slots.problems.empty());
    const auto count = [&](int device, bool overlapped) {
        return std::count_if(slots.of[std::size_t(device)].begin(), slots.of[std::size_t(device)].end(),
                             [&](const Slot& slot) { return slot.overlapped == overlapped; });
    };
    // Overlapped slots and stand-alone whole backwards per rank (P + [last]).
    for (const auto& [device, overlapped, whole] :
         std::vector<std::tuple<int, int, int>>{{0, 9, 4}, {1, 10, 4}, {2, 11, 4}, {3, 11, 5}}) {
        CHECK(count(device, true) == overlapped);
        CHECK(count(device, false) == whole);
    }

    // torch's own artifacts load without serializing and are the generator's schedules exactly.
    TorchCsvOptions options;
    options.name = "dualpipev";
    CHECK(parseTorchCsv(artifact("dualpipev_4rank_10mb.csv"), "a.csv", options) == s);
    CHECK(parseTorchCsv(artifact("DualPipeV_pp2_m4_v2.csv"), "b.csv", options) ==
          generate("dualpipev", 2, 4));
    // Written back, the slots are torch's cells again and read back to the same schedule.
    const std::string csv = scheduleToTorchCsv(s);
    CHECK(csv == artifact("dualpipev_4rank_10mb.csv"));
    CHECK(parseTorchCsv(csv, "c.csv", options) == s);
}

TEST_CASE("DualPipe reproduces the reference orders at pp = 4", "[dualpipe]") {
    const Schedule m8 = generate("dualpipe", 4, 8);
    REQUIRE(findProblems(m8).empty());
    CHECK(m8 ==
          fromDualRows(4, 8,
                       {"D0F0,D0F1,D0F2,U3F4,U3I4,U3W4,U3F5,(D0F3;U3B5),(U3F6;D0B0),U3B6,(U3F7;D0B1),U3B7,"
                        "D0I2,D0W2,D0I3,D0W3",
                        "D1F0,U2F4,D1F1,U2F5,D1F2,U2B4,(U2F6;D1B0),(D1F3;U2B5),(U2F7;D1B1),U2B6,D1B2,U2I7,"
                        "D1I3,U2W7,D1W3",
                        "U1F4,D2F0,U1F5,D2F1,U1F6,D2B0,(D2F2;U1B4),(U1F7;D2B1),(D2F3;U1B5),D2B2,U1B6,D2I3,"
                        "U1I7,D2W3,U1W7",
                        "U0F4,U0F5,U0F6,D3F0,D3I0,D3W0,D3F1,(U0F7;D3B1),(D3F2;U0B4),D3B2,(D3F3;U0B5),D3B3,"
                        "U0I6,U0W6,U0I7,U0W7"}));
    const Schedule m10 = generate("dualpipe", 4, 10);
    REQUIRE(findProblems(m10).empty());
    CHECK(m10 ==
          fromDualRows(4, 10,
                       {"D0F0,D0F1,D0F2,U3F5,U3I5,U3W5,U3F6,(D0F3;U3B6),(U3F7;D0B0),(D0F4;U3B7),(U3F8;D0B1),"
                        "U3B8,(U3F9;D0B2),U3B9,D0I3,D0W3,D0I4,D0W4",
                        "D1F0,U2F5,D1F1,U2F6,D1F2,U2B5,(U2F7;D1B0),(D1F3;U2B6),(U2F8;D1B1),(D1F4;U2B7),"
                        "(U2F9;D1B2),U2B8,D1B3,U2I9,D1I4,U2W9,D1W4",
                        "U1F5,D2F0,U1F6,D2F1,U1F7,D2B0,(D2F2;U1B5),(U1F8;D2B1),(D2F3;U1B6),(U1F9;D2B2),"
                        "(D2F4;U1B7),D2B3,U1B8,D2I4,U1I9,D2W4,U1W9",
                        "U0F5,U0F6,U0F7,D3F0,D3I0,D3W0,D3F1,(U0F8;D3B1),(D3F2;U0B5),(U0F9;D3B2),(D3F3;U0B6),"
                        "D3B3,(D3F4;U0B7),D3B4,U0I8,U0W8,U0I9,U0W9"}));
}

TEST_CASE("DualPipe(V) timed goldens: makespan, idle per rank and in-flight activations", "[dualpipe]") {
    struct Case {
        const char* name;
        int p, m;
        double fb, makespan;
        std::vector<double> idle;
    };
    const std::vector<Case> cases{
        {"dualpipev", 4, 10, 3.0, 66, {6, 6, 6, 6}},
        {"dualpipev", 4, 10, 2.5, 59, {3.5, 4, 4.5, 4.5}},
        {"dualpipe", 4, 8, 3.0, 26, {2, 2, 2, 2}},
        {"dualpipe", 4, 8, 2.5, 24, {1.5, 1.5, 1.5, 1.5}},
        {"dualpipe", 4, 10, 3.0, 32, {}},
        {"dualpipe", 4, 10, 2.5, 29, {}},
        {"dualpipe", 8, 20, 2.5, 59, {3.5, 4, 4.5, 4.5, 4.5, 4.5, 4, 3.5}},
        {"dualpipe", 8, 20, 3.0, 66, {}},
    };
    for (const Case& c : cases) {
        INFO(c.name << " p=" << c.p << " m=" << c.m << " F&B=" << c.fb);
        const Schedule s = generate(c.name, c.p, c.m);
        const Timeline t = simulate(s, chunkCosts(s, 1, 2, 1, c.fb));
        CHECK(t.makespan() == Approx(c.makespan));
        const std::vector<double> idle = idlePerDevice(s, t);
        for (std::size_t d = 0; d < c.idle.size(); ++d) CHECK(idle[d] == Approx(c.idle[d]));
    }
    // Peak in-flight chunk activations: PP + 1 on every rank (PP stages).
    for (const auto& [name, p, m, peak] :
         std::vector<std::tuple<const char*, int, int, double>>{{"dualpipev", 4, 10, 9},
                                                                {"dualpipev", 4, 20, 9},
                                                                {"dualpipe", 4, 8, 5},
                                                                {"dualpipe", 8, 20, 9}}) {
        INFO(name << " p=" << p << " m=" << m);
        const Schedule s = generate(name, p, m);
        for (double v : peakInFlight(s, simulate(s, chunkCosts(s, 1, 2, 1, 3)))) CHECK(v == peak);
    }
}

TEST_CASE("DualPipe(V) bubble equals the README formula where the reference says it holds", "[dualpipe]") {
    // (PP/2 - 1)(F&B + B - 3W), PP the stages, bubble the largest idle time of a rank; exact when
    // I = F and F + I <= F&B <= F + B.
    struct Costs {
        double f, b, w, fb;
    };
    const std::vector<Costs> costs{{1, 2, 1, 2},     {1, 2, 1, 2.5}, {1, 2, 1, 3},    {1.5, 2.5, 1, 3},
                                   {1.5, 2.5, 1, 4}, {2, 3, 1, 4},   {1, 1.5, 0.5, 2}};
    const std::vector<std::tuple<const char*, int, int, int>> schedules{
        {"dualpipev", 4, 10, 8}, {"dualpipev", 8, 24, 16}, {"dualpipe", 8, 20, 8}, {"dualpipe", 4, 10, 4}};
    for (const auto& [name, p, m, pp] : schedules)
        for (const Costs& c : costs) {
            INFO(name << " p=" << p << " m=" << m << " F=" << c.f << " B=" << c.b << " W=" << c.w
                      << " F&B=" << c.fb);
            const Schedule s = generate(name, p, m);
            const std::vector<double> idle =
                idlePerDevice(s, simulate(s, chunkCosts(s, c.f, c.b, c.w, c.fb)));
            const double bubble = *std::max_element(idle.begin(), idle.end());
            CHECK(bubble == Approx((pp / 2 - 1) * (c.fb + c.b - 3 * c.w)));
        }
    // Outside the conditions the formula is only a reference: F = B = 1, W = 0.5, F&B = 2 at
    // DualPipeV(4, 10) idles 6 where it says 4.5.
    const Schedule v = generate("dualpipev", 4, 10);
    const std::vector<double> idle = idlePerDevice(v, simulate(v, chunkCosts(v, 1, 1, 0.5, 2)));
    CHECK(*std::max_element(idle.begin(), idle.end()) == Approx(6));
}

TEST_CASE("DualPipe(V) constraints name the rule", "[dualpipe]") {
    const auto violation = [](const char* name, int p, int m) {
        return constraintViolation(findGenerator(name), ScheduleParams{p, m, 1}).value_or("accepted");
    };
    CHECK(violation("dualpipev", 4, 7) ==
          "parallel.microbatches = 7: dualpipev needs microbatches >= 2 * pp (pp = 4, at least 8)");
    CHECK(violation("dualpipev", 1, 2) == "accepted");
    CHECK(violation("dualpipev", 3, 6) == "accepted");
    CHECK(violation("dualpipe", 3, 12) ==
          "parallel.pp = 3: dualpipe runs two pipelines in opposite directions and needs an even pp");
    CHECK(violation("dualpipe", 4, 9) ==
          "parallel.microbatches = 9: dualpipe splits the micro-batches in two "
          "halves, one per direction, and needs an even number");
    CHECK(violation("dualpipe", 4, 6) ==
          "parallel.microbatches = 6: dualpipe needs microbatches >= 2 * pp (pp = 4, at least 8)");
    // Every accepted shape validates.
    for (int p = 1; p <= 6; ++p)
        for (int m = 2 * p; m <= 2 * p + 7; ++m) {
            INFO("p=" << p << " m=" << m);
            CHECK(findProblems(generate("dualpipev", p, m)).empty());
            if (p % 2 == 0 && m % 2 == 0) CHECK(findProblems(generate("dualpipe", p, m)).empty());
        }
}

TEST_CASE("Overlapped slots: the validator refuses a broken slot", "[dualpipe]") {
    Schedule s = generate("dualpipev", 2, 4);
    REQUIRE(findProblems(s).empty());
    // A head that is not followed by its backward: move the slot's B and W away.
    Schedule broken = s;
    const auto slots = findSlots(broken, OpIndex(broken));
    const auto first =
        std::find_if(slots.of[0].begin(), slots.of[0].end(), [](const Slot& x) { return x.overlapped; });
    REQUIRE(first != slots.of[0].end());
    const std::int32_t head = first->position;
    auto& ops = broken.order[0];
    std::rotate(ops.begin() + head + 1, ops.begin() + head + 3, ops.end());
    const auto problems = findProblems(broken);
    REQUIRE_FALSE(problems.empty());
    CHECK(problems.front().id == "schedule.overlap");
    CHECK(problems.front().message ==
          "device 0 position " + std::to_string(head) +
              ": overlapped slot headed by 0F3 must be followed by the backward (B) "
              "it overlaps with");
    // A head that is no forward of the schedule.
    Schedule unknown = s;
    unknown.overlapped.push_back(Op{OpKind::B, 0, 0, 0, 0});
    CHECK(findProblems(unknown).front().message ==
          "overlapped slot head 0I0: must be a forward the schedule runs");
    CHECK_THROWS_WITH(validate(unknown), Catch::Contains("must be a forward"));
}

TEST_CASE("Overlapped slots through every pass", "[dualpipe]") {
    const Schedule s = generate("dualpipev", 4, 10);
    const OpCosts costs = chunkCosts(s, 1, 2, 1, 2.5);
    const Timeline t = simulate(s, costs);
    // The slot is split among its ops in proportion (F 1, B 1, W 1 of 2.5), back to back.
    const OpIndex index(s);
    const OpRef head = index.find(OpKind::F, 0, 0, 7);
    const std::size_t k = index.globalId(head);
    CHECK(t.events[k + 1].start == Approx(t.events[k].end));
    CHECK(t.events[k + 2].start == Approx(t.events[k + 1].end));
    CHECK(t.events[k + 2].end - t.events[k].start == Approx(2.5));
    CHECK(t.events[k].duration() == Approx(2.5 / 3));
    CHECK(t.shape.overlapped == s.overlapped);
    // Idle time is attributed to the producers that release a slot: none is left unexplained.
    const TimeMetrics metrics = computeTimeMetrics(s, t, &costs);
    for (const DeviceMetrics& dm : metrics.devices) {
        CHECK(dm.busy == Approx(t.makespan() - dm.idle));
        CHECK(dm.bubbles.other == Approx(0.0).margin(1e-9));
    }

    // Schedule JSON and Chrome trace keep the slots.
    CHECK(parseScheduleJson(scheduleToJson(s), "s.json") == s);
    CHECK(scheduleToJson(s).find("\"overlapped\": [\"0F7\"") != std::string::npos);
    const Timeline back = parseChromeTrace(timelineToChromeTrace(t), "t.json");
    CHECK(back.shape == t.shape);
    CHECK(back.makespan() == Approx(t.makespan()));

    // The chart frames every slot once.
    ChartPanel panel;
    panel.timeline = &t;
    const Scene scene = layoutGantt(std::span<const ChartPanel>(&panel, 1), ChartOptions{});
    const auto frames = std::count_if(scene.rects.begin(), scene.rects.end(),
                                      [](const SceneRect& r) { return r.kind == kOverlapSlotKind; });
    CHECK(frames == std::ptrdiff_t(s.overlapped.size()));
    // In the text colour, not the bars' white outline (which hid it), and named in the legend.
    const Palette& pal = findPalette(ChartOptions{}.palette);
    for (const SceneRect& r : scene.rects)
        if (r.kind == kOverlapSlotKind) CHECK(r.stroke == pal.text);
    CHECK(std::any_of(scene.texts.begin(), scene.texts.end(),
                      [](const SceneText& t) { return t.text == "F&B slot (overlapped)"; }));

    // The text Gantt draws a slot as its forward and its backward joined by '&'.
    const std::string gantt = renderTextGantt(generate("dualpipev", 2, 4));
    CHECK(gantt.find("&") != std::string::npos);

    // Lowered, a slot is its ops one after the other, each with its transfers.
    const Lowered lowered = lower(s);
    std::size_t compute = 0;
    for (const Program& program : lowered.programs)
        for (const Instruction& in : program.instructions) compute += in.kind == InstrKind::Compute;
    CHECK(compute == s.opCount());
}
