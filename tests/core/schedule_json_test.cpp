// Stagecraft's schedule JSON: exact round trips of every generator (bidirectional ones, gradient
// syncs and optimizer steps included) and bad files refused with the JSON path or line/column.
#include "error.h"
#include "generators/registry.h"
#include "io/schedule_json.h"
#include "io/schedule_json_packed.h"
#include "ir/op_name.h"
#include "passes/iteration_tail.h"
#include "test_support.h"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace stagecraft;
using stagecraft::test::forEachAcceptedParams;

namespace {

/// errorSummary of parsing `text` as a schedule JSON file.
std::string jsonError(const std::string& text) {
    return test::errorSummary([&] { parseScheduleJson(text, "s.json"); });
}

/// A valid 2-device 1F1B file with `order` (the JSON of the "order" array) spliced in.
std::string withOrder(const std::string& order, const std::string& extra = "") {
    return R"({"stagecraft_schedule": 1, "name": "t", "devices": 2, "pipes": 1, "stages_per_pipe": 2,
 "microbatches": 2, "split_backward": false,)" +
           extra + R"(
 "placement": [[{"device": 0, "chunk": 0}, {"device": 1, "chunk": 0}]],
 "order": )" +
           order + "}";
}

const std::string kGoodOrder = R"([["0F0", "0F1", "0B0", "0B1"], ["1F0", "1B0", "1F1", "1B1"]])";

} // namespace

TEST_CASE("JSON round trip of every generator over p 1..8, m 1..16, v 1..4", "[schedule-files]") {
    int checked = 0;
    forEachAcceptedParams(8, 16, 4, [&](const GeneratorInfo& info, const ScheduleParams& params) {
        INFO(info.name << " p=" << params.pp << " m=" << params.microbatches << " v=" << params.chunks);
        const Schedule s = generateSchedule(info.name, params);
        REQUIRE(parseScheduleJson(scheduleToJson(s), "rt.json") == s);
        // With a gradient sync and an optimizer step for every stage replica.
        const Schedule tail = addIterationTail(s, {});
        REQUIRE(parseScheduleJson(scheduleToJson(tail), "rt.json") == tail);
        ++checked;
    });
    // The CSV sweep's 2412 single-pipe schedules, zb-auto's 128, 1f1b-recompute's 128, seq1f1b's and
    // terapipe's 128 each (p 1..8 x m 1..16; torch's CSV has no R and no slices), plus chimera and the two
    // bitpipe orders (p even, m % p == 0: p = 2, 4, 6, 8 give 8 + 4 + 2 + 2 values of m) 16 each, and
    // dualpipe (p even, m even and m >= 2p: 7 + 5 + 3 + 1) 16, and seq1f1b-i (its 2 slices dividing
    // p, m % p == 0, as chimera: 16) at chunks 2, 3 and 4.
    CHECK(checked == 2412 + 128 + 128 + 2 * 128 + 3 * 16 + 16 + 3 * 16);
}

TEST_CASE("JSON text of a bidirectional schedule with syncs and optimizer steps", "[schedule-files]") {
    const Schedule s = addIterationTail(generateSchedule("chimera", {2, 2, 1}), {});
    CHECK(scheduleToJson(s) == R"({
  "stagecraft_schedule": 1,
  "name": "chimera",
  "devices": 2,
  "pipes": 2,
  "stages_per_pipe": 2,
  "microbatches": 2,
  "chunks_per_device": 2,
  "split_backward": false,
  "placement": [
    [{"device": 0, "chunk": 0}, {"device": 1, "chunk": 0}],
    [{"device": 1, "chunk": 1}, {"device": 0, "chunk": 1}]
  ],
  "order": [
    ["0F0", "p1:1F1", "p1:1B1", "0B0", "p1:1SYNC", "0SYNC", "0OPT", "p1:1OPT"],
    ["p1:0F1", "1F0", "1B0", "p1:0B1", "1SYNC", "p1:0SYNC", "1OPT", "p1:0OPT"]
  ]
}
)");
    CHECK(opName(Op{OpKind::W, 1, 0, 3, 7}, true) == "p1:3W7");
    CHECK(opName(Op{OpKind::B, 0, 0, 3, 7}, true) == "3I7");
    CHECK(opName(Op{OpKind::Optimizer, 0, 0, 12, -1}, false) == "12OPT");
}

