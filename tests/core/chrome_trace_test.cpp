// Chrome trace files: every generator's simulated timeline survives write -> read unchanged, the
// JSON has the structure Perfetto needs (metadata, one pid per device, action-string names,
// paired flows, no overlapping slices on a track), torch-named ranges left to torch's reader, and bad
// traces are refused with messages that name the event, the field and the rule.
#include "error.h"
#include "generators/registry.h"
#include "io/chrome_trace.h"
#include "ir/action.h"
#include "passes/iteration_tail.h"
#include "sim/simulator.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

using namespace stagecraft;
using nlohmann::json;

namespace {

const ScheduleParams kParams{4, 8, 2};

Timeline simulated(const std::string& name, double comm, bool tail = false) {
    Schedule s = generateSchedule(name, kParams);
    if (tail) s = addIterationTail(s, {});
    return simulate(s, fullStageCosts(s, 1, 1, 1, comm, 0.5, 0.1));
}

std::string errorOf(std::string_view text) {
    try {
        parseChromeTrace(text, "t.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

/// A one-slice trace in our format around `slice` (a JSON object text).
std::string oneSlice(const std::string& slice) {
    return R"({"otherData":{"stagecraft_trace":1,"schedule":"1f1b","origin":"measured","devices":2,"pipes":1,)"
           R"("stages_per_pipe":2,"microbatches":2,"chunks_per_device":1,"split_backward":false},"traceEvents":[)" +
           slice + "]}";
}

} // namespace

TEST_CASE("Every generator's timeline round-trips through a Chrome trace", "[trace]") {
    for (const GeneratorInfo& info : generators())
        for (const double comm : {0.0, 0.25})
            for (const bool tail : {false, true}) {
                const std::string name(info.name);
                INFO(name << " comm " << comm << " tail " << tail);
                const Timeline t = simulated(name, comm, tail);
                REQUIRE(!t.events.empty());
                const std::string text = timelineToChromeTrace(t);
                const Timeline back = parseChromeTrace(text, name);
                CHECK(back.shape == t.shape);
                CHECK(back.origin == "predicted");
                REQUIRE(back.events.size() == t.events.size());
                for (std::size_t i = 0; i < t.events.size(); ++i) {
                    INFO("event " << i);
                    REQUIRE(back.events[i] == t.events[i]);
                }
                CHECK(back == t);
                CHECK(timelineToChromeTrace(back) == text);
            }
}

TEST_CASE("A Chrome trace has the structure Perfetto reads", "[trace]") {
    for (const std::string name : {"1f1b", "zb-v", "chimera", "interleaved"}) {
        INFO(name);
        const Timeline t = simulated(name, 0.25, true);
        const json doc = json::parse(timelineToChromeTrace(t, {"My run", {}, {"Rank zero"}}));
        CHECK(doc["displayTimeUnit"] == "ns");
        CHECK(doc["otherData"]["stagecraft_trace"] == 1);
        CHECK(doc["otherData"]["title"] == "My run");
        CHECK(doc["otherData"]["schedule"] == name);
        CHECK(doc["otherData"]["devices"] == 4);

        std::map<int, std::string> processNames;
        std::map<std::pair<int, int>, std::string> threadNames;
        std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
        std::map<long long, std::vector<json>> flows;
        std::size_t computeSlices = 0, transferSlices = 0;
        for (const json& e : doc["traceEvents"]) {
            const std::string ph = e["ph"];
            if (ph == "M" && e["name"] == "process_name") processNames[e["pid"]] = e["args"]["name"];
            if (ph == "M" && e["name"] == "thread_name")
                threadNames[{e["pid"], e["tid"]}] = e["args"]["name"];
            if (ph == "s" || ph == "f") flows[e["id"].get<long long>()].push_back(e);
            if (ph != "X") continue;
            const double ts = e["ts"], dur = e["dur"];
            tracks[{e["pid"], e["tid"]}].emplace_back(ts, ts + dur);
            const json& args = e["args"];
            CHECK(e["cat"] == args["kind"]);
            if (args["kind"] == "send") {
                ++transferSlices;
                CHECK(e["name"].get<std::string>().rfind(args["comm"] == "activation" ? "SEND_F " : "SEND_B ",
                                                         0) == 0);
                continue;
            }
            if (args["kind"] != "F" && args["kind"] != "B" && args["kind"] != "W") continue;
            ++computeSlices;
            // The name is the torch action string of the op in args.
            const auto action = parseAction(e["name"].get<std::string>());
            REQUIRE(action);
            CHECK(action->stage == args["stage"]);
            CHECK(action->mb == args["mb"]);
            CHECK(action->pipe == args["pipe"]);
            CHECK(std::string(opKindName(opKindOf(action->type))) == args["kind"]);
            CHECK((action->type == ActionType::I) == (t.shape.splitBackward && args["kind"] == "B"));
            CHECK(e["tid"] == 0);
        }
        CHECK(processNames.size() == 4);
        CHECK(processNames[0] == "Rank zero");
        CHECK(processNames[3] == "Device 3");
        for (int d = 0; d < 4; ++d) {
            CHECK(threadNames[{d, 0}] == "compute");
            CHECK(threadNames[{d, 1}] == "comm");
        }
        std::size_t ops = 0, transfers = 0;
        for (const TimelineEvent& e : t.events) {
            const bool transfer = e.comm == CommKind::Activation || e.comm == CommKind::Gradient;
            transfers += transfer;
            ops += !transfer && isComputeKind(e.op.kind);
        }
        CHECK(computeSlices == ops);
        CHECK(transferSlices == transfers);
        // Every transfer has one arrow: an "s" on the sender, an "f" bound to the consumer's slice.
        CHECK(flows.size() == transfers);
        for (const auto& [id, pair] : flows) {
            REQUIRE(pair.size() == 2);
            CHECK(pair[0]["ph"] == "s");
            CHECK(pair[1]["ph"] == "f");
            CHECK(pair[1]["bp"] == "e");
            CHECK(pair[0]["name"] == pair[1]["name"]);
            CHECK(pair[0]["pid"] != pair[1]["pid"]);
        }
        // Slices on one track never overlap.
        for (auto& [track, slices] : tracks) {
            CHECK(threadNames.count(track) == 1);
            std::sort(slices.begin(), slices.end());
            for (std::size_t k = 1; k < slices.size(); ++k) CHECK(slices[k].first >= slices[k - 1].second);
        }
    }
}

TEST_CASE("Overlapping transfers go to extra comm tracks and slices print exactly", "[trace]") {
    Timeline t;
    t.shape = {"hand", 2, 1, 2, 2, 1, false};
    auto transfer = [](int mb, double start, double end) {
        TimelineEvent e;
        e.op = Op{OpKind::F, 0, 0, 0, mb};
        e.device = 0;
        e.peer = 1;
        e.lane = Lane::Comm;
        e.comm = CommKind::Activation;
        e.start = start;
        e.end = end;
        return e;
    };
    t.events = {TimelineEvent{Op{OpKind::F, 0, 0, 0, 0}, 0, -1, Lane::Compute, CommKind::None, 0, 1},
                TimelineEvent{Op{OpKind::F, 0, 0, 0, 1}, 0, -1, Lane::Compute, CommKind::None, 1, 1.5},
                TimelineEvent{Op{OpKind::F, 0, 0, 1, 0}, 1, -1, Lane::Compute, CommKind::None, 3, 4},
                TimelineEvent{Op{OpKind::F, 0, 0, 1, 1}, 1, -1, Lane::Compute, CommKind::None, 4, 5},
                transfer(0, 1, 3),
                transfer(1, 1.5, 4)};
    const std::string text = timelineToChromeTrace(t);
    CHECK(text.find(R"({"ph":"M","name":"thread_name","pid":0,"tid":2,"args":{"name":"comm 2"}},)") !=
          std::string::npos);
    CHECK(text.find(R"({"ph":"X","name":"0F1","cat":"F","pid":0,"tid":0,"ts":1,"dur":0.5,"args":{"kind":"F",)"
                    R"("mb":1,"stage":0,"pipe":0,"chunk":0}},)") != std::string::npos);
    CHECK(
        text.find(R"({"ph":"X","name":"SEND_F 0F1 -> D1","cat":"send","pid":0,"tid":2,"ts":1.5,"dur":2.5,)"
                  R"("args":{"kind":"send","comm":"activation","peer":1,"op":"F","mb":1,"stage":0,"pipe":0,)"
                  R"("chunk":0}},)") != std::string::npos);
    CHECK(
        text.find(R"({"ph":"f","id":2,"name":"activation","cat":"transfer","pid":1,"tid":0,"ts":4,"bp":"e"})"
                  "\n]}\n") != std::string::npos);
    CHECK(parseChromeTrace(text, "hand") == t);
}

TEST_CASE("Counters, device names and files", "[trace]") {
    const Timeline t = simulated("1f1b", 0.25);
    ChromeTraceOptions options;
    options.title = "run \"7\"";
    options.deviceNames = {"GPU 0", "GPU 1"};
    options.counters = {{2, "activation MiB", {{0, 10}, {1.5, 20.25}}}};
    const std::string text = timelineToChromeTrace(t, options);
    CHECK(text.find(R"({"ph":"C","name":"activation MiB","pid":2,"ts":1.5,"args":{"value":20.25}})") !=
          std::string::npos);
    CHECK(text.find(R"("title":"run \"7\"")") != std::string::npos);
    CHECK(text.find(R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"GPU 1"}})") !=
          std::string::npos);
    CHECK(text.find(R"({"ph":"M","name":"process_name","pid":2,"args":{"name":"Device 2"}})") !=
          std::string::npos);
    CHECK(parseChromeTrace(text, "x") == t); // counters are skipped on reading

    const auto path = std::filesystem::temp_directory_path() / "stagecraft_chrome_trace_test.json";
    writeChromeTrace(t, path, options);
    CHECK(readChromeTrace(path) == t);
    std::filesystem::remove(path);

    options.counters = {{4, "x", {}}};
    CHECK_THROWS_WITH(timelineToChromeTrace(t, options),
                      "[trace.write] counters[0].device = 4: a device must be in [0, 4)");
    Timeline bad = t;
    bad.events[3].end = bad.events[3].start - 1;
    CHECK_THROWS_WITH(timelineToChromeTrace(bad),
                      Catch::Contains("[trace.write] events[3].end = ") &&
                          Catch::EndsWith(": an end must be a finite number >= the start"));
    bad = t;
    bad.events[5].op.stage = 4;
    CHECK_THROWS_WITH(timelineToChromeTrace(bad),
                      "[trace.write] events[5].op.stage = 4: a stage must be in [0, 4) "
                      "(stages_per_pipe = 4)");
}

TEST_CASE("An end that ts + dur cannot give is read from args.end", "[trace]") {
    const std::string text = oneSlice(
        R"({"ph":"X","cat":"F","pid":0,"ts":0.5,"dur":1,"args":{"kind":"F","mb":0,"stage":0,"end":1.25}})");
    const Timeline t = parseChromeTrace(text, "t");
    REQUIRE(t.events.size() == 1);
    CHECK(t.events[0].start == 0.5);
    CHECK(t.events[0].end == 1.25);
    CHECK(t.origin == "measured");
    CHECK(t.shape == TimelineShape{"1f1b", 2, 1, 2, 2, 1, false});
}

TEST_CASE("Ranges torch named are not this reader's: it claims Stagecraft's categories only", "[trace]") {
    // A torch profiler file (user annotations "PP:2F0") is read by the torch trace reader
    // (torch_trace_test); the Stagecraft reader refuses it and says which reader it is for.
    const std::string torchNamed = R"([
 {"ph":"X","cat":"user_annotation","name":"PP:0F0","pid":7001,"tid":3,"ts":100,"dur":10},
 {"ph":"X","cat":"gpu_user_annotation","name":"PP:0F0","pid":0,"tid":7,"ts":104,"dur":12}])";
    CHECK(errorOf(torchNamed) ==
          "[trace.empty] t.json: no slice is a pipeline op: expected Stagecraft slices (cat F, B, W, ... "
          "with the op in args or named with an action string such as '2F0'); ranges torch named "
          "('PP:2F0') are read as a torch trace (readMeasuredTrace)");

