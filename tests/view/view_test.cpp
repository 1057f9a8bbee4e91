// stagecraft-view end to end, as a user runs it: screenshots of a trace, a schedule file and a
// project read back and checked for drawn bars in the palette's colours; a measured trace under
// its prediction coloured by error; bad, truncated and fuzzed files that give a message and exit
// status 2, never a crash; no display gives status 2 and says so. Run under xvfb-run by CTest.
#include "../core/torch_runs.h"
#include "eval/evaluation.h"
#include "eval/evaluation_input.h"
#include "file_io.h"
#include "io/chrome_trace.h"
#include "layout/error_colors.h"
#include "layout/palette.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <stb_image.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace stagecraft;
namespace fs = std::filesystem;

namespace {

const std::string kSource = STAGECRAFT_SOURCE_DIR;
const fs::path kOut = fs::path(STAGECRAFT_TEST_OUTPUT_DIR) / "view-test";

struct Run {
    int status = -1;      ///< exit status, or -1 when the process did not exit normally
    bool crashed = false; ///< killed by a signal (a crash) or unable to start
    std::string err;      ///< its stderr
};

std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

/// Runs the viewer; its stderr goes to `errName` in kOut (by default one file per process, since
/// CTest runs the test cases of this file in parallel).
Run runViewer(const std::string& args, const std::string& env = "", std::string errName = "") {
    fs::create_directories(kOut);
    if (errName.empty()) errName = "stderr-" + std::to_string(::getpid()) + ".txt";
    const fs::path errFile = kOut / errName;
    const std::string cmd =
        env + " " + quoted(STAGECRAFT_VIEW) + " " + args + " 2> " + quoted(errFile.string()) + " > /dev/null";
    const int raw = std::system(cmd.c_str());
    Run r;
    if (raw != -1 && WIFEXITED(raw)) {
        r.status = WEXITSTATUS(raw);
        // The shell reports a child killed by a signal as 128 + signal.
        r.crashed = r.status > 128;
    } else {
        r.crashed = true;
    }
    std::ifstream in(errFile);
    std::stringstream ss;
    ss << in.rdbuf();
    r.err = ss.str();
    return r;
}

struct Png {
    int w = 0, h = 0;
    std::vector<unsigned char> rgba;
    bool has(Color c) const {
        for (std::size_t i = 0; i + 3 < rgba.size(); i += 4)
            if (rgba[i] == c.r && rgba[i + 1] == c.g && rgba[i + 2] == c.b) return true;
        return false;
    }
    std::size_t distinctColors() const {
        std::set<std::uint32_t> colors;
        for (std::size_t i = 0; i + 3 < rgba.size(); i += 4)
            colors.insert(std::uint32_t(rgba[i]) << 16 | std::uint32_t(rgba[i + 1]) << 8 | rgba[i + 2]);
        return colors.size();
    }
    /// Share of pixels that differ from the top-left pixel (the background).
    double drawnShare() const {
        std::size_t drawn = 0;
        for (std::size_t i = 0; i + 3 < rgba.size(); i += 4)
            if (rgba[i] != rgba[0] || rgba[i + 1] != rgba[1] || rgba[i + 2] != rgba[2]) ++drawn;
        return double(drawn) / double(rgba.size() / 4);
    }
};

Png loadPng(const fs::path& path) {
    Png p;
    int n = 0;
    unsigned char* data = stbi_load(path.string().c_str(), &p.w, &p.h, &n, 4);
    if (!data) return p;
    p.rgba.assign(data, data + std::size_t(p.w) * std::size_t(p.h) * 4);
    stbi_image_free(data);
    return p;
}

/// Screenshot of the viewer on `files`: checks it ran cleanly and the PNG has the window's size.
Png screenshot(const std::string& name, const std::string& files, int expectStatus = 0) {
    const fs::path png = kOut / (name + ".png");
    fs::remove(png);
    const Run r =
        runViewer(files + " --screenshot " + quoted(png.string()) + " --frames 3 --width 1000 --height 640");
    INFO(r.err);
    CHECK_FALSE(r.crashed);
    CHECK(r.status == expectStatus);
    REQUIRE(fs::exists(png));
    Png p = loadPng(png);
    CHECK(p.w == 1000);
    CHECK(p.h == 640);
    return p;
}

const Palette& paper() {
    return findPalette("paper");
}

} // namespace

