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

/// What a query asks for; unset fields match anything.
struct OpQuery {
    OpKind kind = OpKind::F;
    std::optional<int> stage, mb, pipe;
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

std::optional<OpQuery> parseQuery(std::string_view text) {
    const std::string u = upper(text);
    if (u == "S" || u == "GRADSYNC") return OpQuery{OpKind::GradSync, {}, {}, {}};
    if (u == "O" || u == "OPTIMIZER") return OpQuery{OpKind::Optimizer, {}, {}, {}};
    // "B17": a kind letter, then digits only.
    if (u.size() >= 2 && kindOfLetter(u[0]) &&
        std::all_of(u.begin() + 1, u.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
        u.size() <= 10) {
        return OpQuery{*kindOfLetter(u[0]), {}, std::stoi(u.substr(1)), {}};
    }
    // Op names as every front end writes them (opName): the parser wants upper-case kinds and
    // "p1:" in lower case. A sync or optimizer name carries no micro-batch.
    std::string canonical = u;
    if (canonical.size() > 1 && canonical[0] == 'P') canonical[0] = 'p';
    if (const std::optional<Op> op = parseOpName(canonical)) {
        OpQuery q{op->kind, op->stage, op->mb, op->pipe};
        if (!isComputeKind(op->kind)) q.mb.reset();
        return q;
    }
    return std::nullopt;
}

} // namespace

std::vector<std::size_t> findTimelineOps(const Timeline& timeline, std::string_view query, std::string* why) {
    std::vector<std::size_t> found;
    const std::string_view text = trimmed(query);
    const std::optional<OpQuery> q = text.empty() ? std::nullopt : parseQuery(text);
    if (!q) {
        if (why)
            *why = "search \"" + std::string(text) +
                   "\" names no op: type an op name STAGE KIND MB (\"3B17\", \"p1:0F2\", \"2SYNC\"), a "
                   "kind and micro-batch (\"B17\"), \"S\" or \"O\"";
        return found;
    }
    for (std::size_t i = 0; i < timeline.events.size(); ++i) {
        const TimelineEvent& e = timeline.events[i];
        if (e.lane != Lane::Compute || e.op.kind != q->kind) continue;
        if (q->stage && e.op.stage != *q->stage) continue;
        if (q->mb && e.op.mb != *q->mb) continue;
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