    // Stagecraft's own categories still take their op from the name when args carry none.
    const Timeline t = parseChromeTrace(R"([
 {"ph":"X","cat":"F","name":"1F0","pid":8,"tid":3,"ts":110.5,"dur":10},
 {"ph":"X","cat":"F","name":"PP:0F0","pid":3,"tid":3,"ts":100,"dur":10},
 {"ph":"X","cat":"user_annotation","name":"PP:0F1","pid":3,"tid":3,"ts":112,"dur":10},
 {"ph":"X","cat":"W","name":"3W0","pid":8,"tid":3,"ts":140,"dur":5}])",
                                        "t.json");
    CHECK(t.origin == "measured");
    CHECK(t.shape == TimelineShape{"", 2, 1, 4, 1, 2, true});
    REQUIRE(t.events.size() == 3); // the user annotation PP:0F1 is not claimed
    CHECK(t.events[0].op == Op{OpKind::F, 0, 0, 0, 0});
    CHECK(t.events[0].device == 0); // pids 3 and 8 are devices 0 and 1
    CHECK(t.events[1].op == Op{OpKind::F, 0, 0, 1, 0});
    CHECK(t.events[2].op == Op{OpKind::W, 0, 1, 3, 0}); // stage 3 is device 1's second chunk
    CHECK(t.events[2].start == 140);
}