TEST_CASE("a Chrome trace opens and its bars are drawn", "[trace]") {
    const Png p =
        screenshot("trace", quoted(kSource + "/tests/fuzz/corpus/chrome_trace/stagecraft_1f1b.json"));
    CHECK(p.distinctColors() > 30);
    CHECK(p.drawnShare() > 0.10);
    CHECK(p.has(paper().compute[0][0])); // forward bars
    CHECK(p.has(paper().compute[0][1])); // backward bars
}

TEST_CASE("per-rank torch traces of several iterations open as one run each", "[trace]") {
    // torch's profiler traces (tests/data/torch-runs), several iterations per rank: read through core's
    // reader of foreign runs, not as Stagecraft traces (which refused the repeats of each op).
    const std::string dir = std::string(STAGECRAFT_TORCH_RUNS_DIR) + "/pp2_h512/";
    auto files = [&](const std::string& cls) { // one recording of the run (repeat 0)
        std::string out;
        for (const auto& f : test::torchRunRecording("pp2_h512", cls)) out += " " + quoted(f.string());
        return out;
    };
    const std::string dualPipe = test::torchRunRecording("pp2_h512", "DualPipeV").front().filename().string();
    const std::string interleaved =
        test::torchRunRecording("pp2_h512", "Interleaved1F1B").front().filename().string();
    const fs::path png = kOut / "torch-runs.png";
    // Two runs one after the other: the second's rank 0 starts the second run.
    const Run r = runViewer(quoted(dir + "DualPipeV_pp2_v2_m8_h512.csv") + files("DualPipeV") +
                            files("Interleaved1F1B") + " --screenshot " + quoted(png.string()) +
                            " --frames 3 --width 1000 --height 640");
    INFO(r.err);
    CHECK_FALSE(r.crashed);
    CHECK(r.status == 0);
    CHECK(r.err.find("appears twice") == std::string::npos);
    const auto secondRank = [](const std::string& name) {
        return name.substr(0, name.size() - 6) + "1.json";
    };
    CHECK(r.err.find(dualPipe + " + " + dir + secondRank(dualPipe)) != std::string::npos);
    CHECK(r.err.find(interleaved + " + " + dir + secondRank(interleaved)) != std::string::npos);
    const Png p = loadPng(png);
    CHECK(p.drawnShare() > 0.05);
}

TEST_CASE("a trace with memory counters gets a memory strip per device", "[trace]") {
    EvaluationInput input;
    input.path = kSource + "/tests/fuzz/corpus/schedule_json/zb_v.json";
    const AnalysisResult result = analyze(loadAnalysisRequest(input));
    REQUIRE(result.outcomes.size() == 1);
    const Prediction& pred = result.outcomes[0].prediction;
    ChromeTraceOptions options;
    for (std::size_t d = 0; d < pred.report.memory.devices.size(); ++d)
        options.counters.push_back(CounterTrack{int(d), "memory (GiB)", pred.report.memory.devices[d].curve});
    REQUIRE_FALSE(options.counters.empty());
    fs::create_directories(kOut);
    const fs::path trace = kOut / "with-counters.json";
    writeChromeTrace(pred.timeline, trace, options);
    const Png with = screenshot("trace-memory", quoted(trace.string()));
    const Color strip{94, 158, 196, 255};
    CHECK(with.has(strip));
    writeChromeTrace(pred.timeline, trace); // no counters: no strip
    const Png without = screenshot("trace-no-memory", quoted(trace.string()));
    CHECK_FALSE(without.has(strip));
}