TEST_CASE("JSON: name and chunks_per_device are optional", "[schedule-files]") {
    const std::string text = R"({"stagecraft_schedule": 1, "devices": 2, "pipes": 1, "stages_per_pipe": 2,
 "microbatches": 2, "split_backward": false,
 "placement": [[{"device": 0, "chunk": 0}, {"device": 1, "chunk": 0}]], "order": )" +
                             kGoodOrder + "}";
    Schedule s = parseScheduleJson(text, "s.json");
    CHECK(s.name == "schedule-json");
    CHECK(s.chunksPerDevice == 1);
    s.name = "1f1b";
    CHECK(s == generateSchedule("1f1b", {2, 2, 1}));
}

TEST_CASE("Malformed JSON is refused with line and column", "[schedule-files]") {
    CHECK(jsonError("{\"a\": 1,\n  \"b\": x}") == "schedule_json.syntax 2:8 | s.json line 2, column 8: "
                                                  "malformed JSON: syntax error while parsing value - "
                                                  "invalid literal; last read: '\"b\": x'");
    CHECK(jsonError("") == "schedule_json.syntax 1:1 | s.json line 1, column 1: malformed JSON: syntax error "
                           "while parsing value - unexpected end of input; expected '[', '{', or a literal");
    CHECK(jsonError("{\"stagecraft_schedule\": 1} x") ==
          "schedule_json.syntax 1:28 | s.json line 1, column 28: malformed JSON: syntax error while parsing "
          "value "
          "- invalid literal; last read: '1} x'; expected end of input");
    CHECK(
        jsonError("{\"a\": \"[[[\", \"b\":\n" + std::string(20, '[')) ==
        "schedule_json.syntax 2:16 | s.json line 2, column 16: JSON nested deeper than 16 levels: a schedule "
        "file nests 4");
}