TEST_CASE("Bad traces are refused with the event, field, value and rule", "[trace]") {
    // JSON syntax: line and column of the error.
    CHECK(errorOf("{\"traceEvents\": [\n  {\"ph\": \"X\",}\n]}") ==
          "[trace.json] t.json line 2, column 14: syntax error while parsing object key - unexpected '}'; "
          "expected "
          "string literal");
    try {
        parseChromeTrace("[1, 2", "t.json");
        FAIL("no error");
    } catch (const ParseError& e) {
        CHECK(e.id() == "trace.json");
        CHECK(e.line() == 1);
        CHECK(e.column() == 6);
    }
    CHECK(errorOf("42") ==
          "[trace.container] t.json: a Chrome trace is an array of events or an object with a "
          "traceEvents array");
    CHECK(errorOf(R"({"traceEvents":{"ph":"X"}})") ==
          R"([trace.container] t.json: traceEvents = {"ph":"X"}: must be an array of events)");
    CHECK(errorOf(R"({"traceEvents":[],"traceEvents":[]})") ==
          "[trace.container] t.json: traceEvents appears twice");
    CHECK(errorOf(std::string(100, '[') + std::string(100, ']')) ==
          "[trace.json] t.json: JSON nested deeper than 64 levels");
    CHECK(errorOf("\x1f\x8b\x08") ==
          "[trace.json] t.json: the file is gzip-compressed; decompress it first (gunzip)");
    CHECK(errorOf(R"([{"ph":"X","name":"matmul","pid":1,"ts":0,"dur":1}])") ==
          "[trace.empty] t.json: no slice is a pipeline op: expected Stagecraft slices (cat F, B, W, ... "
          "with the op in args or named with an action string such as '2F0'); ranges torch named "
          "('PP:2F0') are read as a torch trace (readMeasuredTrace)");

    // Slices the reader claims.
    CHECK(errorOf(oneSlice(
              R"({"ph":"X","cat":"F","pid":0,"ts":0,"dur":-1,"args":{"kind":"F","mb":0,"stage":0}})")) ==
          "[trace.event] t.json: traceEvents[0].dur = -1: a duration must be a finite number >= 0 (µs)");
    CHECK(errorOf(oneSlice(
              R"({"ph":"X","cat":"F","pid":0,"ts":0,"dur":1e999,"args":{"kind":"F","mb":0,"stage":0}})")) ==
          "[trace.json] t.json line 1, column 239: number overflow parsing '1e999'");
    CHECK(errorOf(oneSlice(R"({"ph":"X","cat":"F","pid":0,"ts":1e308,"dur":1e308,"args":{"kind":"F","mb":0,)"
                           R"("stage":0}})")) ==
          "[trace.event] t.json: traceEvents[0].dur = 1e+308: ts + dur must be a finite number (µs)");
    CHECK(errorOf(oneSlice(R"({"ph":"X","cat":"F","pid":0,"dur":1,"args":{"kind":"F","mb":0,"stage":0}})")) ==
          "[trace.event] t.json: traceEvents[0].ts: missing; a timestamp must be a finite number >= 0 (µs)");
    CHECK(errorOf(oneSlice(
              R"({"ph":"X","cat":"F","pid":0,"ts":"7","dur":1,"args":{"kind":"F","mb":0,"stage":0}})")) ==
          "[trace.event] t.json: traceEvents[0].ts = \"7\": a timestamp must be a finite number >= 0 (µs)");
    CHECK(errorOf(oneSlice(
              R"({"ph":"M","name":"x"},{"ph":"X","cat":"B","name":"fwd","pid":0,"ts":0,"dur":1})")) ==
          "[trace.event] t.json: traceEvents[1].args.kind: missing; a 'B' slice carries its op in args "
          "(kind, mb, "
          "stage, pipe, chunk) or is named with an action string such as '2F0'");
    CHECK(errorOf(oneSlice(
              R"({"ph":"X","cat":"F","pid":0,"ts":0,"dur":1,"args":{"kind":"F","mb":1.5,"stage":0}})")) ==
          "[trace.event] t.json: traceEvents[0].args.mb = 1.5: must be an integer in 0..16777215");
    CHECK(errorOf(oneSlice(
              R"({"ph":"X","cat":"F","pid":0,"ts":0,"dur":1,"args":{"kind":"B","mb":1,"stage":0}})")) ==
          "[trace.event] t.json: traceEvents[0].args.kind = \"B\": must match the slice's cat \"F\"");
    CHECK(errorOf(oneSlice(R"({"ph":"X","cat":"F","pid":0,"ts":0,"dur":1,"args":{"kind":"F","stage":0}})")) ==
          "[trace.event] t.json: traceEvents[0].args.mb: missing; must be an integer in 0..16777215");
    CHECK(errorOf(oneSlice(
              R"({"ph":"X","cat":"F","pid":5,"ts":0,"dur":1,"args":{"kind":"F","mb":0,"stage":0}})")) ==
          "[trace.event] t.json: traceEvents[0].pid = 5: a device must be in [0, 2) (devices = 2)");
    CHECK(errorOf(oneSlice(
              R"({"ph":"X","cat":"F","pid":0,"ts":0,"dur":1,"args":{"kind":"F","mb":2,"stage":0}})")) ==
          "[trace.event] t.json: traceEvents[0].args.mb = 2: a micro-batch must be in [0, 2) (microbatches = "
          "2)");
    CHECK(errorOf(oneSlice(R"({"ph":"X","cat":"send","pid":0,"ts":0,"dur":1,)"
                           R"("args":{"kind":"send","comm":"activation","op":"F","mb":0,"stage":0}})")) ==
          "[trace.event] t.json: traceEvents[0].args.peer: missing; must be an integer in 0..2147483647 (the "
          "receiving device)");
    CHECK(errorOf(
              oneSlice(R"({"ph":"X","cat":"F","pid":0,"ts":0,"dur":1,"args":{"kind":"F","mb":0,"stage":0}},)"
                       R"({"ph":"X","cat":"F","name":"PP:0F0","pid":0,"ts":3,"dur":1})")) ==
          "[trace.event] t.json: traceEvents[1]: op 0F0 appears twice (first at traceEvents[0])");
    CHECK(errorOf(R"({"otherData":{"stagecraft_trace":2},"traceEvents":[]})") ==
          "[trace.version] t.json: otherData.stagecraft_trace = 2: this build reads Stagecraft trace version "
          "1");
    CHECK(errorOf(R"({"otherData":{"stagecraft_trace":1,"devices":-2},"traceEvents":[]})") ==
          "[trace.shape] t.json: otherData.devices = -2: must be an integer in 0..4096");
}

