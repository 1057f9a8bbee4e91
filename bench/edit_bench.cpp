// A hand edit's validation and re-timing (edit/schedule_editor.h) against the schedule's size: one
// W moved one place and moved back (two edits per iteration, an edit and its undo) on ZB-H1 at
// p = 8, m = 32 (768 ops), p = 32, m = 256 (24 576 ops) and p = 64, m = 5461 (1 048 512 ops),
// near the end of the order (few ops downstream), in the middle, and at the start (nearly every
// op downstream), next to a full re-validation and list scheduling of the same schedule (what an
// edit would cost without the editor). `retimed_per_edit` counts the ops each edit re-timed: the
// time follows it, not the schedule's size. Chimera with its gradient syncs, which the editor
// re-times whole, for comparison; and repair (with its fewest-moves search) of four breaks.
// Run: ./build/bench/edit_bench
#include "edit/repair.h"
#include "edit/schedule_editor.h"
#include "generators/registry.h"
#include "ir/op_name.h"
#include "validate/validator.h"

#include <benchmark/benchmark.h>

namespace {

using namespace stagecraft;

enum class Where { End, Middle, Start };

ScheduleParams shape(int p, int m) {
    return ScheduleParams{p, m, 1};
}

OpCosts unitCosts(const Schedule& s) {
    return fullStageCosts(s, 1, 1, 1, 0.1);
}

/// A W of the order to move one place later (always valid: nothing on its device waits for it):
/// the last device's last W that has an op after it (end), the middle W of the middle device
/// (middle), device 0's first W (start).
Op pick(const Schedule& s, Where where) {
    const auto& ops = s.order[where == Where::End      ? std::size_t(s.devices - 1)
                              : where == Where::Middle ? std::size_t(s.devices / 2)
                                                       : 0];
    std::vector<std::size_t> ws;
    for (std::size_t i = 0; i + 1 < ops.size(); ++i)
        if (ops[i].kind == OpKind::W) ws.push_back(i);
    const std::size_t at = where == Where::End      ? ws.back()
                           : where == Where::Middle ? ws[ws.size() / 2]
                                                    : ws.front();
    return ops[at];
}

void editMove(benchmark::State& state, int p, int m, Where where) {
    const Schedule s = generateSchedule("zb-h1", shape(p, m));
    ScheduleEditor editor(s, unitCosts(s));
    Edit later;
    later.kind = EditKind::Shift;
    later.op = pick(s, where);
    later.index = 1;
    Edit back = later;
    back.index = -1;
    std::size_t retimed = 0, edits = 0;
    for (auto _ : state) {
        retimed += editor.apply(later).retimed;
        retimed += editor.apply(back).retimed;
        edits += 2;
        benchmark::DoNotOptimize(editor.makespan());
    }
    if (!editor.runs()) state.SkipWithError("the edit broke the schedule");
    state.counters["ops"] = double(s.opCount());
    state.counters["retimed_per_edit"] = double(retimed) / double(std::max<std::size_t>(edits, 1));
    state.counters["edits"] = benchmark::Counter(double(edits), benchmark::Counter::kIsRate);
}

/// The same on Chimera, whose orders hold its eager gradient syncs: the editor re-times such an
/// order whole per edit (docs/editing.md), so this follows the schedule's size. Device 0's first
/// sync that has an op after it moves one place later and back.
void editMoveSynced(benchmark::State& state, int p, int m) {
    const Schedule s = generateSchedule("chimera", shape(p, m));
    ScheduleEditor editor(s, fullStageCosts(s, 1, 1, 1, 0.1, 2.0));
    Edit later;
    later.kind = EditKind::Shift;
    later.index = 1;
    const auto& ops = s.order[0];
    for (std::size_t i = 0; i + 1 < ops.size(); ++i)
        if (ops[i].kind == OpKind::GradSync) {
            later.op = ops[i];
            break;
        }
    Edit back = later;
    back.index = -1;
    std::size_t edits = 0;
    for (auto _ : state) {
        editor.apply(later);
        editor.apply(back);
        edits += 2;
        benchmark::DoNotOptimize(editor.makespan());
    }
    if (later.op.kind != OpKind::GradSync || !editor.runs())
        state.SkipWithError("no sync moved, or it broke");
    state.counters["ops"] = double(s.opCount());
    state.counters["edits"] = benchmark::Counter(double(edits), benchmark::Counter::kIsRate);
}

/// Repair of ZB-H1 broken by four moves (an F moved late, a W before its I, a B to the front, an F
/// early): the greedy, then the fewest-moves search that proves its count or beats it (within
/// its cap of about 0.1 s of work). `moves` is what the repair made, `greedy` the greedy's count.
void repairFourBreaks(benchmark::State& state, int p, int m) {
    const Schedule s = generateSchedule("zb-h1", shape(p, m));
    ScheduleEditor broken(s, unitCosts(s));
    const int last = p - 1, mid = p / 2;
    for (const std::string& text :
         {"move 1F3 to " + std::to_string(2 * m),
          "move " + std::to_string(mid) + "W" + std::to_string(m / 2) + " to 2",
          "move " + std::to_string(last) + "B7 to 0", "move 0F" + std::to_string(m - 2) + " to 1"})
        broken.apply(parseEdit(text));
    RepairSearch search;
    std::size_t moves = 0;
    for (auto _ : state) {
        ScheduleEditor editor = broken;
        moves = repair(editor, &search).size();
        benchmark::DoNotOptimize(editor.makespan());
    }
    if (broken.runs()) state.SkipWithError("the moves did not break the order");
    state.counters["ops"] = double(s.opCount());
    state.counters["moves"] = double(moves);
    state.counters["greedy"] = double(search.greedyMoves);
    state.counters["fewest"] = search.fewest ? 1 : 0;
}

/// What one edit costs without the editor: validate the whole order and list-schedule it.
void fullCheck(benchmark::State& state, int p, int m) {
    const Schedule s = generateSchedule("zb-h1", shape(p, m));
    const OpCosts costs = unitCosts(s);
    for (auto _ : state) {
        const OpIndex index(s);
        benchmark::DoNotOptimize(findProblems(s).size());
        const ListScheduleResult run = listSchedule(s, index, costs);
        benchmark::DoNotOptimize(run.times.back().end);
    }
    state.counters["ops"] = double(s.opCount());
}

} // namespace

BENCHMARK_CAPTURE(editMove, p8_m32_end, 8, 32, Where::End)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(editMove, p8_m32_middle, 8, 32, Where::Middle)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(editMove, p8_m32_start, 8, 32, Where::Start)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(fullCheck, p8_m32, 8, 32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(editMove, p32_m256_end, 32, 256, Where::End)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(editMove, p32_m256_middle, 32, 256, Where::Middle)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(editMove, p32_m256_start, 32, 256, Where::Start)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(fullCheck, p32_m256, 32, 256)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(editMove, p64_m5461_end, 64, 5461, Where::End)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(editMove, p64_m5461_middle, 64, 5461, Where::Middle)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(editMove, p64_m5461_start, 64, 5461, Where::Start)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(fullCheck, p64_m5461, 64, 5461)->Unit(benchmark::kMicrosecond);

BENCHMARK_CAPTURE(editMoveSynced, chimera_p8_m32, 8, 32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(editMoveSynced, chimera_p32_m256, 32, 256)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(editMoveSynced, chimera_p64_m5440, 64, 5440)->Unit(benchmark::kMicrosecond);

BENCHMARK_CAPTURE(repairFourBreaks, p8_m32, 8, 32)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(repairFourBreaks, p32_m256, 32, 256)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
