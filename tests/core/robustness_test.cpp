// Every reader of untrusted files on the inputs an attacker of our own parsers would try first:
// numbers that overflow, deep nesting, invalid UTF-8, and every truncation of a valid file. Each
// must end in a stagecraft::Error (a ParseError with line and column where the text is not
// JSON), never in another exception, a crash or a hang. Also: the streaming trace reader against
// the in-memory one and against nlohmann's parser, and file kinds told from the first bytes.
#include "../fuzz/json_pull_walk.h"
#include "error.h"
#include "file_io.h"
#include "file_kind.h"
#include "io/chrome_trace.h"
#include "io/json_scan.h"
#include "io/json_stream.h"
#include "io/nsys_trace.h"
#include "io/schedule_file.h"
#include "io/schedule_json.h"
#include "io/torch_comms_csv.h"
#include "io/torch_csv.h"
#include "io/torch_trace.h"
#include "io/trace_counters.h"
#include "project/project_json.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <unistd.h>

using namespace stagecraft;

namespace {

using Reader = std::function<void(std::string_view)>;

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

std::string corpusFile(const std::string& target, const std::string& name) {
    return readFile(std::filesystem::path(STAGECRAFT_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / target /
                    name);
}

/// "accepted", "error <id>" or "FOREIGN <type>: <what>" (an exception that is not ours).
std::string outcome(const Reader& read, std::string_view text) {
    try {
        read(text);
        return "accepted";
    } catch (const Error& e) {
        return "error " + e.id();
    } catch (const std::exception& e) {
        return std::string("FOREIGN ") + typeid(e).name() + ": " + e.what();
    }
}

/// The ParseError `read` throws on `text` (fails the test when it throws none or another).
ParseError parseErrorOf(const Reader& read, std::string_view text) {
    try {
        read(text);
    } catch (const ParseError& e) {
        return e;
    } catch (const std::exception& e) {
        FAIL("not a ParseError: " << e.what());
    }
    FAIL("accepted: " << std::string(text.substr(0, 80)));
    throw std::logic_error("unreachable");
}

void checkNoForeignExceptions(const Reader& read, std::string_view text) {
    const std::string result = outcome(read, text);
    INFO("input: " << std::string(text.substr(0, 120)));
    CHECK(result.rfind("FOREIGN", 0) != 0);
}

/// Every prefix of `text` (all of them when short, else 400 spread over it).
void checkTruncations(const Reader& read, const std::string& text) {
    const std::size_t step = std::max<std::size_t>(1, text.size() / 400);
    for (std::size_t cut = 0; cut < text.size(); cut += step)
        checkNoForeignExceptions(read, text.substr(0, cut));
}

const Reader kProject = [](std::string_view t) { (void)parseProject(t, "p.json"); };
const Reader kSchedule = [](std::string_view t) { (void)parseScheduleJson(t, "s.json"); };
const Reader kTrace = [](std::string_view t) { (void)parseChromeTrace(t, "t.json"); };
const Reader kTorchCsv = [](std::string_view t) { (void)parseTorchCsv(t, "t.csv"); };
const Reader kCommsCsv = [](std::string_view t) { (void)parseTorchCommsCsv(t, "c.csv"); };
const Reader kTorchTrace = [](std::string_view t) { (void)parseTorchTrace(t, "k.json"); };
const Reader kNsysJson = [](std::string_view t) { (void)parseNsysJson(t, "n.json"); };
const Reader kCounters = [](std::string_view t) { (void)parseTraceCounters(t, "c.json"); };

std::string nested(std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

} // namespace

TEST_CASE("A number that overflows is a ParseError with its line and column", "[robustness]") {
    // Found by fuzz_schedule_json: nlohmann's out_of_range escaped the reader.
    const ParseError schedule = parseErrorOf(kSchedule, "\n8675e95205660su");
    CHECK(schedule.id() == "schedule_json.syntax");
    CHECK(schedule.line() == 2);
    CHECK(schedule.column() == 13);
    CHECK_THAT(schedule.message(), Catch::Contains("number overflow parsing '8675e95205660'"));

    const ParseError project = parseErrorOf(kProject, "{\"stagecraft\": 1,\n \"costs\": {\"f\": -1e400}}");
    CHECK(project.id() == "project.json");
    CHECK(project.line() == 2);
    CHECK(project.column() > 0);

    const ParseError trace = parseErrorOf(kTrace, "[\n{\"ph\":\"X\",\"ts\":1e999}]");
    CHECK(trace.id() == "trace.json");
    CHECK(trace.line() == 2);
    CHECK_THAT(trace.message(), Catch::Contains("number overflow"));
    // Integers beyond 64 bits read as doubles (as nlohmann does), digits beyond a double overflow.
    CHECK(outcome(kTrace, "[{\"x\":" + std::string(400, '9') + "}]") == "error trace.json");
    CHECK(outcome(kTrace, "[{\"x\":184467440737095516160}]") == "error trace.empty");
    // The torch profiler and Nsight readers: the overflow's line and column, wherever it is.
    const ParseError kineto =
        parseErrorOf(kTorchTrace, "{\"traceEvents\": [\n{\"ph\": \"X\", \"ts\": 1e999}]}");
    CHECK(kineto.id() == "trace.json");
    CHECK(kineto.line() == 2);
    CHECK(kineto.column() == 24);
    CHECK_THAT(kineto.message(), Catch::Contains("a number too large for a double"));
    const ParseError skipped = parseErrorOf(kTorchTrace, "{\"other\": [1, 2e400], \"traceEvents\": []}");
    CHECK(skipped.line() == 1);
    CHECK(skipped.column() == 20);
    const ParseError nsys =
        parseErrorOf(kNsysJson, "{\"Type\": 59}\n{\"Type\": 59, \"NvtxEvent\": {\"Timestamp\": -1e400}}");
    CHECK(nsys.line() == 2);
    CHECK(nsys.column() == 47);
    const ParseError counters = parseErrorOf(kCounters, "[\n{\"ph\":\"C\",\"args\":{\"v\":1e999}}]");
    CHECK(counters.id() == "trace.json");
    CHECK(counters.line() == 2);
    CHECK_THAT(counters.message(), Catch::Contains("number overflow"));

    // CSV cells with indices beyond every limit.
    CHECK(outcome(kTorchCsv, "99999999999999999999999F0\n") == "error csv.cell");
    CHECK(outcome(kTorchCsv, "0F99999999999999999999999\n") == "error csv.cell");
    CHECK(outcome(kCommsCsv, "0SEND_F99999999999999999999\n") != "accepted");
    checkNoForeignExceptions(kCommsCsv, "0SEND_F99999999999999999999\n");
}

TEST_CASE("Deep nesting is refused without exhausting the stack", "[robustness]") {
    for (const std::size_t depth : {65, 1000, 200000}) {
        CHECK(outcome(kProject, nested(depth)) == "error project.json");
        CHECK(outcome(kSchedule, nested(depth)) == "error schedule_json.syntax");
        CHECK(outcome(kTrace, nested(depth)) == "error trace.json");
        CHECK(outcome(kTrace, "{\"traceEvents\":[{\"args\":" + nested(depth) + "}]}") == "error trace.json");
        checkNoForeignExceptions(kTorchCsv, std::string(depth, '(') + "0F0" + std::string(depth, ')'));
        checkNoForeignExceptions(kCommsCsv, std::string(depth, '(') + "0F0" + std::string(depth, ')'));
        CHECK(outcome(kTorchTrace, nested(depth)) == "error trace.json");
        CHECK(outcome(kTorchTrace, "{\"traceEvents\":[{\"args\":" + nested(depth) + "}]}") ==
              "error trace.json");
        CHECK(outcome(kNsysJson, "{\"Type\":59,\"x\":" + nested(depth) + "}") == "error trace.json");
        // nlohmann's SAX parser keeps no recursion: JSON of any depth is read (and a counter at the
        // bottom of it is not one), without exhausting the stack.
        CHECK(outcome(kCounters, "{\"traceEvents\":[{\"args\":" + nested(depth) + "}]}") == "accepted");
        checkNoForeignExceptions(kCounters, nested(depth));
    }
}

TEST_CASE("Invalid UTF-8 is refused with its position", "[robustness]") {
    for (const std::string bad : {"\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}) {
        const ParseError project = parseErrorOf(kProject, "{\"stagecraft\": 1, \"name\": \"a" + bad + "\"}");
        CHECK(project.line() == 1);
        CHECK(project.column() > 20);
        const ParseError schedule =
            parseErrorOf(kSchedule, "{\"stagecraft_schedule\": 1, \"name\": \"" + bad + "\"}");
        CHECK(schedule.line() == 1);
        const ParseError trace = parseErrorOf(kTrace, "[{\"ph\":\"X\",\"name\":\"" + bad + "\"}]");
        CHECK(trace.id() == "trace.json");
        CHECK(trace.line() == 1);
        CHECK(trace.column() >= 20);
        // Messages stay valid UTF-8 (they quote the bytes as \xNN).
        CHECK(nlohmann::json(std::string(trace.what())).dump().size() > 0);
        checkNoForeignExceptions(kTorchCsv, "0F0," + bad + "\n");
        checkNoForeignExceptions(kCommsCsv, "0F0," + bad + "\n");
        // In a value the reader skips as much as in one it reads.
        for (const std::string& kineto : {"{\"traceEvents\": [{\"name\": \"PP:" + bad + "\"}]}",
                                          "{\"traceEvents\": [{\"skipped\": [\"" + bad + "\"]}]}"}) {
            const ParseError e = parseErrorOf(kTorchTrace, kineto);
            CHECK(e.id() == "trace.json");
            CHECK(e.line() == 1);
            CHECK(e.column() >= 31); // the bad bytes start at column 31 or 32
            CHECK_THAT(e.message(), Catch::Contains("invalid UTF-8 in a string"));
        }
        const ParseError nsys =
            parseErrorOf(kNsysJson, "{\"Type\":59,\"NvtxEvent\":{\"Text\":\"" + bad + "\"}}");
        CHECK(nsys.column() >= 33); // where the bad bytes start
        const ParseError counters = parseErrorOf(kCounters, "[{\"ph\":\"C\",\"name\":\"" + bad + "\"}]");
        CHECK(counters.id() == "trace.json");
        CHECK(counters.column() >= 20);
    }
    // Lone surrogates in escapes, as nlohmann refuses them.
    CHECK(outcome(kTrace, R"([{"name":"\udc00"}])") == "error trace.json");
    CHECK(outcome(kTrace, R"([{"name":"\ud800x"}])") == "error trace.json");
    CHECK(outcome(kTrace, R"([{"name":"\ud83d\ude00"}])") == "error trace.empty");
}

TEST_CASE("Every truncation of a valid file is refused cleanly", "[robustness]") {
    checkTruncations(kProject, corpusFile("project_json", "manual_stages.json"));
    checkTruncations(kSchedule, corpusFile("schedule_json", "zb_v.json"));
    checkTruncations(kTrace, corpusFile("chrome_trace", "stagecraft_two_iterations.json"));
    checkTruncations(kTrace, corpusFile("chrome_trace", "torch_bare_array.json"));
    checkTruncations(kTorchCsv, corpusFile("torch_csv", "torch_dualpipev.csv"));
    checkTruncations(kCommsCsv, corpusFile("torch_comms_csv", "zbv_p4_m8.csv"));
    checkTruncations(kTorchTrace, corpusFile("torch_trace", "kineto_gpu.json"));
    checkTruncations(kTorchTrace, corpusFile("torch_trace", "dump_chrometrace.json"));
    checkTruncations(kNsysJson, corpusFile("nsys_json", "zb_1f1b_2rank_2mb.json"));
    checkTruncations(kCounters, corpusFile("chrome_trace", "stagecraft_two_iterations.json"));
    // A JSON text cut inside a value is a syntax error at the end of the text.
    const std::string text = corpusFile("schedule_json", "1f1b.json");
    const ParseError cut = parseErrorOf(kSchedule, text.substr(0, text.size() / 2));
    CHECK(cut.id() == "schedule_json.syntax");
    CHECK(cut.line() > 1);
}

namespace {

/// A temporary file that is removed with the object.
struct TempFile {
    std::filesystem::path path;
    explicit TempFile(const std::string& name)
        : path(std::filesystem::temp_directory_path() /
               ("stagecraft-robustness-" + std::to_string(::getpid()) + "-" + name)) {}
    void write(std::string_view text) const { writeFileAtomically(path, text); }
    ~TempFile() {
        std::error_code ec;
        std::filesystem::remove(path, ec);
    }
};

std::string mutate(const std::string& seed, std::mt19937& rng) {
    static const std::string structural = ",:[]{}\"\\ 0123456789eE.-+tfnu\xff\xc3\xa9";
    std::string s = seed;
    const int edits = 1 + int(rng() % 3);
    for (int e = 0; e < edits; ++e) {
        const std::size_t at = s.empty() ? 0 : rng() % (s.size() + 1);
        switch (rng() % 4) {
        case 0:
            if (at < s.size()) s[at] = char(rng() % 256);
            break;
        case 1:
            s.insert(s.begin() + std::ptrdiff_t(at), structural[rng() % structural.size()]);
            break;
        case 2:
            if (at < s.size()) s.erase(at, 1 + rng() % 4);
            break;
        case 3:
            s.resize(at);
            break;
        }
    }
    return s;
}

/// Whether JsonStreamScanner accepts `text` read from a file in blocks of `block` bytes; nullopt when
/// it is nested too deep for it (nlohmann has no limit).
std::optional<bool> scannerAccepts(const std::filesystem::path& path, std::size_t block) {
    ByteSource in(path, block);
    JsonStreamScanner scanner(in, 64);
    try {
        scanner.skipByteOrderMark();
        scanner.skipValue(0);
        scanner.expectEnd();
        return true;
    } catch (const JsonSyntaxError&) {
        return false;
    } catch (const JsonDepthError&) {
        return std::nullopt;
    }
}

} // namespace

TEST_CASE("The streaming JSON scanner accepts what nlohmann accepts, in blocks of any size", "[robustness]") {
    const TempFile file("scanner.json");
    std::mt19937 rng(2024);
    std::vector<std::string> seeds;
    for (const char* target : {"chrome_trace", "schedule_json", "project_json"})
        for (const auto& entry : std::filesystem::directory_iterator(
                 std::filesystem::path(STAGECRAFT_SOURCE_DIR) / "tests/fuzz/corpus" / target))
            seeds.push_back(readFile(entry.path()).substr(0, 3000));
    seeds.push_back("\xEF\xBB\xBF[1, -0, 0.5e-3, 1E+2, \"\\u00e9\\ud83d\\ude00\", true, false, null, {}]");
    int compared = 0;
    for (const std::string& seed : seeds)
        for (int i = 0; i < 60; ++i) {
            const std::string text = i == 0 ? seed : mutate(seed, rng);
            file.write(text);
            const bool expected = nlohmann::json::accept(text);
            for (const std::size_t block : {1, 3, 64, 4096}) {
                const auto accepted = scannerAccepts(file.path, block);
                if (!accepted) continue;
                INFO("block " << block << ", text: " << text.substr(0, 200));
                REQUIRE(*accepted == expected);
                ++compared;
            }
        }
    CHECK(compared > 2000);
}

namespace {

std::string pullWalkText(std::string_view text, const std::string& source) {
    return fuzz::pullWalkOf([&] { return JsonScanner(text, source, "trace.json"); });
}

std::string pullWalkFile(const std::filesystem::path& path, std::size_t block) {
    return fuzz::pullWalkOf([&] { return JsonScanner(path, "trace.json", block); });
}

} // namespace

TEST_CASE("The pull JSON reader reads a file in blocks of any size as it reads the text", "[robustness]") {
    // The torch profiler and Nsight Systems readers pull from a file in 1 MiB blocks: every value,
    // every key and every error (with its line and column) must not depend on where a block ends.
    const TempFile file("pull.json");
    std::mt19937 rng(77);
    std::vector<std::pair<std::string, bool>> seeds; // a text, and whether it is one JSON value
    for (const char* target : {"torch_trace", "nsys_json", "chrome_trace"})
        for (const auto& entry : std::filesystem::directory_iterator(
                 std::filesystem::path(STAGECRAFT_SOURCE_DIR) / "tests/fuzz/corpus" / target))
            // Nsight's export is a value per line.
            seeds.emplace_back(readFile(entry.path()).substr(0, 2500), std::string(target) != "nsys_json");
    seeds.emplace_back(
        "\xEF\xBB\xBF{\"k\":[1, -0, 0.5e-3, 1E+2, 1e-400, \"\\u00e9\\ud83d\\ude00 \xc3\xa9\", true, false, "
        "null, {}], \"\\\"key\\n\": \"12.5\"}\n{\"second\": 2}",
        false);
    int errors = 0, compared = 0;
    for (const auto& [seed, oneValue] : seeds)
        for (int i = 0; i < 40; ++i) {
            const std::string text = i == 0 ? seed : mutate(seed, rng);
            file.write(text);
            const std::string expected = pullWalkText(text, file.path.string());
            errors += expected.find(" | ") != std::string::npos;
            for (const std::size_t block : {1, 2, 7, 64}) {
                INFO("block " << block << ", text: " << text.substr(0, 200));
                REQUIRE(pullWalkFile(file.path, block) == expected);
                REQUIRE(fuzz::pullWalkOf([&] {
                            return JsonScanner(text, file.path.string(), "trace.json", block);
                        }) == expected);
                ++compared;
            }
            // One JSON value accepted whole exactly when nlohmann accepts it (a NUL byte ends
            // nlohmann's text, and nlohmann has no depth limit: those texts are left out).
            if (oneValue && text.find('\0') == std::string::npos && text.find("[[[[") == std::string::npos) {
                INFO("text: " << text.substr(0, 200));
                CHECK((expected.find(" | ") == std::string::npos) == nlohmann::json::accept(text));
            }
        }
    CHECK(compared > 1000);
    CHECK(errors > 100);
    CHECK(pullWalkText(seeds.back().first, "s.json") ==
          "{k:[1 -0 0.00050000000000000001 100 0 \"\xC3\xA9\xF0\x9F\x98\x80 "
          "\xC3\xA9\"...{}]\"key\n:\"12.5\"}{second:2 }");
}

TEST_CASE("The pull JSON reader names the line, the column and what it expected", "[robustness]") {
    auto error = [](const std::string& text) { return pullWalkText(text, "t.json"); };
    CHECK(error("{\"a\": 1,\n \"b\" 2}") ==
          "{a:1  | [trace.json] t.json line 2, column 6: expected ':' after the key \"b\"");
    CHECK(error("[1,\n2,\n]") == "[1 2  | [trace.json] t.json line 3, column 1: a trailing ',' before ']'");
    CHECK(error("[\"ab\x01\"]") ==
          "[ | [trace.json] t.json line 1, column 5: a control character inside a string");
    CHECK(error("[\"\xC3(\"]") == "[ | [trace.json] t.json line 1, column 4: invalid UTF-8 in a string");
    CHECK(error("[1e999]") == "[ | [trace.json] t.json line 1, column 7: a number too large for a double");
    CHECK(error("{\"a\": tru}") ==
          "{a: | [trace.json] t.json line 1, column 10: expected a value (true, false or null?)");
    CHECK(error("[\"\\ud800x\"]") == "[ | [trace.json] t.json line 1, column 9: a \\u escape of a high "
                                     "surrogate must be followed by a low one");
    CHECK(error("{\"a\"") == "{ | [trace.json] t.json line 1, column 5: expected ':' after the key \"a\"");
    CHECK(error(std::string(65, '[')).ends_with("line 1, column 65: JSON nested deeper than 64 levels"));
}

TEST_CASE("Torch profiler and Nsight JSON traces read from a file equal those read from the text",
          "[robustness]") {
    const std::filesystem::path data = std::filesystem::path(STAGECRAFT_SOURCE_DIR) / "tests/data";
    auto same = [](const std::vector<RankTrace>& a, const std::vector<RankTrace>& b) {
        REQUIRE(a.size() == b.size());
        for (std::size_t r = 0; r < a.size(); ++r) {
            CHECK(a[r].source == b[r].source);
            CHECK(a[r].rank == b[r].rank);
            CHECK(a[r].clock == b[r].clock);
            REQUIRE(a[r].ranges.size() == b[r].ranges.size());
            for (std::size_t i = 0; i < a[r].ranges.size(); ++i) {
                CHECK(a[r].ranges[i].start == b[r].ranges[i].start);
                CHECK(a[r].ranges[i].end == b[r].ranges[i].end);
                CHECK(a[r].ranges[i].mb == b[r].ranges[i].mb);
                CHECK(a[r].ranges[i].event == b[r].ranges[i].event);
            }
        }
    };
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(data / "torch-traces")) {
        if (entry.path().extension() != ".json") continue;
        same(readTorchTrace(entry.path()), parseTorchTrace(readFile(entry.path()), entry.path().string()));
        ++files;
    }
    for (const auto& entry : std::filesystem::directory_iterator(data / "nsys")) {
        if (entry.path().extension() != ".json") continue;
        same(readNsysJson(entry.path()), parseNsysJson(readFile(entry.path()), entry.path().string()));
        ++files;
    }
    CHECK(files >= 5);
    // An error names the file with the line and column the text gives.
    const TempFile file("cut-kineto.json");
    const std::string text = corpusFile("torch_trace", "kineto_gpu.json");
    file.write(text.substr(0, text.size() * 2 / 3));
    const ParseError fromText =
        parseErrorOf([&](std::string_view t) { (void)parseTorchTrace(t, file.path.string()); },
                     text.substr(0, text.size() * 2 / 3));
    try {
        (void)readTorchTrace(file.path);
        FAIL("a cut trace was read");
    } catch (const ParseError& e) {
        CHECK(std::string(e.what()) == fromText.what());
        CHECK(e.line() > 1);
    }
}

TEST_CASE("A NUL byte after the value ends the text, as nlohmann reads it", "[robustness]") {
    // Found by fuzz_json_stream (corpus/json_stream/nul_after_value.json): the scanner refused
    // what nlohmann accepts.
    const TempFile file("nul.json");
    const std::string text("\"selective\"\0\x0f,", 14);
    REQUIRE(nlohmann::json::accept(text));
    file.write(text);
    for (const std::size_t block : {1, 5, 64}) CHECK(scannerAccepts(file.path, block) == true);
    file.write(std::string("[1\0]", 4));
    CHECK(scannerAccepts(file.path, 64) == false);
    CHECK(outcome(kTrace, std::string("[]\0garbage", 11)) == "error trace.empty");
}

TEST_CASE("A compute+comms CSV with two byte order marks is refused at its first cell", "[robustness]") {
    // Found by fuzz_torch_comms_csv (corpus/torch_comms_csv/two_boms.csv): the compute-only
    // reader stripped the second BOM that the comms reader kept in the first cell, and an
    // internal check threw std::logic_error.
    const std::string text = corpusFile("torch_comms_csv", "two_boms.csv");
    REQUIRE(text.substr(0, 6) == "\xEF\xBB\xBF\xEF\xBB\xBF");
    const ParseError comms = parseErrorOf(kCommsCsv, text);
    CHECK(comms.id() == "csv.cell");
    CHECK(comms.line() == 1);
    CHECK(comms.column() == 1);
    CHECK(outcome(kTorchCsv, text) == outcome(kCommsCsv, text));
    // One BOM is fine.
    CHECK(outcome(kCommsCsv, text.substr(3)) == "accepted");
}

TEST_CASE("A torch profiler trace with a correlation id beyond any integer is read without it",
          "[robustness]") {
    // Found by a campaign of fuzz_torch_trace (corpus/torch_trace/
    // regression-correlation-out-of-int64.json): a kernel's "correlation": 3.2e47 was converted
    // to int64, undefined behaviour that UBSan reports. Such an id is now no id: the kernel is not
    // tied to a range, and the file reads as it would without it.
    const Reader torchTrace = [](std::string_view t) { (void)parseTorchTrace(t, "t.json"); };
    const std::string text = corpusFile("torch_trace", "regression-correlation-out-of-int64.json");
    REQUIRE(text.find("322222222222222222222222222222222222222222222220") != std::string::npos);
    checkNoForeignExceptions(torchTrace, text);
    std::string withoutIt = text;
    const std::string huge = "\"correlation\": 322222222222222222222222222222222222222222222220";
    withoutIt.replace(withoutIt.find(huge), huge.size(), "\"correlation\": -1");
    CHECK(outcome(torchTrace, text) == outcome(torchTrace, withoutIt));
    for (const char* id : {"1e300", "9007199254740993", "-5", "NaN"}) {
        std::string other = text;
        other.replace(other.find(huge), huge.size(), std::string("\"correlation\": ") + id);
        checkNoForeignExceptions(torchTrace, other);
    }
}

TEST_CASE("FlatObject reads members as nlohmann does", "[robustness]") {
    const std::string text =
        R"({"ph":"X","ts":12.5,"pid":18446744073709551615,"n":-3,"big":18446744073709551616,"tiny":1e-400,)"
        R"("s":"a\"b\\c\u00e9","args":{"kind":"F","mb":7,"deep":{"x":[1,{"y":2}]}},"ph":"Y","t":true,"z":null})";
    FlatObject object;
    object.read(text);
    const nlohmann::json expected = nlohmann::json::parse(text);
    const FlatValue& root = object.root();
    for (const auto& [key, value] : expected.items()) {
        INFO("key " << key);
        const FlatValue* got = object.find(root, key);
        REQUIRE(got != nullptr);
        CHECK(nlohmann::json::parse(got->raw) == value);
        if (value.is_string()) CHECK(got->text == value.get<std::string>());
        if (value.is_number()) CHECK(got->number == value.get<double>());
        CHECK(got->isInteger() == value.is_number_integer());
        CHECK((got->type == FlatValue::Type::Unsigned) == value.is_number_unsigned());
    }
    CHECK(object.find(root, "ph")->text == "Y"); // the last of a repeated key, as nlohmann keeps
    const FlatValue* args = object.find(root, "args");
    REQUIRE(args != nullptr);
    CHECK(object.find(*args, "mb")->unsignedValue == 7);
    const FlatValue* deep = object.find(*args, "deep");
    REQUIRE(deep != nullptr);
    CHECK(deep->isObject());
    CHECK(object.find(*deep, "x") == nullptr); // deeper than the reader looks
    CHECK(object.find(root, "missing") == nullptr);
}