namespace {

/// `t` twice, one iteration after the other: the second shifted by `offset`.
struct TwoIterations {
    Timeline timeline;
    std::vector<std::uint32_t> iterations;
};

TwoIterations twoIterations(const Timeline& t, double offset) {
    TwoIterations two{t, std::vector<std::uint32_t>(t.events.size(), 0)};
    for (TimelineEvent e : t.events) {
        e.start += offset;
        e.end += offset;
        two.timeline.events.push_back(e);
        two.iterations.push_back(1);
    }
    return two;
}

/// `t` as the reader gives back its copy shifted by `offset`: moved back to start at 0.
Timeline shiftedBack(const Timeline& t, double offset) {
    double first = INFINITY;
    for (const TimelineEvent& e : t.events) first = std::min(first, e.start + offset);
    Timeline back = t;
    for (TimelineEvent& e : back.events) {
        e.start = (e.start + offset) - first;
        e.end = (e.end + offset) - first;
    }
    return back;
}

} // namespace

TEST_CASE("A trace of several iterations reads back one iteration at a time", "[trace][iterations]") {
    for (const std::string name : {"1f1b", "zb-v", "chimera"}) {
        INFO(name);
        const Timeline t = simulated(name, 0.25, true);
        // An offset that is not a round number, so that the shift back is not exact by accident.
        const double offset = t.makespan() + 0.3;
        const TwoIterations two = twoIterations(t, offset);
        ChromeTraceOptions options;
        options.iterations = two.iterations;
        const std::string text = timelineToChromeTrace(two.timeline, options);

        TraceInfo info;
        const Timeline first = parseChromeTrace(text, "t.json", TraceReadOptions{0}, &info);
        CHECK(first == t); // bit for bit
        CHECK(info.iterations == 2);
        CHECK(info.iterationIds == std::vector<int>{0, 1});
        CHECK(info.iteration == 0);
        CHECK(info.runJson.empty());

        // By default the last iteration, shifted to start at 0.
        const Timeline last = parseChromeTrace(text, "t.json", TraceReadOptions{}, &info);
        CHECK(info.iteration == 1);
        CHECK(last == shiftedBack(t, offset));
        CHECK(parseChromeTrace(text, "t.json") == last);

        // Every transfer's arrow ends on its consumer of the same iteration.
        const json doc = json::parse(text);
        std::map<long long, std::vector<double>> flows;
        std::size_t iterationArgs = 0;
        for (const json& e : doc["traceEvents"]) {
            if (e["ph"] == "s" || e["ph"] == "f") flows[e["id"].get<long long>()].push_back(e["ts"]);
            if (e["ph"] == "X") {
                REQUIRE(e["args"].contains("iteration"));
                const bool late = e["ts"].get<double>() >= offset;
                CHECK(e["args"]["iteration"] == (late ? 1 : 0));
                ++iterationArgs;
            }
        }
        CHECK(iterationArgs == two.timeline.events.size());
        std::size_t transfers = 0;
        for (const TimelineEvent& e : t.events)
            transfers += e.comm == CommKind::Activation || e.comm == CommKind::Gradient;
        CHECK(flows.size() == 2 * transfers);
        for (const auto& [id, ts] : flows) {
            REQUIRE(ts.size() == 2);
            CHECK((ts[0] >= offset) == (ts[1] >= offset));
        }

        // Without the iterations, the second copy of each op is refused.
        CHECK_THROWS_WITH(parseChromeTrace(timelineToChromeTrace(two.timeline), "t.json"),
                          Catch::Contains("[trace.event]") && Catch::Contains("appears twice"));
    }
}

