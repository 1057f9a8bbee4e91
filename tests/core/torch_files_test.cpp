// The compute-only CSVs torch 2.15's own `_dump_csv` writes (tests/data/torch-csv/<Class>_pp*_m*_v*.csv,
// made by scripts/torch/make_torch_csv.py): every one is read, validated and simulated under unit
// costs, and its makespan is checked against a replay written here from the file's text alone;
// torch's Interleaved1F1B files are the golden orders of our `interleaved` generator; torch's
// static 1F1B order, whose last rank never runs micro-batch 0, is refused on that rank's row.
#include "error.h"
#include "eval/evaluation_input.h"
#include "eval/project_simulation.h"
#include "file_io.h"
#include "generators/registry.h"
#include "io/torch_comms_csv.h"
#include "io/torch_csv.h"
#include "passes/replay.h"
#include "project/project.h"
#include "test_support.h"
#include "validate/validator.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

using namespace stagecraft;

namespace {

namespace fs = std::filesystem;

/// A torch-written file and what its name says (the writer's arguments).
struct TorchFile {
    fs::path path;
    std::string torchClass;
    int pp = 0;
    int m = 0;
    int v = 0;
};

std::vector<TorchFile> torchComputeOnlyFiles() {
    static const std::regex name(R"(([A-Za-z0-9]+)_pp(\d+)_m(\d+)_v(\d+)\.csv)");
    std::vector<TorchFile> files;
    for (const auto& entry : fs::directory_iterator(fs::path(STAGECRAFT_REFERENCE_DIR) / "torch-csv")) {
        std::smatch match;
        const std::string file = entry.path().filename().string();
        if (!std::regex_match(file, match, name)) continue; // _comms files and the older artifacts
        files.push_back(
            {entry.path(), match[1], std::stoi(match[2]), std::stoi(match[3]), std::stoi(match[4])});
    }
    std::sort(files.begin(), files.end(),
              [](const TorchFile& a, const TorchFile& b) { return a.path < b.path; });
    return files;
}

/// The file's rows as lists of simple actions: line ends and blanks trimmed, idle cells dropped,
/// overlapped `(a;b)OVERLAP_F_B` cells split into their sub-actions in the order written.
std::vector<std::vector<std::string>> cellsOf(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        line.erase(std::remove(line.begin(), line.end(), '\r'), line.end());
        if (line.find_first_not_of(", ") == std::string::npos) continue;
        std::vector<std::string> row;
        std::istringstream cells(line);
        std::string cell;
        while (std::getline(cells, cell, ',')) {
            if (cell.empty()) continue;
            if (cell.front() == '(') {
                std::istringstream parts(cell.substr(1, cell.find(')') - 1));
                std::string part;
                while (std::getline(parts, part, ';')) row.push_back(part);
            } else {
                row.push_back(cell);
            }
        }
        rows.push_back(row);
    }
    return rows;
}

/// The unit-cost makespan of a torch CSV, computed from its text alone (docs/simulation.md): each
/// rank runs its row in order; an op starts when its rank is free and its producer has finished:
/// F(s,j) after F(s-1,j); B or I (s,j) after F(s,j) and the input gradient of (s+1,j); W after its
/// I on the same rank. A full stage costs 1 for F, I and W and 2 for a whole B; a stage of a file
/// with S stages on R ranks is R/S of a full stage. A whole B hands its input gradient on when it
/// ends, also in a file that splits the backward (any I or W), where it is one unit of an I and
/// its W. REDUCE_GRAD and WAIT_REDUCE_GRAD cost nothing and nothing waits for them here.
double replayMakespan(const std::string& text) {
    static const std::regex compute(R"((\d+)([FIBW])(\d+))");
    static const std::regex reduction(R"(\d+(WAIT_)?REDUCE_GRAD)");
    struct Step {
        char kind; // F, I, W, or B for a whole backward
        int stage;
        int mb;
        double duration;
    };
    const auto cells = cellsOf(text);
    int stages = 0;
    for (const auto& row : cells)
        for (const std::string& cell : row) {
            std::smatch match;
            if (std::regex_match(cell, reduction)) continue;
            REQUIRE(std::regex_match(cell, match, compute));
            stages = std::max(stages, std::stoi(match[1]) + 1);
        }
    const double unit = double(cells.size()) / double(stages);
    std::vector<std::vector<Step>> programs;
    for (const auto& row : cells) {
        std::vector<Step> program;
        for (const std::string& cell : row) {
            std::smatch match;
            if (!std::regex_match(cell, match, compute)) continue;
            const char kind = match[2].str()[0];
            const int stage = std::stoi(match[1]), mb = std::stoi(match[3]);
            program.push_back({kind, stage, mb, kind == 'B' ? 2 * unit : unit});
        }
        programs.push_back(program);
    }
    std::map<std::tuple<char, int, int>, double> end; // (F or G for the input gradient, stage, mb)
    auto doneAt = [&](char kind, int stage, int mb) -> double {
        const auto it = end.find({kind, stage, mb});
        return it == end.end() ? -1.0 : it->second;
    };
    std::vector<std::size_t> next(programs.size(), 0);
    std::vector<double> free(programs.size(), 0.0);
    double makespan = 0;
    for (bool progress = true; progress;) {
        progress = false;
        for (std::size_t r = 0; r < programs.size(); ++r)
            while (next[r] < programs[r].size()) {
                const Step& step = programs[r][next[r]];
                double start = free[r];
                if (step.kind == 'F' && step.stage > 0) {
                    const double input = doneAt('F', step.stage - 1, step.mb);
                    if (input < 0) break;
                    start = std::max(start, input);
                }
                if (step.kind == 'B' || step.kind == 'I') {
                    const double forward = doneAt('F', step.stage, step.mb);
                    const double gradient =
                        step.stage + 1 < stages ? doneAt('G', step.stage + 1, step.mb) : 0.0;
                    if (forward < 0 || gradient < 0) break;
                    start = std::max({start, forward, gradient});
                }
                free[r] = start + step.duration;
                if (step.kind == 'F') end[{'F', step.stage, step.mb}] = free[r];
                if (step.kind == 'B' || step.kind == 'I') end[{'G', step.stage, step.mb}] = free[r];
                makespan = std::max(makespan, free[r]);
                ++next[r];
                progress = true;
            }
    }
    for (std::size_t r = 0; r < programs.size(); ++r) REQUIRE(next[r] == programs[r].size()); // no deadlock
    return makespan;
}