TEST_CASE("readChromeTrace streams a file to the same result as parseChromeTrace", "[robustness][trace]") {
    const TempFile file("trace.json");
    std::mt19937 rng(7);
    for (const auto& entry : std::filesystem::directory_iterator(
             std::filesystem::path(STAGECRAFT_SOURCE_DIR) / "tests/fuzz/corpus/chrome_trace")) {
        const std::string seed = readFile(entry.path());
        for (int i = 0; i < 80; ++i) {
            const std::string text = i == 0 ? seed : mutate(seed, rng);
            file.write(text);
            std::string fromText, fromFile;
            Timeline a, b;
            try {
                a = parseChromeTrace(text, file.path.string());
            } catch (const Error& e) {
                fromText = e.what();
            }
            try {
                b = readChromeTrace(file.path);
            } catch (const Error& e) {
                fromFile = e.what();
            }
            INFO(entry.path().filename().string() << " mutation " << i);
            // A file whose first bytes say it is no trace is refused before it is read.
            if (fromFile.find("[io.kind]") != std::string::npos) continue;
            CHECK(fromFile == fromText);
            CHECK(a == b);
        }
    }
}

TEST_CASE("The file-kind sniffer reads any head, cut anywhere, within its bytes", "[robustness]") {
    // Every file the CLI, the GUI and the trace overlay are given passes through it first. Each
    // head is copied into a buffer of its exact size, so that AddressSanitizer (CI's sanitizer
    // build) sees a read past it.
    std::mt19937 rng(5);
    int heads = 0;
    for (const auto& dir : std::filesystem::directory_iterator(std::filesystem::path(STAGECRAFT_SOURCE_DIR) /
                                                               "tests/fuzz/corpus"))
        for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
            const std::string seed = readFile(entry.path()).substr(0, 600);
            for (std::size_t cut = 0; cut <= seed.size(); ++cut) {
                const std::string text = cut % 2 ? mutate(seed.substr(0, cut), rng) : seed.substr(0, cut);
                const std::unique_ptr<char[]> exact(new char[text.size()]);
                std::copy(text.begin(), text.end(), exact.get());
                const FileKind kind = sniffTextKind(std::string_view(exact.get(), text.size()));
                CHECK(!fileKindName(kind).empty());
                (void)sqliteCutShort(std::string_view(exact.get(), text.size()), text.size());
                ++heads;
            }
        }
    CHECK(heads > 10000);
}