TEST_CASE("a big trace is drawn while it loads, then whole", "[loading]") {
    // 1F1B on 8 devices, m = 16,384: 262,144 slices (~50 MB); the reader hands over blocks of
    // 16,384 slices, so the window can draw part of the trace long before the read ends.
    AnalysisRequest request;
    request.project = defaultProject();
    request.project.schedules = {"1f1b"};
    request.project.parallel.pp = 8;
    request.project.parallel.dp = 1;
    request.project.parallel.microbatches = 16384;
    const AnalysisResult result = analyze(request);
    REQUIRE(result.outcomes.size() == 1);
    fs::create_directories(kOut);
    const fs::path trace = kOut / "big-1f1b.json";
    writeChromeTrace(result.outcomes[0].prediction.timeline, trace);
    const fs::path partial = kOut / "loading.png";
    fs::remove(partial);
    const Run r = runViewer(quoted(trace.string()) + " --loading-screenshot " + quoted(partial.string()) +
                            " --screenshot " + quoted((kOut / "loaded.png").string()) +
                            " --frames 3 --width 1000 --height 640");
    INFO(r.err);
    REQUIRE(r.status == 0);
    // A partial chart was drawn (and saved) before the read ended.
    const std::size_t drawn = r.err.find("while loading");
    const std::size_t read = r.err.find("stagecraft-view: read ");
    REQUIRE(drawn != std::string::npos);
    REQUIRE(read != std::string::npos);
    CHECK(drawn < read);
    CHECK(r.err.find("first partial chart") < drawn);
    CHECK(r.err.find("partial charts drawn while loading") != std::string::npos);
    const Png p = loadPng(partial);
    CHECK(p.w == 1000);
    CHECK(p.has(paper().compute[0][0])); // forward bars
    CHECK(p.drawnShare() > 0.05);
    const Png whole = loadPng(kOut / "loaded.png");
    CHECK(whole.has(paper().compute[0][1])); // and the whole trace after
}

TEST_CASE("a schedule file opens, simulated with the default project or --project", "[schedule]") {
    const std::string csv = quoted(kSource + "/tests/data/torch-csv/zb1p_2rank_2stagep_compute.csv");
    const Png p = screenshot("schedule", csv);
    CHECK(p.distinctColors() > 30);
    CHECK(p.has(paper().compute[0][0]));
    CHECK(p.has(paper().compute[0][1]));
    CHECK(p.has(paper().compute[0][2])); // zero bubble: W bars
    // The same file timed with another project's costs, and drawn with another palette.
    const Png q = screenshot("schedule-project",
                             csv + " --project " + quoted(kSource + "/samples/bitpipe-bert.stagecraft.json") +
                                 " --palette colorblind");
    CHECK(q.has(findPalette("colorblind").compute[0][0]));
    CHECK_FALSE(q.has(paper().compute[0][0]));
}

TEST_CASE("a project opens with all its schedules; search selects an op", "[project]") {
    const Png p =
        screenshot("project", quoted(kSource + "/samples/bitpipe-bert.stagecraft.json") + " --search 3B5");
    CHECK(p.distinctColors() > 50);
    CHECK(p.drawnShare() > 0.2);
    CHECK(p.has(paper().compute[0][0]));
    CHECK(p.has(Color{255, 193, 7, 255})); // the selection's outline
}

TEST_CASE("hovering a bar or a fold shows a tooltip", "[project]") {
    const std::string project = quoted(kSource + "/samples/zb-6.2b.stagecraft.json");
    const Png plain = screenshot("hover-none", project);
    // Over a bar of the first panel, and over a fold of the interleaved panel (at fit its first
    // ops are narrower than 3 pixels): either way the window shows more than without the pointer.
    for (const char* at : {"300 60", "65 276"}) {
        const Png hovered = screenshot("hover", project + " --hover " + at);
        INFO("pointer at " << at);
        CHECK(hovered.rgba != plain.rgba);
    }
}

