#include "eval/export_request.h"

#include "error.h"
#include "eval/trace_read_options.h"
#include "layout/palette.h"

#include <array>
#include <climits>

namespace stagecraft {

namespace {

using enum OptionArity;

// The order is the order of --help in both programs: these, the trace reading options
// (eval/trace_read_options.h), then kChartOptions.
constexpr std::array kInputOptions{
    OptionSpec{"schedule", "", 's', One, "NAME[,NAME...]",
               "Registered schedules to export, a comma list (see `stagecraft-cli list`); default: the "
               "project's own list; not with a schedule file"},
    OptionSpec{"project", "", 0, One, "PROJECT",
               "With a schedule file: the project whose model, cluster and costs time it (default: the "
               "built-in project)"},
    OptionSpec{"set", "", 0, Repeated, "PATH=VALUE",
               "Override a project field: --set parallel.pp=8 (repeatable, applied in order)"},
    OptionSpec{"serialize-overlap", "", 0, Flag, "",
               "Read torch OVERLAP_F_B cells as their sub-actions one after the other"},
    OptionSpec{"trace", "", 0, Many, "FILE",
               "Measured trace files of one run, drawn over their schedule in charts: a Stagecraft trace, "
               "torch profiler traces (one per rank: repeat --trace), torch _dump_chrometrace, Nsight "
               "Systems exports"},
};

constexpr std::array kChartOptions{
    OptionSpec{"palette", "", 0, One, "NAME", "Chart style: paper (default), slides, colorblind, greyscale"},
    OptionSpec{"width", "width-pt", 0, One, "PT", "Chart width in points, 100 to 5000 (default 500)"},
    OptionSpec{"columns", "", 0, One, "single|double",
               "Chart width of a two-column paper's figure: single (240 pt) or double (500 pt); not with "
               "--width"},
    OptionSpec{"dpi", "", 0, One, "DPI", "Resolution of PNG charts, 30 to 1200 (default 300)"},
    OptionSpec{"comm", "", 0, Flag, "", "Draw communication lanes in charts"},
    OptionSpec{"no-subtitle", "", 0, Flag, "", "Charts: panel titles without their key figures"},
    OptionSpec{"no-cost-line", "", 0, Flag, "", "Charts: no cost assumptions under the chart"},
    OptionSpec{"rows", "", 0, One, "overlaid|under-predicted",
               "Charts with a measured trace: 'overlaid' (outlines over the predicted bars, the default) or "
               "'under-predicted' (each device's measured row under its predicted row)"},
    OptionSpec{"unit-time", "", 0, Flag, "",
               "Charts: the papers' step grid, the schedules timed with unit costs (F = B = W = 1)"},
};

const std::vector<OptionSpec>& allOptions() {
    static const std::vector<OptionSpec> all = [] {
        std::vector<OptionSpec> out(kInputOptions.begin(), kInputOptions.end());
        for (const OptionSpec& s : traceReadOptions()) out.push_back(s);
        out.insert(out.end(), kChartOptions.begin(), kChartOptions.end());
        return out;
    }();
    return all;
}

const OptionSpec& spec(std::string_view name) {
    return findOption(allOptions(), name);
}

double widthOf(const OptionValues& given) {
    const auto width = given.one(spec("width"));
    const auto columns = given.one(spec("columns"));
    if (width && columns)
        throw ValidationError("option.conflict", "--columns",
                              "--columns " + *columns + " with --width " + *width +
                                  ": give one of them (--columns sets the width)");
    if (columns) {
        static constexpr std::array<std::string_view, 2> kColumns{"single", "double"};
        return choiceOption(spec("columns"), *columns, kColumns) == "single" ? kSingleColumnPt
                                                                             : kDoubleColumnPt;
    }
    return width ? numberOption(spec("width"), *width, 100, 5000) : kDoubleColumnPt;
}

void readChart(const OptionValues& given, ExportRequest& request) {
    ChartSettings& chart = request.chart;
    if (const auto palette = given.one(spec("palette"))) {
        std::vector<std::string_view> known;
        for (const Palette& p : palettes()) known.push_back(p.name);
        chart.palette = choiceOption(spec("palette"), *palette, known);
    }
    request.widthPt = widthOf(given);
    if (const auto dpi = given.one(spec("dpi"))) request.dpi = numberOption(spec("dpi"), *dpi, 30, 1200);
    chart.showComm = given.has("comm");
    chart.subtitle = !given.has("no-subtitle");
    chart.costLine = !given.has("no-cost-line");
    chart.unitTime = given.has("unit-time");
    if (const auto rows = given.one(spec("rows"))) {
        static constexpr std::array<std::string_view, 2> kRows{"overlaid", "under-predicted"};
        chart.measuredRows = *parseMeasuredRows(choiceOption(spec("rows"), *rows, kRows));
    }
}

void readInput(const std::string& inputPath, const OptionValues& given, EvaluationInput& in) {
    in.path = inputPath;
    in.projectPath = given.one(spec("project")).value_or("");
    if (const auto schedules = given.one(spec("schedule"))) in.schedules = commaList(*schedules);
    in.sets = given.all(spec("set"));
    in.serializeOverlap = given.has("serialize-overlap");
    in.tracePaths = given.all(spec("trace"));
    readTraceOptions(given, in);
}

} // namespace

std::span<const OptionSpec> exportOptions() {
    return allOptions();
}

ExportRequest exportRequestFrom(const std::string& inputPath, const std::string& output,
                                const OptionValues& given) {
    ExportRequest request;
    request.output = output;
    readInput(inputPath, given, request.input);
    readChart(given, request);
    return request;
}

} // namespace stagecraft
