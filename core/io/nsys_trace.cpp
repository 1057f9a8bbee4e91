#include "io/nsys_trace.h"

#include "error.h"
#include "io/json_scan.h"
#include "io/overlap_ranges.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace stagecraft {

namespace {

constexpr int kNvtxPushPopRange = 59;
constexpr int kNvtxStartEndRange = 60;

/// Nsight writes 64-bit ids and times as strings; within 2^53 a double holds them exactly.
std::int64_t asInt(double value) {
    return std::isfinite(value) && std::abs(value) < 9.0e15 ? std::int64_t(value) : -1;
}

/// An event type code: small integers; anything else (6e9, NaN) is no known type, never a cast
/// out of int's range (undefined behaviour; a fuzz finding).
int asTypeCode(double value) {
    return std::isfinite(value) && std::abs(value) <= 1e6 ? int(value) : -1;
}

struct PendingRange {
    NvtxRange range;
    std::int64_t textId = -1;
};

void readNvtxEvent(JsonScanner& in, PendingRange& out, int& type) {
    in.beginObject();
    std::string_view key;
    while (in.nextKey(key)) {
        if (key == "Timestamp")
            out.range.startNs = asInt(in.readNumberOr(NAN));
        else if (key == "EndTimestamp")
            out.range.endNs = asInt(in.readNumberOr(NAN));
        else if (key == "Text")
            out.range.name = in.readString();
        else if (key == "TextId")
            out.textId = asInt(in.readNumberOr(NAN));
        else if (key == "GlobalTid")
            out.range.globalTid = asInt(in.readNumberOr(NAN));
        else if (key == "Type")
            type = asTypeCode(in.readNumberOr(-1));
        else
            in.skipValue();
    }
}

} // namespace

std::int64_t nsysProcessOf(std::int64_t globalTid) {
    return (globalTid >> 24) & 0xFFFFFF;
}

std::vector<RankTrace> nvtxRangesToRanks(const std::vector<NvtxRange>& ranges, const std::string& source) {
    std::map<std::int64_t, RankTrace> byProcess;
    for (const NvtxRange& n : ranges) {
        ActionRange r, backward;
        std::string why;
        // torch's OVERLAP_F_B: two halves, divided below by the stand-alone rule (an NVTX export
        // holds no CPU ops to find where the backward began).
        const bool claimsOverlap = n.name.starts_with("PP:(") || n.name.ends_with("OVERLAP_F_B");
        const int overlap =
            claimsOverlap
                ? parseOverlapRangeName(std::string_view(n.name).substr(n.name.starts_with("PP:") ? 3 : 0), r,
                                        backward, &why)
                : 0;
        const int parsed = overlap != 0 ? overlap : parsePipelineRangeName(n.name, r, &why);
        if (parsed == 0) continue;
        if (parsed < 0)
            throw ParseError("trace.event", source, 0, 0,
                             "NVTX event " + std::to_string(n.event) + " named '" + n.name.substr(0, 80) +
                                 "': " + why);
        if (n.endNs < n.startNs || n.startNs < 0)
            throw ParseError("trace.event", source, 0, 0,
                             "NVTX event " + std::to_string(n.event) + " named '" + n.name.substr(0, 80) +
                                 "' ends (" + std::to_string(n.endNs) + " ns) before it starts (" +
                                 std::to_string(n.startNs) + " ns), or has no start");
        r.start = double(n.startNs) / 1000.0;
        r.end = double(n.endNs) / 1000.0;
        r.event = n.event;
        RankTrace& t = byProcess[nsysProcessOf(n.globalTid)];
        t.ranges.push_back(r);
        if (overlap > 0) {
            backward.start = r.start;
            backward.end = r.end;
            backward.event = r.event;
            t.ranges.push_back(backward);
        }
    }
    std::vector<RankTrace> out;
    for (auto& [process, t] : byProcess) {
        std::vector<ActionRange*> ranges;
        for (ActionRange& r : t.ranges) ranges.push_back(&r);
        t.overlapsByRule = divideWholeOverlaps(ranges);
        t.source = byProcess.size() == 1 ? source : source + " (process " + std::to_string(process) + ")";
        t.rank = -1;
        t.clock = "cpu";
        out.push_back(std::move(t));
    }
    return out;
}

namespace {

/// The ranks of the Nsight Systems JSON export `in` reads; `source` names it in messages.
std::vector<RankTrace> readRanks(JsonScanner& in, const std::string& source) {
    std::vector<PendingRange> pending;
    std::unordered_map<std::int64_t, std::string> strings;
    std::vector<std::string> table;
    std::uint32_t line = 0;
    while (!in.atEnd()) {
        in.beginObject();
        std::string_view key;
        PendingRange range;
        int type = -1, innerType = -1;
        bool nvtx = false;
        std::string recordType, value;
        std::int64_t id = -1;
        while (in.nextKey(key)) {
            if (key == "Type") {
                type = asTypeCode(in.readNumberOr(-1));
            } else if (key == "NvtxEvent" && in.peek() == '{') {
                readNvtxEvent(in, range, innerType);
                nvtx = true;
            } else if (key == "data" && in.peek() == '[') {
                in.beginArray();
                while (in.nextElement())
                    table.emplace_back(in.peek() == '"' ? std::string(in.readString())
                                                        : (in.skipValue(), std::string()));
            } else if (key == "type" && in.peek() == '"') {
                recordType = in.readString();
            } else if (key == "id") {
                id = asInt(in.readNumberOr(NAN));
            } else if (key == "value" && in.peek() == '"') {
                value = in.readString();
            } else {
                in.skipValue();
            }
        }
        if (recordType == "String" && id >= 0) strings[id] = value;
        const int kind = innerType >= 0 ? innerType : type;
        if (nvtx && (kind == kNvtxPushPopRange || kind == kNvtxStartEndRange)) {
            range.range.event = line;
            pending.push_back(std::move(range));
        }
        ++line;
    }
    std::vector<NvtxRange> ranges;
    ranges.reserve(pending.size());
    for (PendingRange& p : pending) {
        if (p.range.name.empty() && p.textId >= 0) {
            if (const auto it = strings.find(p.textId); it != strings.end())
                p.range.name = it->second;
            else if (std::size_t(p.textId) < table.size())
                p.range.name = table[std::size_t(p.textId)];
        }
        ranges.push_back(std::move(p.range));
    }
    return nvtxRangesToRanks(ranges, source);
}

} // namespace

std::vector<RankTrace> parseNsysJson(std::string_view text, const std::string& source) {
    JsonScanner in(text, source, "trace.json");
    return readRanks(in, source);
}

std::vector<RankTrace> readNsysJson(const std::filesystem::path& path) {
    JsonScanner in(path, "trace.json");
    return readRanks(in, in.source());
}

} // namespace stagecraft