TEST_CASE("a measured trace under its prediction is coloured by each op's error", "[overlay]") {
    // The prediction of a schedule file, then a "measurement" whose device 1 runs 50 % slower.
    const std::string file = kSource + "/tests/fuzz/corpus/schedule_json/1f1b.json";
    EvaluationInput input;
    input.path = file;
    const AnalysisResult result = analyze(loadAnalysisRequest(input));
    REQUIRE(result.outcomes.size() == 1);
    Timeline measured = result.outcomes[0].prediction.timeline;
    measured.origin = "measured";
    for (TimelineEvent& e : measured.events)
        if (e.device == 1 && e.lane == Lane::Compute) e.end = e.start + e.duration() * 1.5;
    fs::create_directories(kOut);
    const fs::path trace = kOut / "measured.json";
    writeChromeTrace(measured, trace);

    const Png p = screenshot("overlay", quoted(file) + " " + quoted(trace.string()));
    const TimelineEvent& f0 = result.outcomes[0].prediction.timeline.events[0];
    CHECK(p.has(durationErrorColor(f0.duration(), f0.duration())));       // device 0: as predicted
    CHECK(p.has(durationErrorColor(f0.duration(), f0.duration() * 1.5))); // device 1: slower
    CHECK(p.has(paper().compute[0][0]));                                  // the prediction's own bars
}

TEST_CASE("--rows under-predicted: each device's measured row under its predicted row", "[overlay]") {
    // The same prediction and slower device 1 as above, as core's paired rows: one panel whose
    // measured boxes keep their kinds' colours (the hover says the error), as the app draws it.
    const std::string file = kSource + "/tests/fuzz/corpus/schedule_json/1f1b.json";
    EvaluationInput input;
    input.path = file;
    const AnalysisResult result = analyze(loadAnalysisRequest(input));
    REQUIRE(result.outcomes.size() == 1);
    Timeline measured = result.outcomes[0].prediction.timeline;
    measured.origin = "measured";
    for (TimelineEvent& e : measured.events)
        if (e.device == 1 && e.lane == Lane::Compute) e.end = e.start + e.duration() * 1.5;
    fs::create_directories(kOut);
    const fs::path trace = kOut / "measured-rows.json";
    writeChromeTrace(measured, trace);

    const std::string args = quoted(file) + " " + quoted(trace.string()) + " --rows under-predicted";
    const Png p = screenshot("measured-rows", args);
    const TimelineEvent& f0 = result.outcomes[0].prediction.timeline.events[0];
    CHECK(p.has(paper().compute[0][0])); // forward and backward boxes on both rows
    CHECK(p.has(paper().compute[0][1]));
    CHECK_FALSE(p.has(durationErrorColor(f0.duration(), f0.duration() * 1.5))); // no error colouring
    const Png overlaid = screenshot("measured-rows-overlaid", quoted(file) + " " + quoted(trace.string()));
    CHECK(overlaid.has(durationErrorColor(f0.duration(), f0.duration() * 1.5)));
    // Hovering a box of device 0's measured row (the panel's second row: its first backward)
    // shows core's text in a tooltip over the chart, under and right of the pointer.
    const Png hovered = screenshot("measured-rows-hover", args + " --hover 300 84");
    std::size_t changed = 0;
    for (int y = 90; y < 200; ++y)
        for (int x = 300; x < 650; ++x) {
            const std::size_t i = (std::size_t(y) * std::size_t(p.w) + std::size_t(x)) * 4;
            changed += hovered.rgba[i] != p.rgba[i] || hovered.rgba[i + 1] != p.rgba[i + 1];
        }
    CHECK(changed > 5000);
    const Run bad = runViewer(quoted(file) + " --rows under");
    CHECK(bad.status == 2);
    CHECK(bad.err.find("--rows") != std::string::npos);
}