bool vShaped(const std::string& torchClass) {
    return torchClass == "ZBVZeroBubble" || torchClass == "DualPipeV";
}

} // namespace

TEST_CASE("The replay of the test itself: 1F1B and GPipe closed forms", "[torch-files]") {
    // (p + m - 1) (F + B) = (p + m - 1) * 3 under unit costs with a whole B of 2.
    CHECK(replayMakespan("0F0,0F1,0F2,0B0,0B1,0B2\n1F0,1F1,1F2,1B0,1B1,1B2\n") == Approx(12.0));
    CHECK(replayMakespan("0F0,0F1,0B0,0F2,0B1,0B2\r\n,1F0,1B0,1F1,1B1,1F2,1B2\r\n") == Approx(12.0));
    // Split: F, I, W each 1: p = 2, m = 1 runs F F I I W on the critical path, W of rank 0 last.
    CHECK(replayMakespan("0F0,0I0,0W0\n1F0,1I0,1W0\n") == Approx(5.0));
}

TEST_CASE("Every compute-only CSV torch writes validates and simulates to the replayed makespan",
          "[torch-files]") {
    const auto files = torchComputeOnlyFiles();
    REQUIRE(files.size() >= 25);
    std::map<std::string, int> perClass;
    for (const TorchFile& file : files) {
        if (file.torchClass == "1F1B") continue; // refused: see the next test
        INFO(file.path.filename().string());
        const std::string text = readTextFile(file.path);
        TorchCsvOptions options;
        if (file.torchClass == "DualPipeV") options.overlap = OverlapPolicy::Serialize;
        const Schedule s = parseTorchCsv(text, file.path.filename().string(), options);
        const auto problems = findProblems(s, 3);
        INFO((problems.empty() ? std::string() : problems.front().message));
        REQUIRE(problems.empty());
        CHECK(s.devices == file.pp);
        CHECK(s.stagesPerPipe == file.pp * file.v);
        CHECK(s.microbatches == file.m);
        CHECK(s.placement.front() == (vShaped(file.torchClass) ? vShapePlacement(file.pp)
                                                               : loopedPlacement(file.pp, file.pp * file.v)));

        // The path `stagecraft-cli simulate FILE --set costs.mode=unit` takes, on the default
        // project (whose cluster and layer count do not fit most of these pipelines).
        EvaluationInput input;
        input.path = file.path.string();
        input.sets = {"costs.mode=unit"};
        input.serializeOverlap = options.overlap == OverlapPolicy::Serialize;
        const AnalysisResult result = analyze(loadAnalysisRequest(input));
        INFO((result.refusals.empty() ? std::string() : result.refusals.front().message));
        REQUIRE(result.outcomes.size() == 1);
        CHECK(result.outcomes[0].prediction.report.iterationUs ==
              Approx(replayMakespan(text)).epsilon(1e-12));
        ++perClass[file.torchClass];
    }
    for (const char* torchClass :
         {"GPipe", "Interleaved1F1B", "LoopedBFS", "InterleavedZeroBubble", "ZBVZeroBubble", "DualPipeV"}) {
        INFO(torchClass);
        CHECK(perClass[torchClass] >= 1);
    }
}