TEST_CASE("Bad schedule JSON fields are refused naming the JSON path", "[schedule-files]") {
    CHECK(jsonError("[1]") == "schedule_json.field [] | s.json: expected a JSON object with "
                              "\"stagecraft_schedule\": 1, found array");
    CHECK(jsonError("{}") ==
          "schedule_json.field [stagecraft_schedule] | s.json: stagecraft_schedule: missing: a "
          "Stagecraft schedule file starts with \"stagecraft_schedule\": 1");
    CHECK(jsonError(R"({"stagecraft_schedule": 2})") ==
          "schedule_json.version [stagecraft_schedule] | s.json: stagecraft_schedule: 2: this build reads "
          "version 1");
    CHECK(jsonError(withOrder(kGoodOrder, R"( "split_backwards": true,)")) ==
          "schedule_json.field [split_backwards] | s.json: split_backwards: unknown key; the keys are "
          "stagecraft_schedule, name, devices, pipes, stages_per_pipe, microbatches, chunks_per_device, "
          "split_backward, placement, order, overlapped, whole_backward, sequence_slices");
    CHECK(jsonError(R"({"stagecraft_schedule": 1, "devices": "4"})") ==
          "schedule_json.field [devices] | s.json: devices: \"4\" is not an integer in 1..4096");
    CHECK(jsonError(R"({"stagecraft_schedule": 1, "devices": 2, "pipes": 3})") ==
          "schedule_json.field [pipes] | s.json: pipes: 3 is not an integer in 1..2");
    CHECK(jsonError(R"({"stagecraft_schedule": 1, "devices": 2, "pipes": 1, "stages_per_pipe": 2})") ==
          "schedule_json.field [microbatches] | s.json: microbatches: missing");
    CHECK(jsonError(withOrder("[]", R"( "chunks_per_device": 0,)")) ==
          "schedule_json.field [chunks_per_device] | s.json: chunks_per_device: 0 is not an integer in "
          "1..65536");
    CHECK(jsonError(withOrder(R"([["0F0"]])")) ==
          "schedule_json.field [order] | s.json: order: has 1 entries, expected 2 (devices, one op list per "
          "device)");
    CHECK(jsonError(withOrder(R"([["0F0", "0F1", "0B0", "0B1"], ["1F0", "1B0", 7, "1B1"]])")) ==
          "schedule_json.field [order[1][2]] | s.json: order[1][2]: 7 is not an op string such as \"0F1\"");
    CHECK(jsonError(withOrder(R"([["0F0", "0F1", "0B0", "0B1"], ["1F0", "1B0", "1F1x", "1B1"]])")) ==
          "schedule_json.field [order[1][2]] | s.json: order[1][2]: '1F1x': unexpected 'x' after the "
          "micro-batch "
          "number (or '<stage>SYNC', '<stage>OPT')");
    CHECK(jsonError(withOrder(R"([["0F0", "0F1", "0I0", "0B1"], []])")) ==
          "schedule_json.field [order[0][2]] | s.json: order[0][2]: '0I0' is an input-gradient backward, but "
          "split_backward is false: write it as a whole backward B");
    CHECK(jsonError(withOrder(R"([["0F0", "0F2"], []])")) ==
          "schedule_json.field [order[0][1]] | s.json: order[0][1]: '0F2': micro-batch 2 is outside 0..1");
    CHECK(jsonError(withOrder(R"([["0F0", "p1:0F1"], []])")) ==
          "schedule_json.field [order[0][1]] | s.json: order[0][1]: 'p1:0F1': pipe 1 is outside 0..0");
    CHECK(jsonError(withOrder(R"([["0F0", "2SYNC"], []])")) ==
          "schedule_json.field [order[0][1]] | s.json: order[0][1]: '2SYNC': stage 2 is outside 0..1");
    CHECK(jsonError(withOrder(R"([["0F0", "0F1SYNC"], []])")) ==
          "schedule_json.field [order[0][1]] | s.json: order[0][1]: '0F1SYNC': a gradient sync is "
          "'<stage>SYNC' "
          "and an optimizer step '<stage>OPT', with 'p1:' in front for the second pipe, as in 'p1:3SYNC'");
    const std::string splitFile =
        R"({"stagecraft_schedule": 1, "devices": 1, "pipes": 1, "stages_per_pipe": 1, "microbatches": 1,
 "split_backward": true, "placement": [[{"device": 0, "chunk": 0}]], "order": [["0F0", "0B0"]]})";
    CHECK(jsonError(splitFile) ==
          "schedule_json.field [order[0][1]] | s.json: order[0][1]: '0B0' is a whole "
          "backward, but split_backward is true: write its input-gradient part I followed "
          "by its weight-gradient part W");
    CHECK(
        jsonError(R"({"stagecraft_schedule": 1, "devices": 2, "pipes": 1, "stages_per_pipe": 2,
 "microbatches": 2, "split_backward": false, "placement": [[{"device": 0, "chunk": 0}, {"device": 2}]]})") ==
        "schedule_json.field [placement[0][1]] | s.json: placement[0][1]: {\"device\":2} is not a stage slot "
        "{\"device\": d, \"chunk\": c}");
    CHECK(jsonError(R"({"stagecraft_schedule": 1, "devices": 2, "pipes": 1, "stages_per_pipe": 2,
 "microbatches": 2, "split_backward": false, "placement": [[{"device": 0, "chunk": 0}, {"device": 2, "chunk": 0}]]})") ==
          "schedule_json.field [placement[0][1].device] | s.json: placement[0][1].device: 2 is not an "
          "integer in "
          "0..1");
    CHECK(jsonError(R"({"stagecraft_schedule": 1, "devices": 2, "pipes": 1, "stages_per_pipe": 2,
 "microbatches": 2, "split_backward": "yes"})") == "schedule_json.field [split_backward] | s.json: "
                                                   "split_backward: \"yes\" is not true or false (whether B "
                                                   "and W are separate ops)");
}

TEST_CASE("Well-formed schedule JSON the validator refuses names the device and position",
          "[schedule-files]") {
    CHECK(jsonError(withOrder(R"([["0F0", "0F1", "0B1", "0B0", "0B1"], ["1F0", "1B0", "1F1", "1B1"]])")) ==
          "schedule_json.schedule [order[0][4]] | s.json: order[0][4] ('0B1'): device 0 position 4: "
          "0B1 appears twice: first on device 0 at position 2");
    CHECK(jsonError(withOrder(R"([["0F0", "0F1", "0B0", "0B1"], ["1B0", "1F0", "1F1", "1B1"]])")) ==
          "schedule_json.schedule [order[1][0]] | s.json: order[1][0] ('1B0'): device 1 position 0: 1B0 "
          "runs before its dependency 1F0 at position 1 of the same device");
    CHECK(jsonError(withOrder(R"([["0F0", "0B0", "0F1", "0B1"], ["1F1", "1B1", "1F0", "1B0"]])")) ==
          "schedule_json.schedule [order[0][1]] | s.json: order[0][1] ('0B0'): deadlock: devices wait on "
          "each other in a ring: device 0 waits at position 1 (0B0) for 1B0 at position 3 of device 1; "
          "device "
          "1 waits at position 0 (1F1) for 0F1 at position 2 of device 0");
    CHECK(
        jsonError(withOrder(R"([["0F0", "0F1", "0B0"], ["1F0", "1B0", "1F1"]])")) ==
        "schedule_json.schedule [order] | s.json: order: 6 compute ops, too few for 2 stages per pipe and 2 "
        "micro-batches: every micro-batch runs an F and a backward on each stage of its pipe (at least 8 "
        "ops)");
}