TEST_CASE("per-rank traces of one run are drawn as the run, under its prediction", "[overlay]") {
    const std::string file = kSource + "/tests/fuzz/corpus/schedule_json/1f1b.json";
    EvaluationInput input;
    input.path = file;
    const AnalysisResult result = analyze(loadAnalysisRequest(input));
    REQUIRE(result.outcomes.size() == 1);
    const Timeline& whole = result.outcomes[0].prediction.timeline;
    fs::create_directories(kOut);
    std::string args = quoted(file);
    for (int rank = 0; rank < whole.shape.devices; ++rank) {
        Timeline part = whole;
        part.origin = "measured";
        std::erase_if(part.events, [&](const TimelineEvent& e) { return e.device != rank; });
        const fs::path path = kOut / ("rank" + std::to_string(rank) + ".json");
        writeChromeTrace(part, path);
        args += " " + quoted(path.string());
    }
    // Matched op by op once merged: every measured op as predicted, so neutral grey.
    const Png p = screenshot("per-rank", args);
    const TimelineEvent& f0 = whole.events[0];
    CHECK(p.has(durationErrorColor(f0.duration(), f0.duration())));
}

TEST_CASE("bad, truncated and fuzzed files give a message and status 2, never a crash", "[bad_input]") {
    fs::create_directories(kOut);
    SECTION("missing file") {
        const Png p = screenshot("missing", quoted((kOut / "no-such-file.json").string()), 2);
        CHECK(p.drawnShare() > 0.0); // the window shows the message
        const Run r = runViewer(quoted((kOut / "no-such-file.json").string()) + " --screenshot " +
                                quoted((kOut / "missing2.png").string()));
        CHECK(r.status == 2);
        CHECK(r.err.find("no-such-file.json") != std::string::npos);
    }
    SECTION("truncated trace: the message names the file, line and column") {
        const std::string text =
            readTextFile(kSource + "/tests/fuzz/corpus/chrome_trace/stagecraft_1f1b.json");
        const fs::path cut = kOut / "truncated.json";
        writeFileAtomically(cut, text.substr(0, text.size() / 2));
        const Run r =
            runViewer(quoted(cut.string()) + " --screenshot " + quoted((kOut / "truncated.png").string()));
        INFO(r.err);
        CHECK_FALSE(r.crashed);
        CHECK(r.status == 2);
        CHECK(r.err.find("truncated.json") != std::string::npos);
        CHECK(r.err.find("[trace.json]") != std::string::npos);
    }
    SECTION("a bad file beside a good one: the good one is still drawn") {
        const fs::path bad = kOut / "bad.csv";
        writeFileAtomically(bad, "0F0,0X1\n");
        const Png p = screenshot("bad-and-good",
                                 quoted(bad.string()) + " " +
                                     quoted(kSource + "/tests/fuzz/corpus/chrome_trace/stagecraft_zbv.json"),
                                 2);
        CHECK(p.has(paper().compute[0][0]));
    }
    SECTION("fuzzed traces and schedules") {
        std::mt19937 rng(20261124);
        const std::vector<std::string> seeds = {kSource +
                                                    "/tests/fuzz/corpus/chrome_trace/stagecraft_1f1b.json",
                                                kSource + "/tests/fuzz/corpus/chrome_trace/hand_edited.json",
                                                kSource + "/tests/fuzz/corpus/schedule_json/zb_v.json"};
        int k = 0;
        for (const std::string& seed : seeds) {
            const std::string text = readTextFile(seed);
            for (int round = 0; round < 2; ++round, ++k) {
                std::string mutated = text;
                for (int m = 0; m < 12; ++m) {
                    const std::size_t at = rng() % mutated.size();
                    const char bytes[] = "{}[]\":,-0123456789eE.x\n";
                    mutated[at] = bytes[rng() % (sizeof bytes - 1)];
                }
                const fs::path f = kOut / ("fuzz" + std::to_string(k) + ".json");
                writeFileAtomically(f, mutated);
                const Run r = runViewer(quoted(f.string()) + " --screenshot " +
                                        quoted((kOut / ("fuzz" + std::to_string(k) + ".png")).string()));
                INFO(f.string() << "\n" << r.err);
                CHECK_FALSE(r.crashed);
                CHECK((r.status == 0 || r.status == 2));
            }
        }
    }
}