TEST_CASE("GPipe's REDUCE_GRAD cells are the stages' gradient syncs, after their last backward",
          "[torch-files]") {
    const auto path = fs::path(STAGECRAFT_REFERENCE_DIR) / "torch-csv" / "GPipe_pp2_m3_v1.csv";
    REQUIRE(readTextFile(path) == "0F0,0F1,0F2,0B0,0B1,0B2,0REDUCE_GRAD,0WAIT_REDUCE_GRAD\r\n"
                                  "1F0,1F1,1F2,1B0,1B1,1B2,1REDUCE_GRAD,1WAIT_REDUCE_GRAD\r\n");
    const Schedule s = parseTorchCsv(readTextFile(path), "gpipe.csv");
    Schedule expected = generateSchedule("gpipe", {2, 3, 1});
    for (int d = 0; d < 2; ++d) expected.order[d].push_back(Op{OpKind::GradSync, 0, 0, d, -1});
    expected.name = s.name;
    CHECK(s == expected);
}

TEST_CASE("torch's static 1F1B order is refused on its last rank, which never runs micro-batch 0",
          "[torch-files]") {
    const auto dir = fs::path(STAGECRAFT_REFERENCE_DIR) / "torch-csv";
    CHECK(test::errorSummary([&] { parseTorchCsv(readTextFile(dir / "1F1B_pp4_m8_v1.csv"), "1f1b.csv"); }) ==
          "csv.count 4:2 | 1f1b.csv line 4, column 2: '3B0' has no forward: rank 3 runs 3F1..3F8 and never "
          "3F0");
    CHECK(test::errorSummary([&] { parseTorchCsv(readTextFile(dir / "1F1B_pp2_m4_v1.csv"), "1f1b.csv"); }) ==
          "csv.count 2:2 | 1f1b.csv line 2, column 2: '1B0' has no forward: rank 1 runs 1F1..1F4 and never "
          "1F0");
}

TEST_CASE("interleaved generates torch's Interleaved1F1B order where p does not divide m", "[torch-files]") {
    int compared = 0, notMultiple = 0;
    for (const TorchFile& file : torchComputeOnlyFiles()) {
        if (file.torchClass != "Interleaved1F1B") continue;
        INFO(file.path.filename().string());
        // At m == p our order is Megatron's all-warm-up (every forward first); torch runs its
        // usual warm-up there. Everywhere else the two are the same rule.
        if (file.m == file.pp) continue;
        const ScheduleParams params{file.pp, file.m, file.v};
        REQUIRE_FALSE(constraintViolation(findGenerator("interleaved"), params));
        std::string expected;
        for (const auto& row : cellsOf(readTextFile(file.path))) {
            for (std::size_t i = 0; i < row.size(); ++i) expected += (i ? "," : "") + row[i];
            expected += '\n';
        }
        CHECK(scheduleToTorchCsv(generateSchedule("interleaved", params)) == expected);
        ++compared;
        notMultiple += file.m % file.pp != 0 ? 1 : 0;
    }
    CHECK(compared >= 5);
    CHECK(notMultiple >= 4);
}

TEST_CASE("torch's own compute+comms files lower to programs that replay and match its compute order",
          "[torch-files][lower]") {
    int files = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(STAGECRAFT_REFERENCE_DIR) / "torch-csv")) {
        const std::string name = entry.path().filename().string();
        const auto suffix = name.find("_comms.csv");
        if (suffix == std::string::npos) continue;
        INFO(name);
        const std::string text = readTextFile(entry.path());
        REQUIRE(looksLikeTorchCommsCsv(text));
        const Lowered lowered = parseTorchCommsCsv(text, name);
        // What torch's runtime executes (one batch per action, non-blocking sends) is
        // deadlock-free, and so it is with blocking NCCL pairs when adjacent transfers go together.
        for (const ReplayOptions options :
             {ReplayOptions{CommSemantics::Mpi, false}, ReplayOptions{CommSemantics::Mpi, true},
              ReplayOptions{CommSemantics::Nccl, true}}) {
            const ReplayResult result = replay(lowered, options);
            INFO(semanticsName(options.semantics)
                 << (options.groups ? " grouped: " : ": ") << result.message);
            CHECK(result.ok());
        }
        // Its compute cells are, rank by rank, the compute-only file torch wrote for the same shape.
        const fs::path computeOnly = entry.path().parent_path() / (name.substr(0, suffix) + ".csv");
        REQUIRE(fs::exists(computeOnly));
        const Schedule s = parseTorchCsv(readTextFile(computeOnly), computeOnly.filename().string());
        REQUIRE(lowered.programs.size() == s.order.size());
        for (std::size_t r = 0; r < s.order.size(); ++r) {
            std::vector<Op> compute;
            for (const Instruction& in : lowered.programs[r].instructions)
                if (in.kind == InstrKind::Compute) compute.push_back(Op{in.op, in.pipe, 0, in.stage, in.mb});
            std::vector<Op> expected;
            for (Op op : s.order[r])
                if (isComputeKind(op.kind)) expected.push_back(Op{op.kind, op.pipe, 0, op.stage, op.mb});
            CHECK(compute == expected);
        }
        ++files;
    }
    CHECK(files >= 4);
}