TEST_CASE("Schedule JSON op lists are read packed, and files the packed pass does not cover as before",
          "[schedule-files]") {
    // A big file's op lists become strings packed in one buffer (schedule_json_packed.h), not a
    // document node per op.
    const Schedule s = addIterationTail(generateSchedule("dualpipev", {4, 10, 1}), {});
    const std::string text = scheduleToJson(s);
    const auto packed = readPackedScheduleJson(text);
    REQUIRE(packed);
    REQUIRE(packed->order);
    REQUIRE(packed->order->size() == 4);
    std::size_t ops = 0;
    for (const PackedStrings& list : *packed->order) ops += list.size();
    CHECK(ops == s.opCount());
    REQUIRE(packed->overlapped);
    CHECK(packed->overlapped->size() == s.overlapped.size());
    CHECK(packed->order->front().at(packed->chars, 0) == "0F0");
    CHECK(packed->rest.at("order").is_null()); // there, packed
    CHECK(packed->rest.at("devices") == 4);
    CHECK(parseScheduleJson(text, "t.json") == s);

    // Not covered: the document path reads them, with its own messages.
    const std::string key = "\"order\": [";
    const std::size_t at = text.find(key);
    REQUIRE(at != std::string::npos);
    auto withOrder = [&](const std::string& replacement) {
        std::string t = text;
        const std::size_t end = t.find("\n  ]", at) + 4; // the order array's closing bracket
        t.replace(at, end - at, "\"order\": " + replacement);
        return t;
    };
    for (const std::string& bad :
         {std::string("[[\"0F0\", 7]]"), std::string("[\"0F0\"]"), std::string("[[{\"op\": 1}]]")}) {
        INFO(bad);
        const std::string t = withOrder(bad);
        CHECK_FALSE(readPackedScheduleJson(t));
        CHECK_THROWS_AS(parseScheduleJson(t, "t.json"), ValidationError);
    }
    // Something other than an array stays in the document, where the reader refuses it.
    const auto object = readPackedScheduleJson(withOrder("{\"0\": []}"));
    REQUIRE(object);
    CHECK_FALSE(object->order);
    CHECK(object->rest.at("order").is_object());
    CHECK_THROWS_AS(parseScheduleJson(withOrder("{\"0\": []}"), "t.json"), ValidationError);
    try {
        parseScheduleJson(withOrder("[[\"0F0\", 7], [], [], []]"), "t.json");
        FAIL("accepted");
    } catch (const ValidationError& e) {
        CHECK(e.field() == "order[0][1]");
        CHECK(std::string(e.what()).find("7 is not an op string") != std::string::npos);
    }
    // A member given twice: the document's rule (the later one counts) decides, as before.
    std::string twice = text;
    twice.insert(1, "\"order\": 5, ");
    CHECK(readPackedScheduleJson(twice)); // the later list is packed
    CHECK(parseScheduleJson(twice, "t.json") == s);
    std::string twiceLater = text;
    twiceLater.insert(twiceLater.rfind('}'), ", \"order\": 5");
    CHECK_FALSE(readPackedScheduleJson(twiceLater));
    CHECK_THROWS_AS(parseScheduleJson(twiceLater, "t.json"), ValidationError);
    // Bad JSON: the document path gives line and column.
    CHECK_FALSE(readPackedScheduleJson(text.substr(0, text.size() / 2)));
    CHECK_THROWS_AS(parseScheduleJson(text.substr(0, text.size() / 2), "t.json"), ParseError);
}
