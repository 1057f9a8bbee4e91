// The export's option table and its parse to an ExportRequest (core/eval/export_request.h): what
// `stagecraft-cli export` and `stagecraft --export` both hand over, checked once with exact
// messages naming the option, the value and the rule.
#include "error.h"
#include "eval/export_files.h"
#include "eval/export_request.h"
#include "eval/trace_read_options.h"
#include "file_io.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <unistd.h>

using namespace stagecraft;

namespace {

OptionValues given(std::initializer_list<std::pair<const char*, const char*>> pairs) {
    OptionValues values;
    for (const auto& [name, value] : pairs) values.add(name, value);
    return values;
}

std::string refusal(const OptionValues& values) {
    try {
        exportRequestFrom("", "out.svg", values);
    } catch (const ValidationError& e) {
        return e.id() + " " + e.field() + ": " + e.message();
    }
    return "accepted";
}

} // namespace

TEST_CASE("the export's option table names each option once and describes it", "[export]") {
    std::set<std::string_view> names;
    std::set<char> shortNames;
    for (const OptionSpec& spec : exportOptions()) {
        INFO(spec.name);
        CHECK(names.insert(spec.name).second);
        if (!spec.alias.empty()) CHECK(names.insert(spec.alias).second);
        if (spec.shortName != 0) CHECK(shortNames.insert(spec.shortName).second);
        CHECK(spec.help.size() > 20);
        CHECK(spec.valueName.empty() == (spec.arity == OptionArity::Flag));
    }
    // What the issue asks both programs to take.
    for (const char* name : {"set", "unit-time", "width", "columns", "iteration", "trace", "rows", "dpi"})
        CHECK(names.count(name) == 1);
}

TEST_CASE("how a trace is read is one table and one translation for every front end", "[export]") {
    // The export takes the trace reading options as they are (the CLI's overlay and calibrate and
    // the viewer add the same table to their parsers).
    for (const OptionSpec& spec : traceReadOptions()) {
        INFO(spec.name);
        const auto& all = exportOptions();
        const auto it =
            std::find_if(all.begin(), all.end(), [&](const OptionSpec& s) { return s.name == spec.name; });
        REQUIRE(it != all.end());
        CHECK(it->help == spec.help);
        CHECK(it->valueName == spec.valueName);
    }
    EvaluationInput input;
    readTraceOptions(given({{"iteration", "2"}, {"placement", "v"}}), input);
    MeasuredTraceOptions options = measuredTraceOptions(input);
    CHECK(options.run.pick == IterationPick::One);
    CHECK(options.run.iteration == 2);
    CHECK(options.run.placement == ChunkPlacement::V);
    readTraceOptions(given({{"median", ""}}), input);
    options = measuredTraceOptions(input);
    CHECK(options.run.pick == IterationPick::Median);
    try {
        readTraceOptions(given({{"iteration", "-1"}}), input);
        FAIL("a negative iteration was accepted");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "option.value");
        CHECK(std::string(e.what()).find("--iteration -1") != std::string::npos);
    }
}

TEST_CASE("options become the request core's export takes", "[export]") {
    const ExportRequest request = exportRequestFrom("p.stagecraft.json", "fig.svg",
                                                    given({{"schedule", "1f1b,,zb-h1"},
                                                           {"set", "parallel.pp=4"},
                                                           {"set", "parallel.microbatches=8"},
                                                           {"trace", "rank0.json"},
                                                           {"trace", "rank1.json"},
                                                           {"iteration", "3"},
                                                           {"median", ""},
                                                           {"placement", "v"},
                                                           {"palette", "slides"},
                                                           {"columns", "single"},
                                                           {"dpi", "150"},
                                                           {"comm", ""},
                                                           {"no-subtitle", ""},
                                                           {"no-cost-line", ""},
                                                           {"rows", "under-predicted"},
                                                           {"unit-time", ""}}));
    CHECK(request.input.path == "p.stagecraft.json");
    CHECK(request.output == "fig.svg");
    CHECK(request.input.schedules == std::vector<std::string>{"1f1b", "zb-h1"});
    CHECK(request.input.sets == std::vector<std::string>{"parallel.pp=4", "parallel.microbatches=8"});
    CHECK(request.input.tracePaths == std::vector<std::string>{"rank0.json", "rank1.json"});
    CHECK(request.input.traceIteration == 3);
    CHECK(request.input.traceMedian);
    CHECK(request.input.chunkPlacement == ChunkPlacement::V);
    CHECK(request.widthPt == kSingleColumnPt);
    CHECK(request.dpi == 150);
    ChartSettings chart;
    chart.palette = "slides";
    chart.showComm = true;
    chart.subtitle = false;
    chart.costLine = false;
    chart.unitTime = true;
    chart.measuredRows = MeasuredRows::UnderPredicted;
    CHECK(request.chart == chart);

    // Nothing given: the defaults every front end documents.
    const ExportRequest plain = exportRequestFrom("", "x.svg", {});
    CHECK(plain.widthPt == kDoubleColumnPt);
    CHECK(plain.dpi == 300);
    CHECK(plain.chart == ChartSettings{});
    CHECK(plain.input.traceIteration == -1);
    CHECK(exportRequestFrom("", "x.svg", given({{"width", "640.5"}})).widthPt == 640.5);
}