TEST_CASE("An iteration the trace does not hold is refused with the ones it holds", "[trace][iterations]") {
    const Timeline t = simulated("1f1b", 0.25);
    TwoIterations two = twoIterations(t, 100);
    for (std::uint32_t& i : two.iterations) i = i == 0 ? 3 : 4;
    ChromeTraceOptions options;
    options.iterations = two.iterations;
    const std::string text = timelineToChromeTrace(two.timeline, options);
    auto errorWith = [&](const std::string& trace, int iteration) {
        try {
            parseChromeTrace(trace, "t.json", TraceReadOptions{iteration});
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(errorWith(text, 5) == "[trace.iteration] t.json: iteration 5 is not in the trace; it holds "
                                "iterations 3, 4");
    CHECK(errorWith(text, -2) == "[trace.iteration] t.json: iteration -2: must be -1 (the last) or an "
                                 "iteration id of the trace");
    CHECK(errorWith(timelineToChromeTrace(t), 0) ==
          "[trace.iteration] t.json: iteration 0 asked for, but no slice carries args.iteration: the trace "
          "is one iteration");
    CHECK(parseChromeTrace(text, "t.json", TraceReadOptions{3}) == t);

    // Slices with a bad iteration, or without one beside slices with one.
    const std::string slice =
        R"({"ph":"X","cat":"F","pid":0,"ts":0,"dur":1,"args":{"kind":"F","mb":0,"stage":0)";
    CHECK(
        errorOf(oneSlice(slice + R"(,"iteration":-1}})")) ==
        "[trace.event] t.json: traceEvents[0].args.iteration = -1: must be an integer in 0..2147483647 (the "
        "iteration of the slice)");
    CHECK(
        errorOf(oneSlice(slice + R"(,"iteration":1.5}})")) ==
        "[trace.event] t.json: traceEvents[0].args.iteration = 1.5: must be an integer in 0..2147483647 (the "
        "iteration of the slice)");
    CHECK(errorOf(oneSlice(slice + R"(,"iteration":"2"}})")) ==
          "[trace.event] t.json: traceEvents[0].args.iteration = \"2\": must be an integer in 0..2147483647 "
          "(the iteration of the slice)");
    CHECK(errorOf(oneSlice(slice + R"(,"iteration":2}},{"ph":"M"},)" +
                           R"({"ph":"X","cat":"F","name":"1F0","pid":1,"ts":3,"dur":1})")) ==
          "[trace.event] t.json: traceEvents[2].args.iteration: missing; when one slice carries an iteration "
          "every pipeline slice does (traceEvents[0] does)");
    const Timeline one = parseChromeTrace(oneSlice(slice + R"(,"iteration":2}})"), "t.json");
    REQUIRE(one.events.size() == 1);

    // One entry per event, and ids the reader can hold.
    options.iterations.pop_back();
    CHECK_THROWS_WITH(timelineToChromeTrace(two.timeline, options),
                      "[trace.write] iterations has " + std::to_string(two.timeline.events.size() - 1) +
                          " entries for " + std::to_string(two.timeline.events.size()) +
                          " events: give one iteration per event, or none");
    options.iterations = two.iterations;
    options.iterations[2] = 1u << 31;
    CHECK_THROWS_WITH(timelineToChromeTrace(two.timeline, options),
                      "[trace.write] iterations[2] = 2147483648: an iteration must be at most 2147483647");
}

TEST_CASE("The run's description is written as otherData.run and read back", "[trace][iterations]") {
    const Timeline t = simulated("1f1b", 0.25);
    ChromeTraceOptions options;
    options.runJson = R"({"backend": "cuda", "devices": [{"rank": 0, "clock_offset_us": -1.5}],
 "git": "abc123"})";
    const std::string text = timelineToChromeTrace(t, options);
    CHECK(text.find(R"("split_backward":false,"run":{"backend": "cuda", "devices": [{"rank": 0,)") !=
          std::string::npos);
    TraceInfo info;
    CHECK(parseChromeTrace(text, "t.json", {}, &info) == t);
    CHECK(json::parse(info.runJson) == json::parse(options.runJson));
    CHECK(info.iterations == 0);
    CHECK(info.iteration == -1);

    for (const std::string bad : {"[1, 2]", "{\"a\": 1", "\"text\"", "{} {}"}) {
        INFO(bad);
        options.runJson = bad;
        CHECK_THROWS_WITH(timelineToChromeTrace(t, options),
                          "[trace.write] runJson = " + bad + ": must be the text of a JSON object");
    }
    options.runJson = std::string(40, '[') + std::string(40, ']');
    CHECK_THROWS_WITH(timelineToChromeTrace(t, options), Catch::EndsWith(": nested deeper than 32 levels") &&
                                                             Catch::StartsWith("[trace.write]"));
    CHECK(
        errorOf(
            R"({"otherData":{"stagecraft_trace":1,"devices":1,"pipes":1,"stages_per_pipe":1,"microbatches":1,)"
            R"("chunks_per_device":1,"split_backward":false,"run":[1]},"traceEvents":[)"
            R"({"ph":"X","cat":"F","pid":0,"ts":0,"dur":1,"args":{"kind":"F","mb":0,"stage":0}}]})") ==
        "[trace.shape] t.json: otherData.run = [1]: must be a JSON object");
}

