#include "sim/timeline_search.h"

#include "ir/op_name.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace stagecraft {
namespace {

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::string upper(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = char(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

/// What a query asks for; unset fields match anything. On a sequence-sliced timeline `mb` is a
/// micro-batch (every slice of it) unless `slice` names one of its slices.
struct OpQuery {
    OpKind kind = OpKind::F;
    std::optional<int> stage, mb, pipe, slice;
};

std::optional<OpKind> kindOfLetter(char c) {
    switch (c) {
    case 'F':
        return OpKind::F;
    case 'B':
    case 'I':
        return OpKind::B;
    case 'W':
        return OpKind::W;
    default:
        return std::nullopt;
    }
}

std::optional<OpQuery> parseQuery(std::string_view text, int slices) {
    std::string u = upper(text);
    // "3F2.1" / "F2.1": slice 1 of micro-batch 2, on a timeline cut into slices.
    std::optional<int> slice;
    if (const auto dot = u.rfind('.');
        slices > 1 && dot != std::string::npos && dot + 1 < u.size() && u.size() - dot <= 4 &&
        std::all_of(u.begin() + std::ptrdiff_t(dot) + 1, u.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        slice = std::stoi(u.substr(dot + 1));
        if (*slice >= slices) return std::nullopt;
        u.resize(dot);
    }
    auto withSlice = [&slice](OpQuery q) {
        q.slice = slice;
        return q;
    };
    if (u == "S" || u == "GRADSYNC" || u == "O" || u == "OPTIMIZER") {
        if (slice) return std::nullopt; // a sync or a step belongs to no slice
        return OpQuery{u[0] == 'S' || u[0] == 'G' ? OpKind::GradSync : OpKind::Optimizer, {}, {}, {}, {}};
    }
    // "B17": a kind letter, then digits only.
    if (u.size() >= 2 && kindOfLetter(u[0]) &&
        std::all_of(u.begin() + 1, u.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
        u.size() <= 10) {
        return withSlice(OpQuery{*kindOfLetter(u[0]), {}, std::stoi(u.substr(1)), {}, {}});
    }
    // Op names as every front end writes them (opName): the parser wants upper-case kinds and
    // "p1:" in lower case. A sync or optimizer name carries no micro-batch.
    std::string canonical = u;
    if (canonical.size() > 1 && canonical[0] == 'P') canonical[0] = 'p';
    if (const std::optional<Op> op = parseOpName(canonical)) {
        OpQuery q{op->kind, op->stage, op->mb, op->pipe, {}};
        if (!isComputeKind(op->kind)) {
            if (slice) return std::nullopt; // a sync or a step belongs to no slice
            q.mb.reset();
            return q;
        }
        return withSlice(q);
    }
    return std::nullopt;
}

} // namespace

std::vector<std::size_t> findTimelineOps(const Timeline& timeline, std::string_view query, std::string* why) {
    std::vector<std::size_t> found;
    const std::string_view text = trimmed(query);
    const int slices = std::max(1, timeline.shape.sequenceSlices);
    const std::optional<OpQuery> q = text.empty() ? std::nullopt : parseQuery(text, slices);
    if (!q) {
        if (why)
            *why = "search \"" + std::string(text) +
                   "\" names no op: type an op name STAGE KIND MB (\"3B17\", \"p1:0F2\", \"2SYNC\"), a "
                   "kind and micro-batch (\"B17\"), \"S\" or \"O\"" +
                   (slices > 1 ? ", with .SLICE for one slice (\"3F2.1\", slices 0.." +
                                     std::to_string(slices - 1) + ")"
                               : std::string());
        return found;
    }
    for (std::size_t i = 0; i < timeline.events.size(); ++i) {
        const TimelineEvent& e = timeline.events[i];
        if (e.lane != Lane::Compute || e.op.kind != q->kind) continue;
        if (q->stage && e.op.stage != *q->stage) continue;
        // A sliced timeline numbers slice units u = mb * slices + slice.
        if (q->mb && e.op.mb / slices != *q->mb) continue;
        if (q->slice && e.op.mb % slices != *q->slice) continue;
        if (q->pipe && e.op.pipe != *q->pipe) continue;
        found.push_back(i);
    }
    std::stable_sort(found.begin(), found.end(), [&](std::size_t a, std::size_t b) {
        return timeline.events[a].start < timeline.events[b].start;
    });
    if (found.empty() && why) *why = "no op \"" + std::string(text) + "\" in this timeline";
    return found;
}

} // namespace stagecraft