TEST_CASE("a bad option value names the option, the value and the rule", "[export]") {
    CHECK(refusal(given({{"width", "50"}})) ==
          "option.value --width: --width 50: must be a number from 100 to 5000");
    CHECK(refusal(given({{"width", "5e3x"}})) ==
          "option.value --width: --width 5e3x: must be a number from 100 to 5000");
    CHECK(refusal(given({{"dpi", "nan"}})) ==
          "option.value --dpi: --dpi nan: must be a number from 30 to 1200");
    CHECK(refusal(given({{"iteration", "1.5"}})) ==
          "option.value --iteration: --iteration 1.5: must be a whole number from 0 to 2147483647");
    CHECK(refusal(given({{"rows", "under"}})) ==
          "option.value --rows: --rows under: must be one of overlaid, under-predicted");
    CHECK(refusal(given({{"palette", "neon"}})) ==
          "option.value --palette: --palette neon: must be one of paper, slides, colorblind, greyscale");
    CHECK(refusal(given({{"placement", "zigzag"}})) ==
          "option.value --placement: --placement zigzag: must be one of loop, v");
    CHECK(refusal(given({{"columns", "triple"}})) ==
          "option.value --columns: --columns triple: must be one of single, double");
    CHECK(refusal(given({{"palette", "paper"}, {"palette", "slides"}})) ==
          "option.value --palette: --palette slides: given 2 times; give it once");
    CHECK(
        refusal(given({{"width", "300"}, {"columns", "single"}})) ==
        "option.conflict --columns: --columns single with --width 300: give one of them (--columns sets the "
        "width)");
}

TEST_CASE("writeExport checks the output's extension before it evaluates anything", "[export]") {
    ExportRequest request;
    request.input.path = "no-such-project.stagecraft.json"; // would fail later, when read
    request.output = "chart.bmp";
    try {
        writeExport(request, nullptr);
        FAIL("accepted .bmp");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "cli.format");
        CHECK_THAT(e.message(), Catch::StartsWith("'chart.bmp': unknown extension; use .json"));
    }
}

TEST_CASE("writeExport refuses PDF without a raster writer and writes SVG itself", "[export]") {
    const auto dir =
        std::filesystem::temp_directory_path() / ("stagecraft-export-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    ExportRequest request = exportRequestFrom("", (dir / "c.pdf").string(), given({{"schedule", "1f1b"}}));
    CHECK_THROWS_WITH(writeExport(request, nullptr), Catch::Contains("need the Qt renderer"));
    CHECK_FALSE(std::filesystem::exists(dir / "c.pdf"));
    request.output = (dir / "c.svg").string();
    const auto written = writeExport(request, nullptr);
    REQUIRE(written.size() == 1);
    CHECK(readTextFile(written.front()).rfind("<?xml", 0) == 0);
    // An order holds one schedule: a project's list of several is refused, not cut to its first.
    ExportRequest two = exportRequestFrom("", (dir / "o.csv").string(), given({{"schedule", "1f1b,zb-h1"}}));
    CHECK_THROWS_WITH(writeExport(two, nullptr), Catch::Contains("holds one schedule, not 2"));
    std::filesystem::remove_all(dir);
}