TEST_CASE("Annotations get their own threads and are skipped by the reader", "[trace][iterations]") {
    const Timeline t = simulated("1f1b", 0.25);
    ChromeTraceOptions options;
    options.annotations = {{1, Lane::Comm, "wait 0F1", "wait", 2, 3.5, 0},
                           {1, Lane::Comm, "wait 0F2", "wait", 3, 4, 0}, // overlaps the first
                           {0, Lane::Compute, "host stall", "stall", 0.5, 0.75, 7},
                           {1, Lane::Comm, "wait 0B0", "wait", 4, 5, 0}};
    const std::string text = timelineToChromeTrace(t, options);
    CHECK(parseChromeTrace(text, "t.json") == t);

    const json doc = json::parse(text);
    std::map<std::pair<int, int>, std::string> threadNames;
    std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
    std::map<std::string, std::pair<int, int>> annotationTrack; // name -> (pid, tid)
    for (const json& e : doc["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "thread_name") {
            const auto [it, inserted] =
                threadNames.emplace(std::pair<int, int>{e["pid"], e["tid"]}, e["args"]["name"]);
            CHECK(inserted); // tids never collide
        }
        if (e["ph"] != "X") continue;
        const double ts = e["ts"], dur = e["dur"];
        tracks[{e["pid"], e["tid"]}].emplace_back(ts, ts + dur);
        if (e["cat"] == "wait" || e["cat"] == "stall") {
            annotationTrack[e["name"]] = {e["pid"], e["tid"]};
            CHECK(e["args"] == json{{"iteration", e["cat"] == "stall" ? 7 : 0}});
        }
    }
    REQUIRE(annotationTrack.size() == 4);
    CHECK(threadNames[annotationTrack["wait 0F1"]] == "comm wait");
    CHECK(threadNames[annotationTrack["wait 0F2"]] == "comm wait 2");
    CHECK(threadNames[annotationTrack["wait 0B0"]] == "comm wait");
    CHECK(threadNames[annotationTrack["host stall"]] == "compute stall");
    CHECK(annotationTrack["host stall"].first == 0);
    for (auto& [track, slices] : tracks) {
        CHECK(threadNames.count(track) == 1);
        std::sort(slices.begin(), slices.end());
        for (std::size_t k = 1; k < slices.size(); ++k) CHECK(slices[k].first >= slices[k - 1].second);
    }

    // Anything the reader would take for an op is refused.
    options.annotations = {{0, Lane::Comm, "wait", "F", 0, 1, 0}};
    CHECK_THROWS_WITH(
        timelineToChromeTrace(t, options),
        "[trace.write] annotations[0].category = \"F\": F, B, W, R, GradSync, Optimizer and send are "
        "op slices to the reader; use another category");
    options.annotations = {{0, Lane::Comm, "x", "wait", 0, 1, 0}, {0, Lane::Comm, "PP:0F1", "wait", 0, 1, 0}};
    CHECK_THROWS_WITH(timelineToChromeTrace(t, options),
                      "[trace.write] annotations[1].name = \"PP:0F1\": an action string names an op to the "
                      "reader; use another name");
    options.annotations = {{0, Lane::Comm, "1B0", "wait", 0, 1, 0}};
    CHECK_THROWS_WITH(timelineToChromeTrace(t, options),
                      Catch::StartsWith("[trace.write] annotations[0].name"));
    options.annotations = {{4, Lane::Comm, "w", "wait", 0, 1, 0}};
    CHECK_THROWS_WITH(timelineToChromeTrace(t, options),
                      "[trace.write] annotations[0].device = 4: a device must be in [0, 4)");
    options.annotations = {{0, Lane::Comm, "w", "wait", 2, 1, 0}};
    CHECK_THROWS_WITH(timelineToChromeTrace(t, options),
                      Catch::StartsWith("[trace.write] annotations[0].end = 1.0") &&
                          Catch::EndsWith(": an end must be a finite number >= the start"));
}