TEST_CASE("--follow re-reads a file that changes, and keeps the last read of a half-written one",
          "[follow]") {
    fs::create_directories(kOut);
    const fs::path trace = kOut / "followed.json";
    const std::string first = readTextFile(kSource + "/tests/fuzz/corpus/chrome_trace/stagecraft_1f1b.json");
    const std::string second = readTextFile(kSource + "/tests/fuzz/corpus/chrome_trace/stagecraft_zbv.json");
    writeFileAtomically(trace, first);
    const fs::path next = kOut / "followed-next.json", cut = kOut / "followed-cut.json";
    writeFileAtomically(next, second);
    writeFileAtomically(cut, second.substr(0, second.size() / 3));
    // 600 frames of at least 10 ms with --follow. The file changes once the viewer has
    // read it (its "read ... in" line in runViewer's stderr file), and is cut once it has read it
    // again: the steps follow the viewer, not the clock, so a loaded machine does not reorder them.
    const std::string errName = "followed-stderr.txt";
    const std::string err = quoted((kOut / errName).string());
    auto waitFor = [&](const std::string& text) {
        return "for i in $(seq 200); do grep -q '" + text + "' " + err + " && break; sleep 0.05; done; ";
    };
    const std::string script = "(sleep 0.5; " + waitFor("followed.json in") + "cp " + quoted(next.string()) +
                               " " + quoted(trace.string()) + "; " + waitFor("re-read") + "cp " +
                               quoted(cut.string()) + " " + quoted(trace.string()) + ") & ";
    const fs::path png = kOut / "followed.png";
    const Run r = runViewer(quoted(trace.string()) + " --follow --screenshot " + quoted(png.string()) +
                                " --frames 600 --width 1000 --height 640",
                            script, errName);
    INFO(r.err);
    CHECK_FALSE(r.crashed);
    CHECK(r.status == 0);
    CHECK(r.err.find("re-read") != std::string::npos);
    CHECK(r.err.find("keeping the last read") != std::string::npos);
    // The second trace (ZB-V: W bars) is what is drawn at the end.
    CHECK(loadPng(png).has(paper().compute[0][2]));
}

TEST_CASE("without a display it exits 2 and says what to do", "[no_display]") {
    const Run r = runViewer(quoted(kSource + "/tests/fuzz/corpus/chrome_trace/stagecraft_1f1b.json"),
                            "env -u DISPLAY -u WAYLAND_DISPLAY");
    CHECK(r.status == 2);
    CHECK(r.err.find("no display") != std::string::npos);
    CHECK(r.err.find("xvfb-run") != std::string::npos);
}

TEST_CASE("the trace reading options are core's, with core's messages", "[no_display]") {
    // Parsed before any window opens: no display is needed to be told.
    const std::string trace = quoted(kSource + "/tests/fuzz/corpus/chrome_trace/stagecraft_1f1b.json");
    Run r = runViewer(trace + " --placement zigzag", "env -u DISPLAY -u WAYLAND_DISPLAY");
    CHECK(r.status == 2);
    CHECK(r.err.find("--placement zigzag: must be one of loop, v") != std::string::npos);
    r = runViewer(trace + " --iteration -3", "env -u DISPLAY -u WAYLAND_DISPLAY");
    CHECK(r.status == 2);
    CHECK(r.err.find("--iteration -3: must be a whole number") != std::string::npos);
    // Accepted options get as far as the display check.
    r = runViewer(trace + " --median --placement v", "env -u DISPLAY -u WAYLAND_DISPLAY");
    CHECK(r.status == 2);
    CHECK(r.err.find("no display") != std::string::npos);
}
