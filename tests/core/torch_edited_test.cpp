// A schedule designed by hand, run by torch: the order `stagecraft-cli edit` made from
// samples/edits/1f1b-halfway.edits.json (1F1B at p = 4, m = 8, split, stage 1's and one of stage
// 2's W moved: an order torch has no class for), loaded by torch 2.15's
// `_PipelineScheduleRuntime._load_csv` and trained with on CPU (scripts/torch/run_edited_schedule.py
// recorded tests/data/torch-runs/edited_pp4.tar.xz). What torch left is checked against the design:
// it loaded exactly that order, the edit list still makes it, and every op of it is in torch's
// profiler traces.
#include "edit/schedule_editor.h"
#include "eval/evaluation.h"
#include "eval/evaluation_input.h"
#include "file_io.h"
#include "io/edit_list.h"
#include "io/schedule_file.h"
#include "io/torch_csv.h"
#include "sim/list_scheduler.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

using namespace stagecraft;

namespace {

const std::filesystem::path kRun = std::filesystem::path(STAGECRAFT_TORCH_RUNS_DIR) / "edited_pp4";

} // namespace

TEST_CASE("an order designed by hand is the order torch loaded, and torch ran every op of it",
          "[torch_runs][edit]") {
    // torch's re-dump of what it loaded (its csv writer ends rows with CR LF) is our file's order.
    const Schedule edited = readScheduleFile(kRun / "edited.csv");
    const Schedule loaded = readScheduleFile(kRun / "torch_loaded.csv");
    REQUIRE(edited.devices == 4);
    CHECK(edited.splitBackward);
    CHECK(loaded.order == edited.order);

    // The recording stays tied to the edit list: replaying it today makes the same order.
    const std::filesystem::path listPath =
        std::filesystem::path(STAGECRAFT_SOURCE_DIR) / "samples/edits/1f1b-halfway.edits.json";
    const EditList list = parseEditList(readTextFile(listPath), listPath.string());
    const Schedule base = loadEditBase(list.base, listPath.parent_path());
    Schedule split = base; // unit costs in the editor's convention (F = B = W = 1)
    split.splitBackward = true;
    ScheduleEditor editor(base, fullStageCosts(split, 1, 1, 1, 0));
    for (const Edit& e : readListEdits(list, base.sequenceSlices).edits)
        REQUIRE(editor.apply(e).broken.kind == BreakKind::None);
    CHECK(editor.schedule().order == edited.order);
    CHECK(editor.makespan() == Approx(30)); // 1F1B's 33 units, 3 fewer (docs/editing.md)

    // torch's ranges (PP:<stage><action>, 4 profiled steps) overlay every compute op of the order.
    EvaluationInput input;
    input.path = (kRun / "edited.csv").string();
    for (int r = 0; r < 4; ++r)
        input.tracePaths.push_back((kRun / ("edited_rank" + std::to_string(r) + ".json")).string());
    input.traceMedian = true;
    const AnalysisResult result = analyze(loadAnalysisRequest(input));
    INFO(result.overlayError);
    REQUIRE(result.overlay);
    // F, I and W of 4 stages and 8 micro-batches, and each stage's gradient sync (torch's
    // REDUCE_GRAD); torch records no optimizer step of its own.
    CHECK(result.overlay->report.ops.size() == 4 * 8 * 3 + 4);
    CHECK(result.overlay->report.unmatched.size() == 4);
}
