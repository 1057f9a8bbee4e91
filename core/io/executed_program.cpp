#include "io/executed_program.h"

#include "error.h"
#include "io/torch_comms_csv.h"
#include "io/torch_csv.h"
#include "passes/lower_torch.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace stagecraft {

std::string torchActionName(const ActionRange& r) {
    const char* type = nullptr;
    switch (r.kind) {
    case RangeKind::F:
        type = "F";
        break;
    case RangeKind::I:
        type = "I";
        break;
    case RangeKind::B:
        type = "B";
        break;
    case RangeKind::W:
        type = "W";
        break;
    case RangeKind::SendF:
        type = "SEND_F";
        break;
    case RangeKind::RecvF:
        type = "RECV_F";
        break;
    case RangeKind::SendB:
        type = "SEND_B";
        break;
    case RangeKind::RecvB:
        type = "RECV_B";
        break;
    case RangeKind::WaitSendF:
        type = "WAIT_SEND_F";
        break;
    case RangeKind::WaitSendB:
        type = "WAIT_SEND_B";
        break;
    case RangeKind::ReduceGrad:
        type = "REDUCE_GRAD";
        break;
    case RangeKind::Unshard:
        type = "UNSHARD";
        break;
    case RangeKind::Reshard:
        type = "RESHARD";
        break;
    case RangeKind::R:
        type = "R";
        break;
    case RangeKind::Other:
        return {};
    }
    return std::to_string(r.stage) + type + (r.mb >= 0 ? std::to_string(r.mb) : std::string());
}

int completeIterations(const std::vector<RankTrace>& ranks) {
    int iterations = -1;
    for (const RankTrace& t : ranks) {
        std::map<std::tuple<int, int, int>, int> count;
        for (const ActionRange& r : t.ranges)
            if (isComputeRange(r.kind)) ++count[{int(r.kind), r.stage, r.mb}];
        for (const auto& [key, n] : count) iterations = iterations < 0 ? n : std::min(iterations, n);
    }
    return std::max(0, iterations);
}

std::vector<const ActionRange*> iterationActions(const RankTrace& rank, int iteration) {
    std::vector<const ActionRange*> sorted;
    sorted.reserve(rank.ranges.size());
    for (const ActionRange& r : rank.ranges) sorted.push_back(&r);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const ActionRange* a, const ActionRange* b) { return a->start < b->start; });
    std::map<std::tuple<int, int, int>, int> seen; // (kind, stage, mb) -> occurrences so far
    std::vector<const ActionRange*> chosen;
    for (const ActionRange* r : sorted)
        if (seen[{int(r->kind), r->stage, r->mb}]++ == iteration) chosen.push_back(r);
    return chosen;
}

std::string executedActionsCsv(const std::vector<RankTrace>& ranks, int iteration) {
    std::string text;
    for (const RankTrace& t : ranks) {
        bool first = true;
        for (const ActionRange* r : iterationActions(t, iteration)) {
            const std::string name = torchActionName(*r);
            if (name.empty()) continue;
            text += (first ? "" : ",") + name;
            first = false;
        }
        text += '\n';
    }
    return text;
}

Lowered executedPrograms(const std::vector<RankTrace>& ranks, int iteration, const std::string& source) {
    TorchCommsCsvOptions options;
    options.name = "executed";
    return parseTorchCommsCsv(executedActionsCsv(ranks, iteration), source, options);
}

bool recordsTransfers(const std::vector<RankTrace>& ranks) {
    for (const RankTrace& t : ranks)
        for (const ActionRange& r : t.ranges)
            if (r.kind == RangeKind::SendF || r.kind == RangeKind::RecvF || r.kind == RangeKind::SendB ||
                r.kind == RangeKind::RecvB)
                return true;
    return false;
}

Lowered programsOfRun(const std::vector<RankTrace>& ranks, const std::string& source) {
    if (recordsTransfers(ranks)) return executedPrograms(ranks, 0, source);
    // The compute order the ranges show, as torch's compute-only CSV.
    std::string text;
    bool gpipe = true;
    for (std::size_t d = 0; d < ranks.size(); ++d) {
        bool sawBackward = false, first = true;
        for (const ActionRange* r : iterationActions(ranks[d], 0)) {
            if (!isComputeRange(r->kind)) continue;
            if (r->stage != int(d)) gpipe = false;
            if (r->kind == RangeKind::F && sawBackward) gpipe = false;
            sawBackward |= r->kind != RangeKind::F;
            text += (first ? "" : ",") + torchActionName(*r);
            first = false;
        }
        text += '\n';
    }
    if (!gpipe)
        throw ParseError(
            "trace.shape", source, 0, 0,
            "the run records no SEND/RECV actions and is not ScheduleGPipe's loop (one stage per rank, "
            "every forward before every backward), so the programs it ran cannot be known; record a "
            "class of torch's runtime (its PP: actions), or GPipe");
    TorchCsvOptions options;
    options.name = "gpipe";
    return lowerGPipeLoopLikeTorch(parseTorchCsv(text, source, options));
}

} // namespace stagecraft