TEST_CASE("File kinds are told from the first bytes", "[robustness]") {
    CHECK(sniffTextKind("{\"stagecraft\": 1, \"name\": \"x\"}") == FileKind::Project);
    CHECK(sniffTextKind("\xEF\xBB\xBF {\n \"stagecraft_schedule\": 1") == FileKind::ScheduleJson);
    CHECK(sniffTextKind("{\"name\": \"a\", \"stagecraft_programs\": 1") == FileKind::ProgramsJson);
    CHECK(sniffTextKind("{\"displayTimeUnit\":\"ns\",\n\"otherData\":{") == FileKind::ChromeTrace);
    CHECK(sniffTextKind("{\"schemaVersion\": 1, \"deviceProperties\": [") == FileKind::ChromeTrace);
    CHECK(sniffTextKind("{\"x\": {\"traceEvents\": 1}, \"traceEvents\": [") == FileKind::ChromeTrace);
    CHECK(sniffTextKind("[{\"ph\":\"X\"") == FileKind::ChromeTrace);
    CHECK(sniffTextKind("\x1f\x8b\x08") == FileKind::Gzip);
    CHECK(sniffTextKind("0F0,0B0\n") == FileKind::TorchCsv);
    CHECK(sniffTextKind("\xEF\xBB\xBF"
                        "0F0, 0F1 ,,(3F1;3I0)OVERLAP_F_B,4SEND_B12,0REDUCE_GRAD\r\n1F0") ==
          FileKind::TorchCsv);
    CHECK(sniffTextKind(",,,\n") == FileKind::Unknown);
    CHECK(sniffTextKind("name,value\nx,1\n") == FileKind::Unknown);
    CHECK(sniffTextKind("0F0,0F1") == FileKind::TorchCsv); // a one-row file without a newline
    CHECK(sniffTextKind(std::string(kSniffBytes, '0')) == FileKind::Unknown); // a line the head cuts
    CHECK(sniffTextKind("{\"Type\":59,\"NvtxEvent\":{\"Type\":59,\"Timestamp\":\"0\"}}\n{") ==
          FileKind::NsysJson);
    CHECK(sniffTextKind("{\"type\":\"String\",\"Type\":1,\"data\":[\"F0\"]}\n") == FileKind::NsysJson);
    CHECK(sniffTextKind(std::string("SQLite format 3\0\x10\0", 19)) == FileKind::Sqlite);
    // An SQLite header of 4 pages of 4096 bytes (valid page count: change counter = version).
    std::string sqlite(100, '\0');
    sqlite.replace(0, 16, std::string("SQLite format 3\0", 16));
    sqlite[16] = 0x10;
    sqlite[27] = sqlite[95] = 7; // change counter, version-valid-for
    sqlite[31] = 4;              // pages
    CHECK(sqliteCutShort(sqlite, 16384) == "");
    CHECK(sqliteCutShort(sqlite, 16383) ==
          "the file is cut short: its header counts 4 pages of 4096 bytes (16384 "
          "bytes), the file has 16383 (a copy that did not finish?)");
    CHECK(sqliteCutShort(sqlite.substr(0, 50), 50).starts_with("the file is cut short: 50 bytes"));
    sqlite[95] = 8; // a page count an older SQLite left stale: not to be trusted
    CHECK(sqliteCutShort(sqlite, 100) == "");
    CHECK(sqliteCutShort("{\"traceEvents\": []}", 20) == "");
    CHECK(isTraceKind(FileKind::NsysJson));
    CHECK(isTraceKind(FileKind::Sqlite));
    CHECK_FALSE(isTraceKind(FileKind::TorchCsv));
    CHECK(sniffTextKind("{\"name\": \"cut") == FileKind::Unknown);
    CHECK(sniffTextKind("") == FileKind::Unknown);

    const TempFile trace("kind.json");
    trace.write("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[]}");
    try {
        (void)readProject(trace.path);
        FAIL("a trace read as a project");
    } catch (const Error& e) {
        CHECK(e.id() == "io.kind");
        CHECK_THAT(e.message(), Catch::Contains("is a Chrome trace, not a project") &&
                                    Catch::Contains("stagecraft-cli overlay PROJECT TRACE"));
    }
    CHECK_THROWS_WITH(readScheduleFile(trace.path),
                      Catch::Contains("[io.kind]") && Catch::Contains("not a schedule file"));
    const TempFile project("kind.stagecraft.json");
    project.write("{\"stagecraft\": 1}");
    CHECK_THROWS_WITH(readChromeTrace(project.path),
                      Catch::Contains("is a Stagecraft project, not a Chrome trace"));
    // The kinds of the foreign files users hold: each refused where it does not belong, with
    // what it is and what reads it; each read where it does.
    const std::filesystem::path data = std::filesystem::path(STAGECRAFT_SOURCE_DIR) / "tests/data";
    const std::filesystem::path csv = data / "torch-csv/GPipe_pp4_m8_v1.csv";
    CHECK(sniffFileKind(csv) == FileKind::TorchCsv);
    CHECK_THROWS_WITH(readChromeTrace(csv),
                      Catch::Contains("is a torch.distributed.pipelining schedule CSV, not a Chrome trace") &&
                          Catch::Contains("schedule CSVs are read by stagecraft-cli validate"));
    CHECK_NOTHROW(readScheduleFile(csv));
    const std::filesystem::path nsys = data / "nsys/zb_1f1b_2rank_2mb.json";
    CHECK(sniffFileKind(nsys) == FileKind::NsysJson);
    CHECK_THROWS_WITH(readProject(nsys), Catch::Contains("is an Nsight Systems JSON export, not a project") &&
                                             Catch::Contains("stagecraft-cli overlay PROJECT TRACE"));
    CHECK(sniffFileKind(data / "nsys/zb_1f1b_2rank_2mb.sqlite") == FileKind::Sqlite);
    const TempFile misnamed("export.csv"); // an Nsight export given the name of a schedule
    misnamed.write(readFile(data / "nsys/zb_1f1b_2rank_2mb.sqlite"));
    CHECK_THROWS_WITH(readScheduleFile(misnamed.path), Catch::Contains("is an SQLite database") &&
                                                           Catch::Contains("not a torch CSV schedule"));
    int csvFiles = 0;
    for (const auto& entry : std::filesystem::directory_iterator(data / "torch-csv"))
        if (entry.path().extension() == ".csv") {
            INFO(entry.path().filename().string());
            CHECK(sniffFileKind(entry.path()) == FileKind::TorchCsv);
            ++csvFiles;
        }
    CHECK(csvFiles > 20);
}
